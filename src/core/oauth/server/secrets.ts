/**
 * Client ids, client secrets, authorization codes and tokens: their format and checksum (spec §2.3 format, with per-kind prefixes).
 *
 * Total functions, no I/O: the adapter looks records up and applies the decisions (see `oauth-authorization.ts`).
 *
 * @module
 */
import { err, Result } from 'neverthrow';
import { match } from 'ts-pattern';
import { ACCESS_TOKEN_PREFIX, generateAccessToken, parseAccessToken } from '../../access-token.js';
import { OAUTH_SECRET_KINDS, type OAuthSecretKind } from './records.js';

// ---------------------------------------------------------------------------------------------
// Secrets

/** Why {@link generateOAuthSecret} or {@link parseOAuthSecret} gave no value. */
export type OAuthSecretError =
  /** An argument has the wrong type at run time. */
  | { readonly code: 'invalid_input'; readonly field: 'kind' | 'randomBytes' | 'secret' }
  /** Fewer than 20 random bytes were given. */
  | { readonly code: 'insufficient_entropy'; readonly required: number; readonly received: number }
  /** The presented value does not start with the prefix of its kind. */
  | { readonly code: 'bad_prefix'; readonly expected: string }
  /** The presented value is not well formed (length, characters or checksum). */
  | { readonly code: 'malformed' };

/** The prefix of each kind of secret: a record over every kind, so a kind added without one does not compile. */
const PREFIXES: Readonly<Record<OAuthSecretKind, string>> = Object.freeze({
  client_id: 'gai_',
  client_secret: 'gas_',
  authorization_code: 'gac_',
  access_token: 'gao_',
  refresh_token: 'gar_',
});

function prefixOf(kind: OAuthSecretKind): string {
  return PREFIXES[kind];
}

function readKind(value: unknown): OAuthSecretKind | null {
  return OAUTH_SECRET_KINDS.find((k) => k === value) ?? null;
}

/**
 * Builds a new client id, client secret, authorization code or token from 20 random bytes (160
 * bits): the kind's prefix, 32 lowercase base32 characters and a 7-character CRC-32 checksum (the
 * format of personal access tokens, spec §2.3, with another prefix). Store only its digest
 * (`hashAccessToken`), except for the client id, which is public.
 *
 * @param kind - What the value is for.
 * @param randomBytes - At least 20 bytes from a CSPRNG.
 * @returns `ok(value)` (43 characters), or `err` for missing entropy.
 * @example
 * ```ts
 * generateOAuthSecret('refresh_token', new Uint8Array(20)); // ok('gar_aaaa…')
 * generateOAuthSecret('refresh_token', new Uint8Array(4));  // err({ code: 'insufficient_entropy', required: 20, received: 4 })
 * ```
 */
export function generateOAuthSecret(kind: OAuthSecretKind, randomBytes: Uint8Array): Result<string, OAuthSecretError> {
  const known = readKind(kind);
  if (known === null) return err({ code: 'invalid_input', field: 'kind' });
  return generateAccessToken(randomBytes)
    .map((token) => prefixOf(known) + token.slice(ACCESS_TOKEN_PREFIX.length))
    .mapErr(
      (e): OAuthSecretError =>
        match(e)
          .returnType<OAuthSecretError>()
          .with({ code: 'invalid_input' }, () => ({ code: 'invalid_input', field: 'randomBytes' }))
          .with({ code: 'insufficient_entropy' }, (x) => ({
            code: 'insufficient_entropy',
            required: x.required,
            received: x.received,
          }))
          .exhaustive(),
    );
}

/**
 * Checks the shape and checksum of a presented value of the given kind, so a mistyped, truncated
 * or foreign value is rejected before any digest or lookup.
 *
 * @param kind - What the value should be.
 * @param secret - The value as presented.
 * @returns `ok(secret)` unchanged when well formed, else `err`.
 * @example
 * ```ts
 * parseOAuthSecret('refresh_token', generateOAuthSecret('refresh_token', bytes)._unsafeUnwrap()); // ok('gar_…')
 * parseOAuthSecret('refresh_token', 'gao_…'); // err({ code: 'bad_prefix', expected: 'gar_' })
 * ```
 */
export function parseOAuthSecret(kind: OAuthSecretKind, secret: string): Result<string, OAuthSecretError> {
  const known = readKind(kind);
  if (known === null) return err({ code: 'invalid_input', field: 'kind' });
  const raw: unknown = secret;
  if (typeof raw !== 'string') return err({ code: 'invalid_input', field: 'secret' });
  const prefix = prefixOf(known);
  if (!raw.startsWith(prefix)) return err({ code: 'bad_prefix', expected: prefix });
  return parseAccessToken(ACCESS_TOKEN_PREFIX + raw.slice(prefix.length))
    .map(() => raw)
    .mapErr((): OAuthSecretError => ({ code: 'malformed' }));
}
