/**
 * The SAML 2.0 service provider (spec §5.2), built on `@node-saml/node-saml`: the authentication request and
 * the assertion consumer service with signature, audience, recipient and `InResponseTo` checks, and the
 * binding of each flow to its `RelayState` and to the browser that started it.
 *
 * @module
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type * as NodeSaml from '@node-saml/node-saml';
import type { CacheProvider, Profile, SamlConfig } from '@node-saml/node-saml';
import { ok } from 'neverthrow';
import type { SamlProvider, ExternalIdentity } from 'gatehouse-auth';
import { pendingKey, putPending, type PendingSignInLimits } from './pending.js';
import type { ProviderStore } from './provider-store.js';
import { jsonObject } from '../kernel/json-object.js';

/**
 * What ties a SAML flow together: the `RelayState` it was started with and, when the flow is bound to the
 * browser, the digest of the random value of that browser's binding cookie.
 *
 * @example
 * ```ts
 * const flow: SamlFlow = { relayState: 'r4nd0m', browserDigest: samlBindingDigest(cookieValue) };
 * ```
 */
export interface SamlFlow {
  /** The `RelayState` sent with the `AuthnRequest` (and posted back with the response). */
  readonly relayState: string;
  /**
   * The SHA-256 digest (hex) of the browser binding cookie's value ({@link samlBindingDigest}), or `null`: at
   * the start, when the flow is not bound (an http `externalURL`); at the ACS, when the browser sent no cookie.
   */
  readonly browserDigest: string | null;
}

/**
 * What {@link SamlServiceProvider.consume} found.
 *
 * @example
 * ```ts
 * const r: SamlConsumeResult = { kind: 'not_this_browser' };
 * ```
 */
export type SamlConsumeResult =
  /** Every check passed. */
  | { readonly kind: 'identity'; readonly identity: ExternalIdentity }
  /** The flow is bound to a browser and the request's binding cookie is missing or another one (login CSRF). */
  | { readonly kind: 'not_this_browser' }
  /**
   * Any other failure: no pending request for the `RelayState`, a response that answers another request
   * (`InResponseTo`), a bad signature, audience or recipient, an expired or replayed response.
   */
  | { readonly kind: 'rejected' };

/**
 * A service provider for one `saml` provider.
 *
 * @example
 * ```ts
 * const sp = createSamlServiceProvider(provider, { acsURL, entityID, now: Date.now });
 * ```
 */
export interface SamlServiceProvider {
  /** This service provider's entity ID (the audience the identity provider must name). */
  readonly entityID: string;
  /**
   * The URL that sends the browser to the identity provider with an `AuthnRequest` and `flow.relayState`; the
   * request's ID is remembered with the flow (single use, until it expires), counted against `client` (its
   * network, the core's `clientNetwork`).
   */
  authorizationURL(flow: SamlFlow, client: string): Promise<SamlAuthorization>;
  /**
   * Checks a posted `SAMLResponse` against the flow its `RelayState` started: the browser binding (when the
   * flow has one), then that the response answers exactly that flow's `AuthnRequest`, then signature,
   * audience and recipient. The flow is spent whatever the outcome.
   */
  consume(samlResponse: string, presented: SamlFlow): Promise<SamlConsumeResult>;
}

/**
 * The digest under which a browser binding cookie's value is remembered with a pending flow.
 *
 * @param cookieValue - The cookie's value.
 * @returns Lower-case hex SHA-256.
 * @example
 * ```ts
 * samlBindingDigest('abc'); // 'ba7816bf…'
 * ```
 */
export function samlBindingDigest(cookieValue: string): string {
  return pendingKey(cookieValue);
}

/**
 * Options of {@link createSamlServiceProvider}.
 *
 * @example
 * ```ts
 * const options: SamlServiceProviderOptions = {
 *   acsURL: 'https://search.example.com/.auth/saml/acs', entityID: 'https://search.example.com/.auth/saml/metadata', now: Date.now,
 * };
 * ```
 */
export interface SamlServiceProviderOptions {
  /** The assertion consumer service URL (`{externalURL}/.auth/saml/acs`). */
  readonly acsURL: string;
  /** The entity ID (`serviceProviderIssuer`, default `{externalURL}/.auth/saml/metadata`). */
  readonly entityID: string;
  /** Where pending request IDs are kept (kind `saml_request`). */
  readonly store: ProviderStore;
  /** The clock (expiry of pending request IDs). */
  readonly now: () => number;
  /** How long an `AuthnRequest` ID stays valid, in milliseconds (default 10 minutes). */
  readonly requestTtlMs?: number;
  /**
   * At most this many pending `AuthnRequest` IDs per client network; past it the client's own oldest goes
   * (default 100).
   */
  readonly maxPendingRequestsPerClient?: number;
  /**
   * At most this many pending `AuthnRequest` IDs in all; past it the oldest of the client network holding the
   * most goes for a client holding fewer, and a new request is refused otherwise (default 100,000).
   */
  readonly maxPendingRequests?: number;
}

