/**
 * The checks of `gatehouse doctor`, as pure functions over facts fetched beforehand: which URLs and certificates a
 * site configuration asks to probe ({@link planProbes}), and what is wrong given what the probes found
 * ({@link diagnose}): OpenID Connect discovery (spec §5.3 openidconnect rules 2 and 3), code host URLs, SAML
 * certificates, `externalURL` against how the server is reached, and clock skew against each provider's `Date`.
 * The configuration itself is read by the core's `parseSiteConfiguration`, whose problems (such as an `http-header`
 * provider without `trustedProxies`) are findings too.
 *
 * @module
 */
import type { AuthProvider, SiteConfiguration } from 'gatehouse-auth';

/** One thing wrong, at the JSON path of the setting it concerns. */
export interface Finding {
  /** Such as `auth.providers[2].issuer`; `externalURL`; the empty string for the whole configuration. */
  readonly path: string;
  /** A sentence a person can act on. */
  readonly message: string;
}

/** What one HTTP probe found. */
export type HttpFact =
  /** The server answered: its status, its `Date` header (ms since the epoch, `null` when absent or unreadable) and its JSON body (`undefined` when not JSON). */
  | { readonly kind: 'answered'; readonly status: number; readonly date: number | null; readonly json: unknown }
  /** No answer: refused, timed out, a TLS or DNS failure. */
  | { readonly kind: 'unreachable'; readonly reason: string };

/** What reading one configured certificate found. */
export type CertificateFact =
  | { readonly kind: 'parsed'; readonly validFrom: number; readonly validTo: number; readonly subject: string }
  | { readonly kind: 'unparsable' };

/** The probes a configuration asks for, by provider index. */
export interface DoctorPlan {
  /** Each `openidconnect` provider's discovery document URL (spec §5.3 openidconnect rule 3). */
  readonly discovery: readonly { readonly index: number; readonly url: string }[];
  /** Each code host provider's base URL. */
  readonly codeHosts: readonly { readonly index: number; readonly url: string }[];
  /** Each SAML provider's configured IdP certificate. */
  readonly certificates: readonly { readonly index: number; readonly text: string }[];
}

/** Everything the probes found, with the clock reading taken when they ran. */
export interface DoctorFacts {
  /** Now, ms since the epoch. */
  readonly now: number;
  /** Discovery answers by provider index. */
  readonly discovery: ReadonlyMap<number, HttpFact>;
  /** Code host answers by provider index. */
  readonly codeHosts: ReadonlyMap<number, HttpFact>;
  /** Certificates by provider index. */
  readonly certificates: ReadonlyMap<number, CertificateFact>;
  /** The running server, when one was named: its base URL and its OAuth authorization server metadata answer. */
  readonly server?: { readonly endpoint: string; readonly metadata: HttpFact };
}

/** The greatest clock difference with a provider's `Date` not reported, in ms. */
export const MAX_CLOCK_SKEW_MS = 60_000;
/** A certificate that expires sooner than this is reported, in ms (30 days). */
export const CERTIFICATE_WARNING_MS: number = 30 * 24 * 3600 * 1000;

const providerPath = (index: number): string => `auth.providers[${index}]`;

