/**
 * The `state` of a sign-in flow: what the login route remembers in the store's ephemeral part (kind
 * `flow_state`, under the digest of the `state` value, counted against the client network) until the provider
 * sends the browser back, and takes once.
 *
 * @module
 */
import type { Result } from 'neverthrow';
import { pendingKey, putPending, type PendingRefused, type PendingSignInLimits } from './pending.js';
import { sha256 } from '../kernel/digest.js';
import type { ProviderStore } from './provider-store.js';
import { jsonObject } from '../kernel/json-object.js';

/**
 * What a login route stores under its `state` value until the callback takes it (once).
 *
 * @example
 * ```ts
 * const payload: StatePayload = { providerIndex: 0, returnTo: '/', codeVerifier: 'v', nonce: null, samlRequest: false };
 * ```
 */
export interface StatePayload {
  /** The index of the provider in the configured `auth.providers`. */
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

/** Where and how long flow state is kept. */
export interface FlowStateOptions {
  /** How long the flow may take, in milliseconds. */
  readonly ttlMs: number;
  /** The client network starting it (the core's `clientNetwork`). */
  readonly client: string;
  /** The per-network and total bounds. */
  readonly limits: PendingSignInLimits;
  /** The current time, milliseconds since the epoch. */
  readonly now: number;
}

/**
 * Remembers a flow's payload under its `state` value, within the pending bounds.
 *
 * @param store - The store.
 * @param state - The random `state` value (kept only as its digest).
 * @param payload - What the callback needs.
 * @param options - TTL, client network, bounds and time.
 * @returns `ok` when stored, `err({ code: 'too_many_pending' })` when refused.
 * @example
 * ```ts
 * await startFlowState(store, state, payload, { ttlMs: 600_000, client: '203.0.113.7', limits: {}, now: Date.now() });
 * ```
 */
export function startFlowState(
  store: ProviderStore,
  state: string,
  payload: StatePayload,
  options: FlowStateOptions,
): Promise<Result<void, PendingRefused>> {
  return putPending(
    store,
    { kind: 'flow_state', key: pendingKey(state), group: options.client, value: JSON.stringify(payload), expiresAt: options.now + options.ttlMs },
    options.limits,
    options.now,
  );
}

/**
 * Takes (once) the payload remembered under a `state` value: `null` when absent, taken, expired or unreadable.
 *
 * @param store - The store.
 * @param state - The `state` value the browser presented.
 * @param now - The current time.
 * @returns The payload, or `null`.
 * @example
 * ```ts
 * await takeFlowState(store, state, Date.now()); // payload, then null
 * ```
 */
export async function takeFlowState(store: ProviderStore, state: string, now: number): Promise<StatePayload | null> {
  const entry = await store.ephemeral.take('flow_state', pendingKey(state), now);
  return entry === null ? null : parseStatePayload(entry.value);
}

const nullableString = (value: unknown): value is string | null => value === null || typeof value === 'string';

/**
 * Reads a stored payload back (the store's text is foreign input: every field is checked).
 *
 * @param text - The stored JSON.
 * @returns The payload, or `null` when it is not one.
 * @example
 * ```ts
 * parseStatePayload('{"providerIndex":0,"returnTo":"/","codeVerifier":null,"nonce":null,"samlRequest":false}');
 * ```
 */
export function parseStatePayload(text: string): StatePayload | null {
  const value = jsonObject(text);
  if (value === null) return null;
  const providerIndex: unknown = value['providerIndex'];
  const returnTo: unknown = value['returnTo'];
  const codeVerifier: unknown = value['codeVerifier'];
  const nonce: unknown = value['nonce'];
  const samlRequest: unknown = value['samlRequest'];
  if (typeof providerIndex !== 'number' || !Number.isSafeInteger(providerIndex) || typeof returnTo !== 'string') return null;
  if (!nullableString(codeVerifier) || !nullableString(nonce) || typeof samlRequest !== 'boolean') return null;
  return { providerIndex, returnTo, codeVerifier, nonce, samlRequest };
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
  // the verifier is ASCII (RFC 7636 §4.1), so its UTF-8 bytes are its ASCII bytes
  return Buffer.from(sha256(new TextEncoder().encode(verifier))).toString('base64url');
}
