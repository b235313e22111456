/**
 * The `state` of a sign-in flow: what the login route remembers until the provider sends the browser back.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { createPendingTable, type PendingSignInLimits } from './pending.js';

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
 * Pending states are bounded per client network by the core's `decidePendingSignIn`: a client at its bound has its
 * own oldest state dropped; when the whole store is full the network holding the most states loses its oldest,
 * provided it holds more than the new state's client then will, and otherwise a new state is refused (`put`
 * returns `false`).
 *
 * @example
 * ```ts
 * const store: StateStore = createMemoryStateStore(() => Date.now());
 * ```
 */
export interface StateStore {
  /**
   * Stores `value` under `key` for `ttlMs` milliseconds on behalf of `client` (its network, the core's
   * `clientNetwork`); returns `false`, storing nothing, when the store is full and no network holds more than
   * this client would.
   */
  put(key: string, value: StatePayload, ttlMs: number, client: string): boolean;
  /** Removes and returns the value under `key`, or `null` when absent, taken or expired. */
  take(key: string): StatePayload | null;
}

/**
 * An in-memory {@link StateStore}. Expired entries are swept from the front when new ones are put.
 *
 * @param now - The clock, milliseconds since the epoch.
 * @param limits - Pending flows per client network (default 100; past it the client's own oldest goes) and in
 *   all (default 100,000; past it the heaviest network's oldest goes for a client holding fewer, else refused).
 * @returns The store.
 * @example
 * ```ts
 * const states = createMemoryStateStore(() => Date.now());
 * states.put('abc', payload, 600_000, '203.0.113.7'); // true
 * states.take('abc'); // payload
 * states.take('abc'); // null
 * ```
 */
export function createMemoryStateStore(now: () => number, limits: PendingSignInLimits = {}): StateStore {
  const table = createPendingTable<StatePayload>(now, limits);
  return {
    put: (key, value, ttlMs, client) => table.put(key, value, ttlMs, client),
    take: (key) => table.take(key),
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