function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/u, '')}/.well-known/openid-configuration`;
}

function urlOf(provider: AuthProvider): string | null {
  switch (provider.type) {
    case 'hosta':
    case 'hostb':
    case 'hostcserver':
    case 'reviewhost':
      return provider.url === '' ? null : provider.url;
    case 'hostccloud':
      return provider.url ?? null;
    default:
      return null;
  }
}

/**
 * The probes a valid configuration asks for.
 *
 * @param config - The parsed site configuration.
 * @returns The URLs to fetch and the certificates to read, by provider index.
 * @example
 * ```ts
 * planProbes(config).discovery; // [{ index: 0, url: 'https://idp.example.com/.well-known/openid-configuration' }]
 * ```
 */
export function planProbes(config: SiteConfiguration): DoctorPlan {
  const discovery: { index: number; url: string }[] = [];
  const codeHosts: { index: number; url: string }[] = [];
  const certificates: { index: number; text: string }[] = [];
  config.authProviders.forEach((provider, index) => {
    if (provider.type === 'openidconnect') discovery.push({ index, url: discoveryUrl(provider.issuer) });
    else if (provider.type === 'saml') certificates.push({ index, text: provider.idpCertificate });
    else {
      const url = urlOf(provider);
      if (url !== null) codeHosts.push({ index, url });
    }
  });
  return { discovery, codeHosts, certificates };
}

/** Whether a URL is HTTPS, or HTTP to a loopback host (a provider on the same machine, as in development). */
function isHttpsOrLoopback(text: string): boolean {
  try {
    const url = new URL(text);
    if (url.protocol === 'https:') return true;
    return url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/u.test(url.hostname));
  } catch {
    return false;
  }
}

const ENDPOINT_KEYS = ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'jwks_uri'] as const;

function field(record: unknown, key: string): unknown {
  return typeof record === 'object' && record !== null && !Array.isArray(record) ? Object.getOwnPropertyDescriptor(record, key)?.value : undefined;
}

function unreachable(path: string, what: string, fact: HttpFact | undefined): Finding | null {
  if (fact === undefined) return { path, message: `${what} was not checked.` };
  if (fact.kind === 'unreachable') return { path, message: `${what} does not answer (${fact.reason}).` };
  return null;
}

function clockSkew(path: string, fact: HttpFact | undefined, now: number): Finding | null {
  if (fact?.kind !== 'answered' || fact.date === null) return null;
  const skew = now - fact.date;
  if (Math.abs(skew) <= MAX_CLOCK_SKEW_MS) return null;
  const seconds = Math.round(Math.abs(skew) / 1000);
  return {
    path,
    message: `this machine's clock is ${seconds} s ${skew > 0 ? 'ahead of' : 'behind'} the provider's (its Date header); more than ${MAX_CLOCK_SKEW_MS / 1000} s breaks token and assertion lifetimes: synchronise the clocks (NTP).`,
  };
}

function checkOpenIdConnect(index: number, issuer: string, fact: HttpFact | undefined, now: number): Finding[] {
  const path = `${providerPath(index)}.issuer`;
  const none = unreachable(path, `the discovery document ${discoveryUrl(issuer)}`, fact);
  if (none !== null || fact === undefined || fact.kind !== 'answered') return none === null ? [] : [none];
  const findings: Finding[] = [];
  if (fact.status !== 200 || fact.json === undefined) {
    return [{ path, message: `the discovery document ${discoveryUrl(issuer)} answered HTTP ${fact.status}${fact.json === undefined ? ' without JSON' : ''} (spec §5.3 openidconnect rule 3).` }];
  }
  const named = field(fact.json, 'issuer');
  if (named !== issuer) {
    findings.push({
      path,
      message: `the discovery document names the issuer ${JSON.stringify(named)}, not ${JSON.stringify(issuer)}: set "issuer" to exactly the provider's issuer, or sign-in fails on the ID token's iss.`,
    });
  }
  for (const key of ENDPOINT_KEYS) {
    const value = field(fact.json, key);
    if (value === undefined && key === 'userinfo_endpoint') continue;
    if (typeof value !== 'string') findings.push({ path, message: `the discovery document has no ${key}.` });
    else if (!isHttpsOrLoopback(value)) findings.push({ path, message: `the discovery document's ${key} ${value} is not HTTPS.` });
  }
  const skew = clockSkew(providerPath(index), fact, now);
  if (skew !== null) findings.push(skew);
  return findings;
}

