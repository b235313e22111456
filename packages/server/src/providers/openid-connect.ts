/**
 * The OpenID Connect relying party (spec §5.3 `openidconnect`), built on `openid-client`: discovery, the
 * authorization request with `state`, `nonce` and PKCE, and the code exchange with every ID token check.
 *
 * @module
 */
import type * as OpenIdClient from 'openid-client';
import type { OpenIdConnectProvider, ExternalIdentity } from 'gatehouse-auth';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, upstreamTimeoutMs, withDeadline } from './upstream.js';

type Fetch = typeof fetch;

/**
 * A relying party for one `openidconnect` provider; discovery runs on first use and is retried after a failure.
 *
 * @example
 * ```ts
 * const rp = createOpenIdRelyingParty(provider, 'https://search.example.com/.auth/callback', fetch);
 * ```
 */
export interface OpenIdRelyingParty {
  /** The authorization URL, or `null` when discovery failed. */
  authorizationURL(params: { readonly state: string; readonly nonce: string; readonly codeChallenge: string }): Promise<URL | null>;
  /** Exchanges the code in `currentURL` and returns the identity, or why not. */
  callback(
    currentURL: URL,
    checks: { readonly state: string; readonly nonce: string; readonly codeVerifier: string },
  ): Promise<OpenIdCallbackResult>;
}

/**
 * The result of an OpenID Connect callback.
 *
 * @example
 * ```ts
 * const r: OpenIdCallbackResult = { kind: 'refused' };
 * ```
 */
export type OpenIdCallbackResult =
  /** The provider vouched for this identity. */
  | { readonly kind: 'identity'; readonly identity: ExternalIdentity }
  /** The response failed a check (state, nonce, issuer, signature, PKCE) or the code was refused (HTTP 400). */
  | { readonly kind: 'refused' }
  /** The provider could not be reached (HTTP 502). */
  | { readonly kind: 'failed' };

function claimString(claims: Readonly<Record<string, unknown>> | undefined, key: string): string | null {
  const value = claims?.[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * Creates the relying party of an `openidconnect` provider.
 *
 * @param provider - The provider (issuer, client id and secret).
 * @param redirectURI - `{externalURL}/.auth/callback` (§5.3 openidconnect rule 2).
 * @param fetchFn - `fetch` used for every request to the provider.
 * @param timeoutMs - How long each request to the provider may take, and each step (discovery, code exchange
 *   with its key set, user info) as a whole (default 10 s); a step that times out has failed.
 * @param onFailure - Told of each step that failed (`discovery`, `token`, `userinfo`) and its error, to log it.
 * @returns The relying party.
 * @example
 * ```ts
 * const rp = createOpenIdRelyingParty(provider, 'https://search.example.com/.auth/callback', fetch);
 * const url = await rp.authorizationURL({ state, nonce, codeChallenge });
 * ```
 */
export function createOpenIdRelyingParty(
  provider: OpenIdConnectProvider,
  redirectURI: string,
  fetchFn: Fetch,
  timeoutMs: number = DEFAULT_UPSTREAM_TIMEOUT_MS,
  onFailure: (step: 'discovery' | 'token' | 'userinfo', error: unknown) => void = () => undefined,
): OpenIdRelyingParty {
  const deadlineMs = upstreamTimeoutMs(timeoutMs);
  type Discovered = { readonly client: typeof OpenIdClient; readonly config: OpenIdClient.Configuration };
  let configuration: Promise<Discovered> | null = null;
  // openid-client is loaded on the first sign-in, not when the server starts.
  const discover = (): Promise<Discovered | null> => {
    if (configuration === null) {
      const issuer = new URL(provider.issuer);
      configuration = import('openid-client').then((client) =>
        withDeadline(deadlineMs, () =>
          client.discovery(
            issuer,
            provider.clientID,
            { client_secret: provider.clientSecret, redirect_uris: [redirectURI], response_types: ['code'] },
            client.ClientSecretPost(provider.clientSecret),
            {
              // A plain-http issuer only makes sense on a private network or in tests; the administrator chose it.
              execute: issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [],
              [client.customFetch]: (url, { body, headers, method, redirect, signal }) =>
                fetchFn(url, {
                  headers,
                  method,
                  redirect,
                  ...(body === undefined ? {} : { body: body instanceof Uint8Array ? new Uint8Array(body) : body }),
                  ...(signal === undefined ? {} : { signal }),
                }),
              // openid-client's own per-request deadline, in seconds; it stays on the configuration for later requests
              timeout: deadlineMs / 1000,
            },
          ),
        ).then((config) => ({ client, config })),
      );
    }
    const pending = configuration;
    return pending.catch((error: unknown) => {
      if (configuration === pending) {
        configuration = null;
        onFailure('discovery', error);
      }
      return null;
    });
  };
  return {
    async authorizationURL({ state, nonce, codeChallenge }) {
      const discovered = await discover();
      if (discovered === null) return null;
      const { client, config } = discovered;
      return client.buildAuthorizationUrl(config, {
        redirect_uri: redirectURI,
        scope: 'openid email profile',
        state,
        nonce,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
      });
    },
    async callback(currentURL, checks) {
      const discovered = await discover();
      if (discovered === null) return { kind: 'failed' };
      const { client, config } = discovered;
      let tokens: Awaited<ReturnType<typeof OpenIdClient.authorizationCodeGrant>>;
      try {
        tokens = await withDeadline(deadlineMs, () =>
          client.authorizationCodeGrant(config, currentURL, {
            expectedState: checks.state,
            expectedNonce: checks.nonce,
            pkceCodeVerifier: checks.codeVerifier,
            idTokenExpected: true,
          }),
        );
      } catch (error) {
        onFailure('token', error);
        return { kind: isRefusal(client, error) ? 'refused' : 'failed' };
      }
      const claims = tokens.claims();
      if (claims === undefined) return { kind: 'refused' };
      let userinfo: Readonly<Record<string, unknown>> | undefined;
      if (claimString(claims, 'email') === null) {
        try {
          userinfo = await withDeadline(deadlineMs, () => client.fetchUserInfo(config, tokens.access_token, claims.sub));
        } catch (error) {
          onFailure('userinfo', error);
          return { kind: isRefusal(client, error) ? 'refused' : 'failed' };
        }
      }
      const email = claimString(claims, 'email') ?? claimString(userinfo, 'email');
      const verifiedClaim = claimString(claims, 'email') !== null ? claims['email_verified'] : userinfo?.['email_verified'];
      const identity: ExternalIdentity = {
        accountId: claims.sub,
        username: claimString(claims, 'preferred_username') ?? claimString(userinfo, 'preferred_username'),
        // `email_verified` must be literally `true`; absent or anything else is unverified.
        emails: email === null ? [] : [{ address: email, verified: verifiedClaim === true }],
      };
      return { kind: 'identity', identity };
    },
  };
}

function isRefusal(client: typeof OpenIdClient, error: unknown): boolean {
  return (
    error instanceof client.ResponseBodyError ||
    error instanceof client.AuthorizationResponseError ||
    error instanceof client.ClientError ||
    error instanceof client.WWWAuthenticateChallengeError
  );
}
