/**
 * A real OpenID provider for the tests (the `oidc-provider` package) with one confidential client,
 * `gatehouse`, whose redirect URI the test gives, and people whose email claims the test gives.
 * Consent is granted ahead of time, so the development login form is the only interaction.
 */
import { generateKeyPairSync } from 'node:crypto';
import Provider, { type OidcContext } from 'oidc-provider';

export const OIDC_CLIENT = { id: 'gatehouse', secret: 'gatehouse-secret-that-is-long-enough' } as const;

export type OidcPeople = Readonly<Record<string, { readonly email: string; readonly email_verified: boolean }>>;

export function createOpenIdProvider(issuer: string, redirectURI: string, people: OidcPeople): Provider {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return new Provider(issuer, {
    clients: [
      {
        client_id: OIDC_CLIENT.id,
        client_secret: OIDC_CLIENT.secret,
        redirect_uris: [redirectURI],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: ['test-cookie-key'] },
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username'] },
    features: { devInteractions: { enabled: true } },
    findAccount: (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: () => ({ sub: id, preferred_username: id, ...(people[id] ?? {}) }),
    }),
    loadExistingGrant: async (ctx: OidcContext) => {
      const accountId = ctx.oidc.session?.accountId;
      const clientId = ctx.oidc.client?.clientId;
      if (accountId === undefined || clientId === undefined) return undefined;
      const grant = new ctx.oidc.provider.Grant({ accountId, clientId });
      grant.addOIDCScope('openid email profile');
      grant.addOIDCClaims(['email', 'email_verified', 'preferred_username']);
      await grant.save();
      return grant;
    },
  });
}
