/** Shared values for the OAuth authorization server tests (RFC 7636 Appendix B verifier, a registered client, records). */
import { createHash } from 'node:crypto';
import { ok, type Result } from 'neverthrow';
import { hashAccessToken } from '../../../../src/core/access-token.js';
import type { AuthorizationCodeGrant, RefreshTokenGrant } from '../../../../src/core/oauth/server/token-request.js';
import type {
  AuthorizationCodeRecord,
  OAuthClient,
  OAuthParameters,
  RefreshTokenRecord,
} from '../../../../src/core/oauth/server/records.js';

export const sha256 = (bytes: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(bytes).digest());
export const digest = (secret: string): string => hashAccessToken(secret, sha256)._unsafeUnwrap();
/** RFC 7636 §4.2 S256, written with node:crypto (independent of the module's own base64url). */
export const s256 = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');
/** RFC 6749 §2.3.1 / oauth4webapi's client_secret_basic encoding. */
export const formEncode = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');
export const basic = (id: string, secret: string): string =>
  'Basic ' + Buffer.from(`${formEncode(id)}:${formEncode(secret)}`).toString('base64');

// RFC 7636 Appendix B.
export const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
export const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
export const CB = 'https://app.example/cb';
export const CB2 = 'https://app.example/other';
export const NOW = 1_700_000_000_000;

export const client: OAuthClient = {
  clientId: 'gai_client',
  clientSecretHash: digest('gas_secret'),
  redirectUris: [CB],
  scopes: ['user:all'],
};
export const twoUris: OAuthClient = { ...client, redirectUris: [CB, CB2] };

export const base: OAuthParameters = [
  ['client_id', 'gai_client'],
  ['response_type', 'code'],
  ['code_challenge', CHALLENGE],
  ['code_challenge_method', 'S256'],
];
export const without = (params: OAuthParameters, name: string): OAuthParameters => params.filter(([n]) => n !== name);
export const withParam = (params: OAuthParameters, name: string, value: string): OAuthParameters => [
  ...without(params, name),
  [name, value],
];
export const redirect = (state: string | null = null, redirectUri: string = CB): { redirectUri: string; state: string | null } => ({
  redirectUri,
  state,
});

export const codeRecord: AuthorizationCodeRecord = {
  codeHash: 'h',
  familyId: 'fam',
  clientId: 'gai_client',
  userId: 'u1',
  redirectUri: CB,
  redirectUriGiven: true,
  scopes: ['user:all'],
  codeChallenge: CHALLENGE,
  expiresAt: NOW + 60_000,
  used: false,
};
export const codeGrant: AuthorizationCodeGrant = { kind: 'authorization_code', code: 'gac_x', redirectUri: CB, codeVerifier: VERIFIER };
export const issued: Result<object, never> = ok({ kind: 'issue', familyId: 'fam', clientId: 'gai_client', userId: 'u1', scopes: ['user:all'] });

export const refreshRecord: RefreshTokenRecord = {
  tokenHash: 'rh',
  familyId: 'fam',
  clientId: 'gai_client',
  userId: 'u1',
  scopes: ['user:all'],
  expiresAt: NOW + 1000,
  used: false,
  familyRevoked: false,
};
export const refreshGrant: RefreshTokenGrant = { kind: 'refresh_token', refreshToken: 'gar_x', scopes: null };
export const rotated: Result<object, never> = ok({
  kind: 'rotate',
  familyId: 'fam',
  clientId: 'gai_client',
  userId: 'u1',
  usedTokenHash: 'rh',
  accessTokenScopes: ['user:all'],
  refreshTokenScopes: ['user:all'],
});

