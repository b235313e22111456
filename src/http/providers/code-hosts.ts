/**
 * The OAuth endpoints of the code hosts and how their REST APIs describe a person (user, verified emails,
 * organisations and teams, groups with access levels), every page followed.
 *
 * @module
 */
import { match } from 'ts-pattern';
import type {
  CodeHostProvider,
  HostaProvider,
  HostbProvider,
  HostccloudProvider,
  HostcserverProvider,
} from '../../core/auth-providers.js';
import type { ExternalEmail, ExternalGroup, ExternalIdentity, ExternalTeam } from '../../core/external-identity.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, withDeadline } from './upstream.js';

/**
 * Where a code host's OAuth endpoints are and how to talk to them.
 *
 * @example
 * ```ts
 * const e: CodeHostEndpoints = {
 *   authorizeURL: 'https://hostb.example.com/oauth/authorize', tokenURL: 'https://hostb.example.com/oauth/token',
 *   clientId: 'id', clientSecret: 's', pkce: true, tokenAuth: 'body',
 * };
 * ```
 */
export interface CodeHostEndpoints {
  /** The authorization endpoint. */
  readonly authorizeURL: string;
  /** The token endpoint. */
  readonly tokenURL: string;
  /** The OAuth client id (`clientKey` for `hostccloud`). */
  readonly clientId: string;
  /** The client secret. */
  readonly clientSecret: string;
  /** Whether the host supports PKCE (S256). */
  readonly pkce: boolean;
  /** How the client authenticates at the token endpoint. */
  readonly tokenAuth: 'body' | 'basic';
}

/**
 * Base URLs of the public hosted editions, used when a `hosta` or `hostccloud` provider leaves `url` empty.
 *
 * @example
 * ```ts
 * const publicURLs: PublicCodeHostURLs = { hosta: 'https://hosta.example', hostccloud: 'https://hostc.example' };
 * ```
 */
export interface PublicCodeHostURLs {
  /** Base URL of the public `hosta` (web and `/api`). */
  readonly hosta?: string;
  /** Base URL of the public `hostccloud`. */
  readonly hostccloud?: string;
}

/**
 * The default public edition addresses: neutral placeholders on the reserved `example.com` domain (RFC 2606),
 * named like the spec's neutral provider types, so that an entry with an empty `url` has an address to show and
 * never sends its client secret to a real third party. A deployment sets the real public host's address
 * (`publicCodeHostURLs`, or `GATEHOUSE_HOSTA_URL` / `GATEHOUSE_HOSTCCLOUD_URL` for `gatehouse serve`).
 *
 * @example
 * ```ts
 * DEFAULT_PUBLIC_CODE_HOST_URLS.hosta; // 'https://hosta.example.com'
 * ```
 */
export const DEFAULT_PUBLIC_CODE_HOST_URLS: Required<PublicCodeHostURLs> = Object.freeze({
  hosta: 'https://hosta.example.com',
  hostccloud: 'https://hostccloud.example.com',
});

function trimSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * The base URL of a code host provider, or `null` when a public edition's URL is unknown.
 *
 * @param provider - The provider.
 * @param publicURLs - Public edition URLs.
 * @returns The base URL without a trailing slash.
 * @internal
 */
export function codeHostBase(provider: CodeHostProvider, publicURLs: PublicCodeHostURLs): string | null {
  return match(provider)
    .returnType<string | null>()
    .with({ type: 'hosta' }, (p) => (p.url !== '' ? trimSlashes(p.url) : publicURLs.hosta === undefined ? null : trimSlashes(publicURLs.hosta)))
    .with({ type: 'hostccloud' }, (p) =>
      p.url !== undefined && p.url !== ''
        ? trimSlashes(p.url)
        : publicURLs.hostccloud === undefined
          ? null
          : trimSlashes(publicURLs.hostccloud),
    )
    .with({ type: 'hostb' }, { type: 'hostcserver' }, (p) => trimSlashes(p.url))
    .exhaustive();
}

/**
 * The OAuth endpoints of a code host provider.
 *
 * @param provider - The provider.
 * @param base - Its base URL ({@link codeHostBase}).
 * @returns The endpoints.
 * @internal
 */
