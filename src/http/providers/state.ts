/**
 * The `state` of a sign-in flow: what the login route remembers until the provider sends the browser back.
 *
 * @module
 */
import { createHash } from 'node:crypto';

/**
 * What a login route stores under its `state` value until the callback takes it (once).
 *
 * @example
 * ```ts
 * const payload: StatePayload = { providerIndex: 0, returnTo: '/', codeVerifier: 'v', nonce: null, samlRequest: false };
 * ```
 */
export interface StatePayload {
  /** The index of the provider in `createProviderRoutes`' `providers`. */
  readonly providerIndex: number;
  /** Where to go after sign-in, a path on this site. */
  readonly returnTo: string;
  /** The PKCE code verifier, or `null` when the provider does not support PKCE. */
  readonly codeVerifier: string | null;
  /** The OpenID Connect nonce, or `null`. */
  readonly nonce: string | null;
  /** Whether this is a SAML flow (the state travels as `RelayState`). */
  readonly samlRequest: boolean;
}

/**
 * Where flows keep their state. `take` returns a value at most once (single use) and never after its TTL.
 *
 * @example
 * ```ts
 * const store: StateStore = createMemoryStateStore(() => Date.now());
 * ```
 */
export interface StateStore {
  /** Stores `value` under `key` for `ttlMs` milliseconds. */
  put(key: string, value: StatePayload, ttlMs: number): void;
  /** Removes and returns the value under `key`, or `null` when absent, taken or expired. */
  take(key: string): StatePayload | null;
}

/**
 * An in-memory {@link StateStore}. Expired entries are dropped when new ones are put.
 *
 * @param now - The clock, milliseconds since the epoch.
 * @param maxEntries - At most this many pending flows are kept; the oldest go first (default 10 000).
 * @returns The store.
 * @example
 * ```ts
 * const states = createMemoryStateStore(() => Date.now());
 * states.put('abc', payload, 600_000);
 * states.take('abc'); // payload
 * states.take('abc'); // null
 * ```
 */
export function createMemoryStateStore(now: () => number, maxEntries = 10_000): StateStore {
  const entries = new Map<string, { readonly value: StatePayload; readonly expiresAt: number }>();
  return {
    put(key, value, ttlMs) {
      const t = now();
      for (const [k, entry] of entries) if (entry.expiresAt <= t) entries.delete(k);
      while (entries.size >= maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done === true) break;
        entries.delete(oldest.value);
      }
      entries.set(key, { value, expiresAt: t + ttlMs });
    },
    take(key) {
      const entry = entries.get(key);
      if (entry === undefined) return null;
      entries.delete(key);
      return entry.expiresAt > now() ? entry.value : null;
    },
  };
}

/**
 * Base64url without padding.
 *
 * @param bytes - Bytes.
 * @returns The text.
 * @internal
 */
export function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/**
 * The PKCE S256 challenge of a verifier (RFC 7636 §4.2).
 *
 * @param verifier - The code verifier.
 * @returns `BASE64URL(SHA256(ASCII(verifier)))`.
 * @internal
 */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/**
 * Keeps `returnTo` only when it is a path on this site (no scheme, no `//` or `/\` host), else `/`.
 *
 * @param value - The requested return path.
 * @returns A safe path.
 * @internal
 */
export function safeReturnTo(value: string | null): string {
  if (value === null || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  // only printable ASCII: a browser sends paths percent-encoded, and Node refuses other characters in `Location`
  if (/[^\u0020-\u007e]|\\/.test(value) || value.length > 2048) return '/';
  return value;
}