/**
 * What {@link SamlServiceProvider.authorizationURL} gives.
 *
 * @example
 * ```ts
 * const a: SamlAuthorization = { kind: 'redirect', url: 'https://idp.example/sso?SAMLRequest=…' };
 * ```
 */
export type SamlAuthorization =
  /** Send the browser here; the request's ID is remembered with the flow. */
  | { readonly kind: 'redirect'; readonly url: string }
  /** Too many requests are pending on this server and no client network holds more than this one would: nothing was kept (answer 503). */
  | { readonly kind: 'busy' }
  /** node-saml could not build the request. */
  | { readonly kind: 'failed' };

const EMAIL_ATTRIBUTES = [
  'email',
  'mail',
  'urn:oid:0.9.2342.19200300.100.1.3',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
];
const USERNAME_ATTRIBUTES = ['username', 'login', 'uid', 'urn:oid:0.9.2342.19200300.100.1.1'];
const EMAIL_NAME_ID = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

/** What a pending `AuthnRequest` keeps (kind `saml_request`, under the digest of its flow's `RelayState`). */
interface PendingRequest {
  /** The request's ID (sent to the identity provider in clear; not a secret). */
  readonly id: string;
  /** The flow's browser digest, or `null`. */
  readonly browserDigest: string | null;
  /** The instant node-saml saved with the ID, or `null` until it did. */
  readonly saved: string | null;
}

function parsePendingRequest(text: string): PendingRequest | null {
  const value = jsonObject(text);
  if (value === null) return null;
  const id: unknown = value['id'];
  const browserDigest: unknown = value['browserDigest'];
  const saved: unknown = value['saved'];
  if (typeof id !== 'string' || !(browserDigest === null || typeof browserDigest === 'string')) return null;
  return saved === null || typeof saved === 'string' ? { id, browserDigest, saved } : null;
}