export function codeHostEndpoints(provider: CodeHostProvider, base: string): CodeHostEndpoints {
  return match(provider)
    .returnType<CodeHostEndpoints>()
    .with({ type: 'hosta' }, (p) => ({
      authorizeURL: `${base}/login/oauth/authorize`,
      tokenURL: `${base}/login/oauth/access_token`,
      clientId: p.clientID,
      clientSecret: p.clientSecret,
      pkce: true,
      tokenAuth: 'body',
    }))
    .with({ type: 'hostb' }, (p) => ({
      authorizeURL: `${base}/oauth/authorize`,
      tokenURL: `${base}/oauth/token`,
      clientId: p.clientID,
      clientSecret: p.clientSecret,
      pkce: true,
      tokenAuth: 'body',
    }))
    .with({ type: 'hostccloud' }, (p) => ({
      authorizeURL: `${base}/site/oauth2/authorize`,
      tokenURL: `${base}/site/oauth2/access_token`,
      clientId: p.clientKey,
      clientSecret: p.clientSecret,
      pkce: false,
      tokenAuth: 'basic',
    }))
    .with({ type: 'hostcserver' }, (p) => ({
      authorizeURL: `${base}/rest/oauth2/latest/authorize`,
      tokenURL: `${base}/rest/oauth2/latest/token`,
      clientId: p.clientID,
      clientSecret: p.clientSecret,
      pkce: true,
      tokenAuth: 'body',
    }))
    .exhaustive();
}

/**
 * Fetching an identity failed in a way that leaves nobody to sign in (the user or the emails could not be read).
 *
 * @example
 * ```ts
 * const e: IdentityFetchError = { code: 'upstream_failed', what: 'emails' };
 * ```
 */
export interface IdentityFetchError {
  /** Always `upstream_failed`. */
  readonly code: 'upstream_failed';
  /** What could not be read. */
  readonly what: 'user' | 'emails';
}

type Fetch = typeof fetch;

interface ApiClient {
  readonly getJson: (url: string) => Promise<{ readonly body: unknown; readonly response: Response } | null>;
  readonly getText: (url: string) => Promise<string | null>;
}

/** At most this many pages of one list are read; a longer list counts as cut short. */
const MAX_PAGES = 100;

// Every page is one call under one deadline (the request and its body): a host that stops answering makes
// that page fail, as an HTTP error would.
function apiClient(fetchFn: Fetch, token: string, timeoutMs: number): ApiClient {
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  const get = async <T>(url: string, read: (response: Response) => Promise<T>): Promise<T | null> => {
    try {
      return await withDeadline(timeoutMs, async (signal) => {
        const response = await fetchFn(url, { headers, redirect: 'error', signal });
        if (!response.ok) {
          await response.body?.cancel();
          return null;
        }
        return read(response);
      });
    } catch {
      return null;
    }
  };
  return {
    getJson: (url) =>
      get(url, async (response) => {
        const body: unknown = await response.json();
        return { body, response };
      }),
    getText: (url) => get(url, (response) => response.text()),
  };
}

function field(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (!Object.prototype.hasOwnProperty.call(value, key)) return undefined;
  const found: unknown = Reflect.get(value, key);
  return found;
}

function stringField(value: unknown, key: string): string | null {
  const v = field(value, key);
  return typeof v === 'string' && v !== '' ? v : null;
}

function idField(value: unknown, key: string): string | null {
  const v = field(value, key);
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  return typeof v === 'string' && v !== '' ? v : null;
}

function linkNext(header: string | null): string | null {
  if (header === null) return null;
  for (const part of header.split(',')) {
    const m = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (m === null) continue;
    const params = m[2] ?? '';
    if (/(^|;)\s*rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(params)) return m[1] ?? null;
  }
  return null;
}

// The next page of a list: `Link: <…>; rel="next"`, else `x-next-page`, else a `next` URL in the body.
// Only same-origin pages are followed (the access token must not leave the host).
function nextPage(current: string, response: Response, body: unknown): string | null | 'foreign' {
  const link = linkNext(response.headers.get('link'));
  const nextHeader = response.headers.get('x-next-page');
  const bodyNext = stringField(body, 'next');
  let next: URL | null = null;
  try {
    if (link !== null) next = new URL(link, current);
    else if (nextHeader !== null && /^\d+$/.test(nextHeader.trim())) {
      next = new URL(current);
      next.searchParams.set('page', nextHeader.trim());
    } else if (bodyNext !== null) next = new URL(bodyNext, current);
  } catch {
    return 'foreign';
  }
  if (next === null) return null;
  return next.origin === new URL(current).origin ? next.href : 'foreign';
}

interface Pages {
  readonly items: readonly unknown[];
  readonly complete: boolean;
}

async function allPages(client: ApiClient, first: string, itemsOf: (body: unknown) => readonly unknown[] | null): Promise<Pages> {
  const items: unknown[] = [];
  let url: string | null = first;
  for (let page = 0; url !== null; page++) {
    if (page >= MAX_PAGES) return { items, complete: false };
    const got = await client.getJson(url);
    const pageItems = got === null ? null : itemsOf(got.body);
    if (got === null || pageItems === null) return { items, complete: false };
    items.push(...pageItems);
    const next = nextPage(url, got.response, got.body);
    if (next === 'foreign') return { items, complete: false };
    url = next;
  }
  return { items, complete: true };
}

