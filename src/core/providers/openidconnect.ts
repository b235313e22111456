/**
 * An OpenID Connect provider (spec §2.5, §5.3 `openidconnect`): callback `/.auth/callback` (rule 2), sign-up on by
 * default, `requireEmailDomain` (rule 5), the scopes `openid email profile`.
 *
 * @module
 */
import type { Result } from 'neverthrow';
import { asciiLowercase } from '../internal/email-address.js';
import { type FieldProblem, readOptionalString } from '../internal/guard.js';
import type { AuthProvider } from '../auth-providers.js';
import {
  at,
  type CommonFields,
  type EntryScope,
  optional,
  readConfigId,
  readSecretPair,
  readString,
  readUrl,
  validEmailDomain,
} from '../site-configuration/fields.js';
import { formatPath, report } from '../site-configuration/problems.js';
import type { Gate, ProviderSpec } from './spec.js';

/** §5.3 openidconnect rule 5: `requireEmailDomain` restricts to that domain, compared ASCII-case-insensitively. */
function openIdConnectGate(provider: object): Result<Gate, FieldProblem> {
  return readOptionalString(provider, '', 'requireEmailDomain', true).map(
    (domain): Gate => (domain === undefined ? { kind: 'none' } : { kind: 'email_domain', domain: asciiLowercase(domain) }),
  );
}

/** Reads and checks the fields of one `openidconnect` entry (spec §2.5); `null` when one is bad (each problem is reported). */
export function readOpenIdConnectEntry(scope: EntryScope, common: CommonFields): AuthProvider | null {
  const issuer = readUrl(scope, 'issuer', { required: true, allowEmpty: false, allowQuery: false });
  const pair = readSecretPair(scope, 'clientID');
  const configID = readConfigId(scope);
  const domain = readString(scope, 'requireEmailDomain', { required: false, allowEmpty: false });
  if (domain !== undefined && !validEmailDomain(domain)) {
    report(
      scope.ctx,
      at(scope, 'requireEmailDomain'),
      { code: 'invalid_email_domain', value: domain },
      `${formatPath(at(scope, 'requireEmailDomain'))} must be a bare domain such as "example.com" (no "@", scheme, path or port), but it is ${JSON.stringify(domain)}.`,
    );
  }
  if (issuer === undefined || pair === null) return null;
  return {
    type: 'openidconnect',
    ...common,
    issuer,
    clientID: pair.id,
    clientSecret: pair.secret,
    ...configID,
    ...optional('requireEmailDomain', domain),
  };
}

/** The `openidconnect` provider type. */
export const OPENIDCONNECT: ProviderSpec<'openidconnect'> = {
  type: 'openidconnect',
  fields: ['issuer', 'clientID', 'clientSecret', 'configID', 'requireEmailDomain'],
  defaultAllowSignup: true,
  serviceId: { key: 'issuer', optional: false },
  gate: openIdConnectGate,
  callbackPath: '.auth/callback',
  readEntry: readOpenIdConnectEntry,
  scopes: () => ['openid', 'email', 'profile'],
};
