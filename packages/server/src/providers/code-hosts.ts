/**
 * The OAuth endpoints of the code hosts, the code exchange, and the dispatch to each host's adapter for how its
 * REST API describes a person (`hosta.ts`, `hostb.ts`, `hostc.ts`).
 *
 * @module
 */
import { match } from 'ts-pattern';
import type { CodeHostProvider } from 'gatehouse-auth';
import { apiClient, stringField, type Fetch, type Fetched } from './code-host-api.js';
import { hostaIdentity } from './hosta.js';
import { hostbIdentity } from './hostb.js';
import { hostccloudIdentity, hostcserverIdentity } from './hostc.js';
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
