/**
 * The SAML 2.0 service provider (spec §5.2), built on `@node-saml/node-saml`: the authentication request and
 * the assertion consumer service with signature, audience, recipient and `InResponseTo` checks, and the
 * binding of each flow to its `RelayState` and to the browser that started it.
 *
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type * as NodeSaml from '@node-saml/node-saml';
import type { CacheProvider, Profile, SamlConfig } from '@node-saml/node-saml';
import type { SamlProvider } from '../../core/auth-providers.js';
import type { ExternalIdentity } from '../../core/external-identity.js';
import { createPendingTable, type PendingSignInLimits } from './pending.js';
import { loadNodeSaml } from '../optional-peers.js';

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
  return createHash('sha256').update(cookieValue, 'utf8').digest('hex');
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

interface PendingRequests {
  /** The cache node-saml keeps `AuthnRequest` IDs in (it only fills in IDs reserved here). */
  readonly cache: CacheProvider;
  /** Reserves a request ID for a flow on behalf of `client`; `false` (nothing kept) when the table is full. */
  reserve(id: string, flow: SamlFlow, client: string): boolean;
  /** Takes (once) the request ID and flow started with `relayState`, or `null`. */
  claim(relayState: string): { readonly id: string; readonly flow: SamlFlow } | null;
  /** Forgets a request ID. */
  drop(id: string): void;
}

interface PendingRequest {
  /** The instant node-saml saved with the ID, or `null` until it did. */
  value: string | null;
  readonly flow: SamlFlow;
}

function pendingRequests(now: () => number, ttlMs: number, limits: PendingSignInLimits): PendingRequests {
  // Bounded per client network (every unauthenticated hit of the login route adds one): past its bound a client's
  // own oldest request goes; a full table drops the heaviest network's oldest for a lighter client, else refuses.
  const byRelayState = new Map<string, string>();
  const forget = (id: string, request: PendingRequest): void => {
    if (byRelayState.get(request.flow.relayState) === id) byRelayState.delete(request.flow.relayState);
  };
  const table = createPendingTable<PendingRequest>(now, limits, forget);
  const drop = (id: string): void => {
    const request = table.get(id);
    if (request !== null) forget(id, request);
    table.delete(id);
  };
  const cache: CacheProvider = {
    saveAsync: (key, value) => {
      const request = table.get(key);
      if (request === null || request.value !== null) return Promise.resolve(null);
      request.value = value;
      return Promise.resolve({ value, createdAt: now() });
    },
    getAsync: (key) => Promise.resolve(table.get(key)?.value ?? null),
    removeAsync: (key) => {
      if (key === null) return Promise.resolve(null);
      const value = table.get(key)?.value ?? null;
      drop(key);
      return Promise.resolve(value);
    },
  };
  return {
    cache,
    reserve(id, flow, client) {
      if (!table.put(id, { value: null, flow }, ttlMs, client)) return false;
      byRelayState.set(flow.relayState, id);
      return true;
    },
    claim(relayState) {
      const id = byRelayState.get(relayState);
      if (id === undefined) return null;
      byRelayState.delete(relayState);
      const request = table.get(id);
      return request === null ? null : { id, flow: request.flow };
    },
    drop,
  };
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
  const pending = pendingRequests(options.now, ttlMs, {
    ...(options.maxPendingRequestsPerClient === undefined ? {} : { maxPerClient: options.maxPendingRequestsPerClient }),
    ...(options.maxPendingRequests === undefined ? {} : { maxTotal: options.maxPendingRequests }),
  });
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
  // @node-saml/node-saml is an optional peer, loaded on first use. Built once so that a configuration node-saml
  // refuses makes every flow of this provider fail alike (a missing package is reported at start by
  // checkOptionalPeers).
  const ready: Promise<typeof NodeSaml | null> = loadNodeSaml().then(
    (saml) => {
      try {
        new saml.SAML(config(saml, pending.cache));
        return saml;
      } catch {
        return null;
      }
    },
    () => null,
  );
  return {
    entityID: options.entityID,
    async authorizationURL(flow, client) {
      // One instance per request, so that the request's ID is known here and remembered with the flow.
      const id = `_${randomBytes(20).toString('hex')}`;
      if (!pending.reserve(id, flow, client)) return { kind: 'busy' };
      const saml = await ready;
      if (saml === null) {
        pending.drop(id);
        return { kind: 'failed' };
      }
      try {
        const url = await new saml.SAML(config(saml, pending.cache, () => id)).getAuthorizeUrlAsync(flow.relayState, undefined, {});
        return { kind: 'redirect', url };
      } catch {
        pending.drop(id);
        return { kind: 'failed' };
      }
    },
    async consume(samlResponse, presented) {
      const saml = await ready;
      const claimed = pending.claim(presented.relayState);
      if (saml === null) {
        if (claimed !== null) pending.drop(claimed.id);
        return { kind: 'rejected' };
      }
      if (claimed === null) return { kind: 'rejected' };
      try {
        // Login CSRF: a flow bound to a browser is finished only by that browser (its binding cookie).
        if (claimed.flow.browserDigest !== null && !sameDigest(claimed.flow.browserDigest, presented.browserDigest)) {
          return { kind: 'not_this_browser' };
        }
        // The response must answer this flow's AuthnRequest and no other pending one: node-saml sees only it.
        const onlyThisRequest: CacheProvider = {
          saveAsync: () => Promise.resolve(null),
          getAsync: (key) => (key === claimed.id ? pending.cache.getAsync(key) : Promise.resolve(null)),
          removeAsync: (key) => (key === claimed.id ? pending.cache.removeAsync(key) : Promise.resolve(null)),
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
      } finally {
        // single use, whatever the outcome
        pending.drop(claimed.id);
      }
    },
  };
}