function checkCodeHost(index: number, url: string, fact: HttpFact | undefined, now: number): Finding[] {
  const path = `${providerPath(index)}.url`;
  const none = unreachable(path, `the code host ${url}`, fact);
  if (none !== null) return [none];
  const findings: Finding[] = [];
  if (fact?.kind === 'answered' && fact.status >= 500) findings.push({ path, message: `the code host ${url} answered HTTP ${fact.status}.` });
  const skew = clockSkew(providerPath(index), fact, now);
  if (skew !== null) findings.push(skew);
  return findings;
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function checkCertificate(index: number, fact: CertificateFact | undefined, now: number): Finding[] {
  const path = `${providerPath(index)}.idpCertificate`;
  if (fact === undefined || fact.kind === 'unparsable') return [{ path, message: 'the certificate cannot be read as an X.509 certificate (PEM or base64 DER).' }];
  if (fact.validTo < now) return [{ path, message: `the certificate (${fact.subject}) expired on ${day(fact.validTo)}: SAML responses signed with it are refused.` }];
  if (fact.validFrom > now) return [{ path, message: `the certificate (${fact.subject}) is not valid before ${day(fact.validFrom)}.` }];
  if (fact.validTo - now < CERTIFICATE_WARNING_MS) {
    return [{ path, message: `the certificate (${fact.subject}) expires on ${day(fact.validTo)}, in less than 30 days: get the IdP's next certificate.` }];
  }
  return [];
}

function origin(text: string): string | null {
  try {
    return new URL(text).origin;
  } catch {
    return null;
  }
}

function checkServer(config: SiteConfiguration, server: NonNullable<DoctorFacts['server']>): Finding[] {
  const configured = config.externalURL;
  if (configured === undefined) {
    return [{ path: 'externalURL', message: `externalURL is not set: redirect URIs are built from the address each request uses (the server is reached at ${server.endpoint}).` }];
  }
  const findings: Finding[] = [];
  if (origin(configured) !== origin(server.endpoint)) {
    findings.push({ path: 'externalURL', message: `externalURL is ${configured} but the server is reached at ${server.endpoint}: providers will redirect people to the former.` });
  }
  const metadata = server.metadata;
  if (metadata.kind === 'unreachable') findings.push({ path: 'externalURL', message: `the server at ${server.endpoint} does not answer (${metadata.reason}).` });
  else {
    const issuer = field(metadata.json, 'issuer');
    if (typeof issuer === 'string' && issuer.replace(/\/+$/u, '') !== configured.replace(/\/+$/u, '')) {
      findings.push({ path: 'externalURL', message: `the running server's externalURL is ${issuer}, not ${configured}: it runs another configuration (reload it).` });
    }
  }
  return findings;
}

/**
 * Lines that are not findings: what gatehouse will send, for the administrator to register at each provider.
 *
 * @param config - The parsed site configuration.
 * @returns One note per `openidconnect` provider: its redirect URI (spec §5.3 openidconnect rule 2).
 * @example
 * ```ts
 * doctorNotes(config); // [{ path: 'auth.providers[0]', message: 'redirect URI https://gh.example.com/.auth/callback' }]
 * ```
 */
export function doctorNotes(config: SiteConfiguration): readonly Finding[] {
  const base = (config.externalURL ?? '{externalURL}').replace(/\/+$/u, '');
  const notes: Finding[] = [];
  config.authProviders.forEach((provider, index) => {
    if (provider.type === 'openidconnect') notes.push({ path: providerPath(index), message: `redirect URI ${base}/.auth/callback (register it at ${provider.issuer})` });
  });
  return notes;
}

/**
 * What is wrong with a valid configuration given what the probes found, in provider order, then `externalURL`.
 *
 * @param config - The parsed site configuration.
 * @param facts - What {@link planProbes}' probes found.
 * @returns The findings; empty when all is well.
 * @example
 * ```ts
 * diagnose(config, facts); // [{ path: 'auth.providers[1].url', message: 'the code host http://127.0.0.1:9 does not answer (connection refused).' }]
 * ```
 */
export function diagnose(config: SiteConfiguration, facts: DoctorFacts): readonly Finding[] {
  const findings: Finding[] = config.warnings.map((w) => ({ path: w.path, message: w.message }));
  const plan = planProbes(config);
  const hosts = new Map(plan.codeHosts.map((h) => [h.index, h.url]));
  config.authProviders.forEach((provider, index) => {
    if (provider.type === 'openidconnect') findings.push(...checkOpenIdConnect(index, provider.issuer, facts.discovery.get(index), facts.now));
    else if (provider.type === 'saml') findings.push(...checkCertificate(index, facts.certificates.get(index), facts.now));
    else {
      const url = hosts.get(index);
      if (url !== undefined) findings.push(...checkCodeHost(index, url, facts.codeHosts.get(index), facts.now));
    }
  });
  if (facts.server !== undefined) findings.push(...checkServer(config, facts.server));
  return findings;
}