const arrayBody = (body: unknown): readonly unknown[] | null => (Array.isArray(body) ? body : null);
const valuesBody = (body: unknown): readonly unknown[] | null => {
  const values = field(body, 'values');
  return Array.isArray(values) ? values : null;
};

function primaryFirst(emails: readonly (ExternalEmail & { readonly primary: boolean })[]): readonly ExternalEmail[] {
  return [...emails.filter((e) => e.primary), ...emails.filter((e) => !e.primary)].map((e) => ({
    address: e.address,
    verified: e.verified,
  }));
}

type Fetched = { readonly ok: true; readonly identity: ExternalIdentity } | { readonly ok: false; readonly error: IdentityFetchError };

const failed = (what: IdentityFetchError['what']): Fetched => ({ ok: false, error: { code: 'upstream_failed', what } });

async function hostaIdentity(provider: HostaProvider, base: string, client: ApiClient): Promise<Fetched> {
  const api = `${base}/api`;
  const user = await client.getJson(`${api}/user`);
  const accountId = user === null ? null : idField(user.body, 'id');
  if (user === null || accountId === null) return failed('user');
  const emailPages = await allPages(client, `${api}/user/emails?per_page=100`, arrayBody);
  // A list of emails cut short would still be true facts, but a person must see the right message
  // (a missing email is not a missing verified email), so any failure stops the sign-in.
  if (!emailPages.complete) return failed('emails');
  const emails = primaryFirst(
    emailPages.items.flatMap((e) => {
      const address = stringField(e, 'email');
      return address === null ? [] : [{ address, verified: field(e, 'verified') === true, primary: field(e, 'primary') === true }];
    }),
  );
  const wantOrgs = (provider.allowOrgs ?? []).length > 0;
  const wantTeams = Object.values(provider.allowOrgsMap ?? {}).some((teams) => teams.length > 0);
  let complete = true;
  let orgs: readonly string[] | undefined;
  let teams: readonly ExternalTeam[] | undefined;
  if (wantOrgs) {
    const pages = await allPages(client, `${api}/user/orgs?per_page=100`, arrayBody);
    complete &&= pages.complete;
    orgs = pages.items.flatMap((o) => {
      const login = stringField(o, 'login');
      return login === null ? [] : [login];
    });
  }
  if (wantTeams) {
    const pages = await allPages(client, `${api}/user/teams?per_page=100`, arrayBody);
    complete &&= pages.complete;
    teams = pages.items.flatMap((t) => {
      const name = stringField(t, 'name');
      const org = stringField(field(t, 'organization'), 'login');
      return name === null || org === null ? [] : [{ org, name }];
    });
  }
  return {
    ok: true,
    identity: {
      accountId,
      username: stringField(user.body, 'login'),
      emails,
      ...(orgs === undefined ? {} : { orgs }),
      ...(teams === undefined ? {} : { teams }),
      ...(wantOrgs || wantTeams ? { membershipComplete: complete } : {}),
    },
  };
}

async function hostbIdentity(provider: HostbProvider, base: string, client: ApiClient): Promise<Fetched> {
  const api = `${base}/api/v4`;
  const user = await client.getJson(`${api}/user`);
  const accountId = user === null ? null : idField(user.body, 'id');
  if (user === null || accountId === null) return failed('user');
  // §5.3 hostb rule 3: the primary email at the code host is always verified.
  const email = stringField(user.body, 'email');
  const emails: readonly ExternalEmail[] = email === null ? [] : [{ address: email, verified: true }];
  const allowGroups = provider.allowGroups ?? [];
  if (allowGroups.length === 0) {
    return { ok: true, identity: { accountId, username: stringField(user.body, 'username'), emails } };
  }
  // Every membership down to Minimal Access (5), so that rule 5's denial can be told apart.
  const pages = await allPages(client, `${api}/groups?min_access_level=5&per_page=100`, arrayBody);
  let complete = pages.complete;
  const groups: ExternalGroup[] = [];
  for (const g of pages.items) {
    const fullPath = stringField(g, 'full_path');
    const id = idField(g, 'id');
    if (fullPath === null || id === null || !allowGroups.includes(fullPath)) continue;
    const member = await client.getJson(`${api}/groups/${encodeURIComponent(id)}/members/all/${encodeURIComponent(accountId)}`);
    const level = member === null ? undefined : field(member.body, 'access_level');
    if (typeof level !== 'number' || !Number.isFinite(level)) {
      complete = false;
      continue;
    }
    groups.push({ fullPath, accessLevel: level });
  }
  return {
    ok: true,
    identity: { accountId, username: stringField(user.body, 'username'), emails, groups, membershipComplete: complete },
  };
}

