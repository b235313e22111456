/**
 * An HTTP authentication proxy (spec §2.5, §5.3 `http-header`): `usernameHeader`, optional `emailHeader` and
 * `stripUsernameHeaderPrefix`; sign-up on by default; the proxy signs people in, so there is no callback and no OAuth.
 *
 * @module
 */
import { ok } from 'neverthrow';
import type { AuthProvider } from '../auth-providers.js';
import { ownField } from '../internal/guard.js';
import { at, type CommonFields, type EntryScope, HEADER_TOKEN, optional, readString } from '../site-configuration/fields.js';
import { formatPath, report } from '../site-configuration/problems.js';
import type { ProviderSpec } from './spec.js';

function readHeaderName(scope: EntryScope, key: 'usernameHeader' | 'emailHeader'): string | undefined {
  const value = readString(scope, key, { required: false, allowEmpty: false });
  if (value === undefined || HEADER_TOKEN.test(value)) return value;
  report(
    scope.ctx,
    at(scope, key),
    { code: 'invalid_header_name', value },
    `${formatPath(at(scope, key))} must be an HTTP header name such as "X-Forwarded-User", but it is ${JSON.stringify(value)}.`,
  );
  return undefined;
}

/** Reads and checks the fields of one `http-header` entry (spec §2.5); `null` when one is bad (each problem is reported). */
export function readHttpHeaderEntry(scope: EntryScope, common: CommonFields): AuthProvider | null {
  const before = scope.ctx.problems.length;
  const usernameHeader = readHeaderName(scope, 'usernameHeader');
  const emailHeader = readHeaderName(scope, 'emailHeader');
  const prefix = readString(scope, 'stripUsernameHeaderPrefix', { required: false, allowEmpty: true });
  if (ownField(scope.entry, 'usernameHeader') === undefined && ownField(scope.entry, 'emailHeader') === undefined) {
    report(
      scope.ctx,
      scope.segments,
      { code: 'missing_field', fields: ['usernameHeader', 'emailHeader'] },
      `${scope.label} needs "emailHeader", "usernameHeader" or both: the names of the headers in which the proxy passes the signed-in person.`,
    );
  }
  if (scope.ctx.problems.length !== before) return null;
  if (emailHeader === undefined) {
    scope.ctx.warnings.push({
      code: 'username_only_matching',
      path: formatPath(scope.segments),
      segments: scope.segments,
      message: `${scope.label} has no "emailHeader", so people are matched by username only; usernames are mutable and a renamed user could take over another account, so have the proxy pass the email too.`,
    });
  }
  return {
    type: 'http-header',
    ...common,
    ...optional('usernameHeader', usernameHeader),
    ...optional('emailHeader', emailHeader),
    ...optional('stripUsernameHeaderPrefix', prefix),
  };
}

/** The `http-header` provider type. */
export const HTTP_HEADER: ProviderSpec<'http-header'> = {
  type: 'http-header',
  fields: ['usernameHeader', 'emailHeader', 'stripUsernameHeaderPrefix'],
  defaultAllowSignup: true,
  serviceId: null,
  gate: () => ok({ kind: 'none' }),
  callbackPath: null,
  readEntry: readHttpHeaderEntry,
  scopes: null,
};
