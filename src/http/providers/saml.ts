/**
 * The SAML 2.0 service provider (spec §5.2), built on `@node-saml/node-saml`: the authentication request and
 * the assertion consumer service with signature, audience, recipient and `InResponseTo` checks.
 *
 * @module
 */
import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';
import type { SamlProvider } from '../../core/auth-providers.js';
import type { ExternalIdentity } from '../../core/external-identity.js';

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
  /** The URL that sends the browser to the identity provider with an `AuthnRequest` and `RelayState`. */
  authorizationURL(relayState: string): Promise<string | null>;
  /** Checks a posted `SAMLResponse` and returns the identity, or `null` when any check fails. */
  consume(samlResponse: string): Promise<ExternalIdentity | null>;
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
  /** At most this many pending `AuthnRequest` IDs are kept; the oldest go first (default 10 000). */
  readonly maxPendingRequests?: number;
}

const EMAIL_ATTRIBUTES = [
  'email',
  'mail',
  'urn:oid:0.9.2342.19200300.100.1.3',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
];
const USERNAME_ATTRIBUTES = ['username', 'login', 'uid', 'urn:oid:0.9.2342.19200300.100.1.1'];
const EMAIL_NAME_ID = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

function requestCache(now: () => number, ttlMs: number, maxEntries: number): CacheProvider {
  // Insertion order is creation order: expired entries are at the front, and past `maxEntries` the oldest
  // pending request goes first (every unauthenticated hit of the login route adds one).
  const entries = new Map<string, { readonly value: string; readonly createdAt: number }>();
  const sweep = (): void => {
    const t = now();
    for (const [key, entry] of entries) {
      if (entry.createdAt + ttlMs > t) break;
      entries.delete(key);
    }
  };
  return {
    saveAsync: (key, value) => {
      sweep();
      if (entries.has(key)) return Promise.resolve(null);
      while (entries.size >= maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done === true) break;
        entries.delete(oldest.value);
      }
      const item = { value, createdAt: now() };
      entries.set(key, item);
      return Promise.resolve(item);
    },
    getAsync: (key) => {
      sweep();
      const entry = entries.get(key);
      return Promise.resolve(entry === undefined || entry.createdAt + ttlMs <= now() ? null : entry.value);
    },
    removeAsync: (key) => {
      if (key === null) return Promise.resolve(null);
      const entry = entries.get(key);
      entries.delete(key);
      return Promise.resolve(entry?.value ?? null);
    },
  };
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
 * answer a request this service provider made (`InResponseTo`, single use).
 *
 * @param provider - The provider (entry point and identity provider certificate).
 * @param options - ACS URL, entity ID and clock.
 * @returns The service provider.
 * @example
 * ```ts
 * const sp = createSamlServiceProvider(provider, { acsURL, entityID, now: Date.now });
 * const identity = await sp.consume(form.get('SAMLResponse') ?? '');
 * ```
 */
export function createSamlServiceProvider(provider: SamlProvider, options: SamlServiceProviderOptions): SamlServiceProvider {
  const saml = new SAML({
    callbackUrl: options.acsURL,
    entryPoint: provider.entryPoint,
    issuer: options.entityID,
    audience: options.entityID,
    idpCert: provider.idpCertificate,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: options.requestTtlMs ?? 600_000,
    cacheProvider: requestCache(options.now, options.requestTtlMs ?? 600_000, options.maxPendingRequests ?? 10_000),
    acceptedClockSkewMs: 60_000,
  });
  return {
    entityID: options.entityID,
    async authorizationURL(relayState) {
      try {
        return await saml.getAuthorizeUrlAsync(relayState, undefined, {});
      } catch {
        return null;
      }
    },
    async consume(samlResponse) {
      let profile: Profile | null;
      try {
        ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: samlResponse }));
      } catch {
        return null;
      }
      if (profile === null || !recipientsMatch(profile, options.acsURL)) return null;
      const nameID = typeof profile.nameID === 'string' ? profile.nameID.trim() : '';
      if (nameID === '') return null;
      const email = attribute(profile, EMAIL_ATTRIBUTES) ?? (profile.nameIDFormat === EMAIL_NAME_ID ? nameID : null);
      return {
        accountId: nameID,
        username: attribute(profile, USERNAME_ATTRIBUTES),
        // The identity provider is the administrator's own directory: the addresses it asserts are trusted.
        emails: email === null ? [] : [{ address: email, verified: true }],
      };
    },
  };
}