async function hostccloudIdentity(_provider: HostccloudProvider, base: string, client: ApiClient): Promise<Fetched> {
  const api = `${base}/api/2.0`;
  const user = await client.getJson(`${api}/user`);
  const accountId = user === null ? null : stringField(user.body, 'uuid');
  if (user === null || accountId === null) return failed('user');
  const pages = await allPages(client, `${api}/user/emails`, valuesBody);
  if (!pages.complete) return failed('emails');
  const emails = primaryFirst(
    pages.items.flatMap((e) => {
      const address = stringField(e, 'email');
      return address === null
        ? []
        : [{ address, verified: field(e, 'is_confirmed') === true, primary: field(e, 'is_primary') === true }];
    }),
  );
  return { ok: true, identity: { accountId, username: stringField(user.body, 'username'), emails } };
}

async function hostcserverIdentity(_provider: HostcserverProvider, base: string, client: ApiClient): Promise<Fetched> {
  const whoami = await client.getText(`${base}/plugins/servlet/applinks/whoami`);
  const name = whoami?.trim() ?? '';
  if (name === '') return failed('user');
  const user = await client.getJson(`${base}/rest/api/latest/users/${encodeURIComponent(name)}`);
  const accountId = user === null ? null : idField(user.body, 'id');
  if (user === null || accountId === null) return failed('user');
  // The self-hosted edition's addresses come from its administrators' user directory: taken as verified.
  const email = stringField(user.body, 'emailAddress');
  return {
    ok: true,
    identity: {
      accountId,
      username: stringField(user.body, 'name') ?? name,
      emails: email === null ? [] : [{ address: email, verified: true }],
    },
  };
}

/**
 * Reads the person behind an access token from a code host's REST API.
 *
 * @param provider - The code host provider.
 * @param base - Its base URL.
 * @param accessToken - The access token from the token endpoint.
 * @param fetchFn - `fetch`.
 * @param timeoutMs - How long each page may take (default 10 s); a page that times out has failed.
 * @returns The identity, or why no identity could be read.
 * @internal
 */
export function fetchCodeHostIdentity(
  provider: CodeHostProvider,
  base: string,
  accessToken: string,
  fetchFn: Fetch,
  timeoutMs: number = DEFAULT_UPSTREAM_TIMEOUT_MS,
): Promise<Fetched> {
  const client = apiClient(fetchFn, accessToken, timeoutMs);
  return match(provider)
    .returnType<Promise<Fetched>>()
    .with({ type: 'hosta' }, (p) => hostaIdentity(p, base, client))
    .with({ type: 'hostb' }, (p) => hostbIdentity(p, base, client))
    .with({ type: 'hostccloud' }, (p) => hostccloudIdentity(p, base, client))
    .with({ type: 'hostcserver' }, (p) => hostcserverIdentity(p, base, client))
    .exhaustive();
}

/**
 * Exchanges an authorization code at a code host's token endpoint.
 *
 * @param endpoints - The host's endpoints.
 * @param code - The authorization code.
 * @param redirectUri - The callback URL sent in the authorization request.
 * @param codeVerifier - The PKCE verifier, or `null`.
 * @param fetchFn - `fetch`.
 * @param timeoutMs - How long the exchange may take (default 10 s); a timeout is `failed`.
 * @returns The access token; `rejected` when the host refused the code, `failed` when it could not be asked.
 * @internal
 */
export async function exchangeCode(
  endpoints: CodeHostEndpoints,
  code: string,
  redirectUri: string,
  codeVerifier: string | null,
  fetchFn: Fetch,
  timeoutMs: number = DEFAULT_UPSTREAM_TIMEOUT_MS,
): Promise<{ readonly kind: 'token'; readonly accessToken: string } | { readonly kind: 'rejected' } | { readonly kind: 'failed' }> {
  const body = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/x-www-form-urlencoded',
  };
  if (endpoints.tokenAuth === 'basic') {
    headers['authorization'] =
      `Basic ${Buffer.from(`${encodeURIComponent(endpoints.clientId)}:${encodeURIComponent(endpoints.clientSecret)}`).toString('base64')}`;
  } else {
    body.set('client_id', endpoints.clientId);
    body.set('client_secret', endpoints.clientSecret);
  }
  if (codeVerifier !== null) body.set('code_verifier', codeVerifier);
  let response: Response;
  let json: unknown;
  try {
    [response, json] = await withDeadline(timeoutMs, async (signal) => {
      const answered = await fetchFn(endpoints.tokenURL, { method: 'POST', headers, body, redirect: 'error', signal });
      const parsed: unknown = await answered.json();
      return [answered, parsed] as const;
    });
  } catch {
    return { kind: 'failed' };
  }
  const accessToken = stringField(json, 'access_token');
  if (response.ok && accessToken !== null) return { kind: 'token', accessToken };
  // OAuth error responses (RFC 6749 §5.2) say the code was refused; GitHub-style hosts answer 200 with `error`.
  if (stringField(json, 'error') !== null) return { kind: 'rejected' };
  return { kind: 'failed' };
}
