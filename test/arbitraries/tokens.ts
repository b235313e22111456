/**
 * Shared fast-check generators for access tokens, sudo inputs and OAuth tokens.
 */
import { fc } from '@fast-check/vitest';
import { ACCESS_TOKEN_SCOPES, generateAccessToken } from '../../src/core/access-token.js';
import type { OAuthToken } from '../../src/core/oauth/client/token.js';

/** Exactly the 20 random bytes a token consumes. */
export const tokenRandomBytes: fc.Arbitrary<Uint8Array> = fc.uint8Array({ minLength: 20, maxLength: 20 });

/** A secret as `generateAccessToken` issues it. */
export const accessTokenSecret: fc.Arbitrary<string> = tokenRandomBytes.map((bytes) =>
  generateAccessToken(bytes)._unsafeUnwrap(),
);

/** Any list of known scopes (duplicates and all orders included). */
export const knownScopeList: fc.Arbitrary<string[]> = fc.array(fc.constantFrom(...ACCESS_TOKEN_SCOPES), { maxLength: 4 });

/** Strings that are valid JSON-ish scope tokens, unknown ones included. */
export const anyScopeName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...ACCESS_TOKEN_SCOPES, 'repo', 'USER:ALL', 'user:all ', ''),
  fc.string(),
);

/** Epoch milliseconds in a realistic window (1970 … 2100). */
export const epochMs: fc.Arbitrary<number> = fc.integer({ min: 0, max: 4_102_444_800_000 });

/** A non-empty RFC 6750 b64token. */
export const b64token: fc.Arbitrary<string> = fc
  .tuple(
    fc.string({ unit: fc.constantFrom(...'ABCXYZabcxyz0189-._~+/'), minLength: 1, maxLength: 24 }),
    fc.string({ unit: fc.constant('='), maxLength: 2 }),
  )
  .map(([body, pad]) => body + pad);

/** A well-formed OAuth token (lifetime 1 ms … 2 years), with or without refresh token and scope. */
export const oauthToken: fc.Arbitrary<OAuthToken> = fc
  .record(
    {
      accessToken: b64token,
      issuedAt: epochMs,
      lifetime: fc.integer({ min: 1, max: 2 * 31_536_000_000 }),
      refreshToken: fc.option(b64token, { nil: undefined }),
      scope: fc.option(fc.uniqueArray(fc.constantFrom('user:all', 'read', 'write'), { maxLength: 3 }), { nil: undefined }),
    },
    { noNullPrototype: true },
  )
  .map(({ accessToken, issuedAt, lifetime, refreshToken, scope }) => ({
    accessToken,
    issuedAt,
    expiresAt: issuedAt + lifetime,
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(scope === undefined ? {} : { scope }),
  }));