function sameDigest(expected: string, presented: string | null): boolean {
  if (presented === null) return false;
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(presented, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

function attribute(profile: Profile, names: readonly string[]): string | null {
  for (const name of names) {
    const value: unknown = profile[name];
    const first: unknown = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string' && first.trim() !== '') return first.trim();
  }
  return null;
}

// Every SubjectConfirmationData of the (signed) assertion must name our ACS URL as Recipient.
function recipientsMatch(profile: Profile, acsURL: string): boolean {
  const assertion: unknown = profile.getAssertion?.();
  const recipients: string[] = [];
  const walk = (node: unknown, depth: number): void => {
    if (depth > 12 || typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) {
      for (const child of node) walk(child, depth + 1);
      return;
    }
    for (const [key, child] of Object.entries(node)) {
      if (/(^|:)SubjectConfirmationData$/.test(key)) {
        for (const data of Array.isArray(child) ? child : [child]) {
          const attributes: unknown = typeof data === 'object' && data !== null ? Reflect.get(data, '$') : undefined;
          const recipient: unknown = typeof attributes === 'object' && attributes !== null ? Reflect.get(attributes, 'Recipient') : undefined;
          recipients.push(typeof recipient === 'string' ? recipient : '');
        }
      } else {
        walk(child, depth + 1);
      }
    }
  };
  walk(assertion, 0);
  return recipients.length > 0 && recipients.every((r) => r === acsURL);
}

/**
 * Creates the service provider of a `saml` provider. Responses must carry a signed assertion (the
 * identity provider's certificate), name this entity ID as audience and the ACS URL as recipient, and
 * answer the very request that the posted `RelayState` started (`InResponseTo`, single use); a flow started
 * with a browser digest is finished only with that browser's binding cookie.
 *
 * @param provider - The provider (entry point and identity provider certificate).
 * @param options - ACS URL, entity ID and clock.
 * @returns The service provider.
 * @example
 * ```ts
 * const sp = createSamlServiceProvider(provider, { acsURL, entityID, now: Date.now });
 * const location = await sp.authorizationURL({ relayState, browserDigest: samlBindingDigest(cookieValue) }, '203.0.113.7');
 * // … later, at the ACS:
 * const result = await sp.consume(form.get('SAMLResponse') ?? '', { relayState, browserDigest: samlBindingDigest(cookie) });
 * // { kind: 'identity', identity } | { kind: 'not_this_browser' } | { kind: 'rejected' }
 * ```
 */
export function createSamlServiceProvider(provider: SamlProvider, options: SamlServiceProviderOptions): SamlServiceProvider {
  const ttlMs = options.requestTtlMs ?? 600_000;
  const { store, now } = options;
  const limits: PendingSignInLimits = {
    ...(options.maxPendingRequestsPerClient === undefined ? {} : { maxPerClient: options.maxPendingRequestsPerClient }),
    ...(options.maxPendingRequests === undefined ? {} : { maxTotal: options.maxPendingRequests }),
  };
  const config = (saml: typeof NodeSaml, cacheProvider: CacheProvider, generateUniqueId?: () => string): SamlConfig => ({
    callbackUrl: options.acsURL,
    entryPoint: provider.entryPoint,
    issuer: options.entityID,
    audience: options.entityID,
    idpCert: provider.idpCertificate,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    validateInResponseTo: saml.ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: ttlMs,
    cacheProvider,
    acceptedClockSkewMs: 60_000,
    ...(generateUniqueId === undefined ? {} : { generateUniqueId }),
  });
  const noCache: CacheProvider = {
    saveAsync: () => Promise.resolve(null),
    getAsync: () => Promise.resolve(null),
    removeAsync: () => Promise.resolve(null),
  };
  // @node-saml/node-saml is loaded on first use, so a server without a SAML provider never loads it. Built once so
  // that a configuration node-saml refuses makes every flow of this provider fail alike.
  const ready: Promise<typeof NodeSaml | null> = import('@node-saml/node-saml').then(
    (saml) => {
      try {
        new saml.SAML(config(saml, noCache));
        return saml;
      } catch {
        return null;
      }
    },
    () => null,
  );
  // node-saml saves the request's ID while building the request: only the ID reserved for this flow is kept.
  const savingCache = (key: string, id: string, group: string, expiresAt: number, browserDigest: string | null): CacheProvider => ({
    saveAsync: async (savedId, value) => {
      if (savedId !== id) return null;
      const request: PendingRequest = { id, browserDigest, saved: value };
      // only while the reservation is still pending (a flood may have dropped it meanwhile)
      const kept = await store.transaction(async (tx) => {
        const reserved = await tx.ephemeral.get('saml_request', key, now());
        const current = reserved === null ? null : parsePendingRequest(reserved.value);
        if (current === null || current.id !== id || current.saved !== null) return ok(false);
        await tx.ephemeral.put({ kind: 'saml_request', key, group, value: JSON.stringify(request), expiresAt });
        return ok(true);
      });
      return kept.isOk() && kept.value ? { value, createdAt: now() } : null;
    },
    getAsync: () => Promise.resolve(null),
    removeAsync: () => Promise.resolve(null),
  });
  return {
    entityID: options.entityID,
    async authorizationURL(flow, client) {
      // One instance per request, so that the request's ID is known here and remembered with the flow.
      const id = `_${randomBytes(20).toString('hex')}`;
      const key = pendingKey(flow.relayState);
      const at = now();
      const reserved: PendingRequest = { id, browserDigest: flow.browserDigest, saved: null };
      const entry = { kind: 'saml_request', key, group: client, value: JSON.stringify(reserved), expiresAt: at + ttlMs } as const;
      if ((await putPending(store, entry, limits, at)).isErr()) return { kind: 'busy' };
      const saml = await ready;
      if (saml === null) {
        await store.ephemeral.delete('saml_request', key, now());
        return { kind: 'failed' };
      }
      try {
        const cache = savingCache(key, id, client, entry.expiresAt, flow.browserDigest);
        const url = await new saml.SAML(config(saml, cache, () => id)).getAuthorizeUrlAsync(flow.relayState, undefined, {});
        return { kind: 'redirect', url };
      } catch {
        await store.ephemeral.delete('saml_request', key, now());
        return { kind: 'failed' };
      }
    },
    async consume(samlResponse, presented) {
      const saml = await ready;
      // single use, whatever the outcome: the flow's request is taken before anything is checked
      const taken = await store.ephemeral.take('saml_request', pendingKey(presented.relayState), now());
      const claimed = taken === null ? null : parsePendingRequest(taken.value);
      if (saml === null || claimed === null) return { kind: 'rejected' };
      // Login CSRF: a flow bound to a browser is finished only by that browser (its binding cookie).
      if (claimed.browserDigest !== null && !sameDigest(claimed.browserDigest, presented.browserDigest)) {
        return { kind: 'not_this_browser' };
      }
      // The response must answer this flow's AuthnRequest and no other pending one: node-saml sees only it.
      const onlyThisRequest: CacheProvider = {
        saveAsync: () => Promise.resolve(null),
        getAsync: (key) => Promise.resolve(key === claimed.id ? claimed.saved : null),
        removeAsync: (key) => Promise.resolve(key === claimed.id ? claimed.saved : null),
      };
      let profile: Profile | null;
      try {
        ({ profile } = await new saml.SAML(config(saml, onlyThisRequest)).validatePostResponseAsync({ SAMLResponse: samlResponse }));
      } catch {
        return { kind: 'rejected' };
      }
      if (profile === null || !recipientsMatch(profile, options.acsURL)) return { kind: 'rejected' };
      const nameID = typeof profile.nameID === 'string' ? profile.nameID.trim() : '';
      if (nameID === '') return { kind: 'rejected' };
      const email = attribute(profile, EMAIL_ATTRIBUTES) ?? (profile.nameIDFormat === EMAIL_NAME_ID ? nameID : null);
      return {
        kind: 'identity',
        identity: {
          accountId: nameID,
          username: attribute(profile, USERNAME_ATTRIBUTES),
          // The identity provider is the administrator's own directory: the addresses it asserts are trusted.
          emails: email === null ? [] : [{ address: email, verified: true }],
        },
      };
    },
  };
}
