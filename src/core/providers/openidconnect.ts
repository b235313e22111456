/**
 * An OpenID Connect provider (spec §2.5, §5.3 `openidconnect`): callback `/.auth/callback` (rule 2), sign-up on by
 * default, `requireEmailDomain` (rule 5), the scopes `openid email profile`.
 *
 * @module
 */
import type { Result } from 'neverthrow';
import { asciiLowercase } from '../internal/email-address.js';
import { type FieldProblem, readOptionalString } from '../internal/guard.js';
import type { Gate, ProviderSpec } from './spec.js';

/** §5.3 openidconnect rule 5: `requireEmailDomain` restricts to that domain, compared ASCII-case-insensitively. */
function openIdConnectGate(provider: object): Result<Gate, FieldProblem> {
  return readOptionalString(provider, '', 'requireEmailDomain', true).map(
    (domain): Gate => (domain === undefined ? { kind: 'none' } : { kind: 'email_domain', domain: asciiLowercase(domain) }),
  );
}

/** The `openidconnect` provider type. */
export const OPENIDCONNECT: ProviderSpec<'openidconnect'> = {
  type: 'openidconnect',
  fields: ['issuer', 'clientID', 'clientSecret', 'configID', 'requireEmailDomain'],
  defaultAllowSignup: true,
  serviceId: { key: 'issuer', optional: false },
  gate: openIdConnectGate,
  callbackPath: '.auth/callback',
  scopes: () => ['openid', 'email', 'profile'],
};
