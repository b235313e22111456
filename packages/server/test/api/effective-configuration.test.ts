/**
 * `effectiveSiteConfiguration` as a function of the schema: site administrators only (anonymous and ordinary
 * viewers get the errors other site administrator queries give), the configuration in effect with every default,
 * and none of its secrets, for random secrets.
 */
import { fc, test } from '@fast-check/vitest';
import { graphql } from 'graphql';
import { err } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { parseSiteConfiguration } from '../../../../src/core/site-configuration/parse.js';
import { createGatehouseSchema, type Viewer } from '../../src/api/schema.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { UserRecord } from '../../src/store/types.js';

interface Secrets {
  readonly oidc: string;
  readonly hostb: string;
  readonly sso: string;
  readonly smtp: string;
}

const configText = (s: Secrets): string =>
  JSON.stringify({
    externalURL: 'https://gh.example.com',
    'auth.providers': [
      { type: 'builtin' },
      { type: 'openidconnect', issuer: 'https://idp.example.com', clientID: 'gatehouse', clientSecret: s.oidc },
      { type: 'hostb', url: 'https://gitlab.example.com', clientID: 'gl', clientSecret: s.hostb, ssoURL: `https://gitlab.example.com/groups/g/-/saml/sso?token=${s.sso}` },
    ],
    'email.smtp': { host: 'smtp.example.com', port: 587, authentication: 'PLAIN', username: 'mailer', password: s.smtp },
    'email.address': 'gh@example.com',
    'other.tool.secret': s.smtp,
  });

async function setUp(secrets: Secrets) {
  const store = createMemoryStore();
  const make = async (name: string, siteAdmin: boolean): Promise<UserRecord> =>
    (
      await store.accounts.create({ usernames: [name], origin: 'seeded', siteAdmin, serviceAccount: false, emails: [], passwordHash: null, createdAt: 1 })
    )._unsafeUnwrap();
  const admin = await make('root', true);
  const member = await make('bob', false);
  const schema = createGatehouseSchema({
    store,
    now: () => 0,
    randomBytes: (n) => new Uint8Array(n),
    search: async () => ({ matchCount: 0 }),
    audit: async () => {
      throw new Error('a read audits nothing');
    },
    registerOAuthApp: async () => err({ code: 'unused', message: 'unused' }),
    siteConfiguration: parseSiteConfiguration(configText(secrets))._unsafeUnwrap(),
  });
  const run = async (user: UserRecord | null) => {
    const viewer: Viewer = user === null ? { kind: 'anonymous' } : { kind: 'user', user, actor: user, via: 'token' };
    return graphql({ schema, source: '{ effectiveSiteConfiguration }', contextValue: { viewer } });
  };
  return { admin, member, run };
}

const FIXED: Secrets = { oidc: 'oidc-secret-1', hostb: 'hostb-secret-2', sso: 'ssotoken3', smtp: 'smtp-password-4' };

describe('effectiveSiteConfiguration', () => {
  it('should refuse anonymous viewers and viewers who are not site administrators', async () => {
    const { member, run } = await setUp(FIXED);
    const anonymous = await run(null);
    expect(anonymous.errors?.[0]?.extensions['code']).toBe('UNAUTHENTICATED');
    const refused = await run(member);
    expect(refused.errors?.[0]?.extensions['code']).toBe('FORBIDDEN');
    expect(refused.errors?.[0]?.message).toBe('Only site administrators may do this.');
    expect(refused.data).toBeNull();
  });

  it('should give a site administrator the configuration in effect, defaults spelled out, secrets REDACTED', async () => {
    const { admin, run } = await setUp(FIXED);
    const answer = await run(admin);
    expect(answer.errors).toBeUndefined();
    const text = answer.data?.['effectiveSiteConfiguration'];
    expect(typeof text).toBe('string');
    const document = JSON.parse(String(text)) as Record<string, unknown>;
    expect(document['auth.providers']).toEqual([
      { type: 'builtin', allowSignup: false },
      { type: 'openidconnect', issuer: 'https://idp.example.com', clientID: 'gatehouse', clientSecret: 'REDACTED', allowSignup: true },
      { type: 'hostb', url: 'https://gitlab.example.com', clientID: 'gl', clientSecret: 'REDACTED', ssoURL: 'https://gitlab.example.com/groups/g/-/saml/sso?token=REDACTED', allowSignup: true, apiScope: 'api' },
    ]);
    expect(document['email.smtp']).toMatchObject({ username: 'mailer', password: 'REDACTED' });
    expect(document['rateLimits']).toMatchObject({ graphQLMaxDepth: 30 });
    expect(document).not.toHaveProperty('other.tool.secret');
    // it is a site configuration the parser reads back
    expect(parseSiteConfiguration(String(text)).isOk()).toBe(true);
  });

  const secret = fc.stringMatching(/^[A-Za-z0-9_-]{12,32}$/u);
  test.prop([fc.record({ oidc: secret, hostb: secret, sso: secret, smtp: secret })], { numRuns: 50 })(
    'no secret of the configuration appears anywhere in the answer',
    async (secrets) => {
      const { admin, run } = await setUp(secrets);
      const answer = JSON.stringify(await run(admin));
      for (const value of Object.values(secrets)) expect(answer).not.toContain(value);
      expect(answer).toContain('REDACTED');
    },
  );
});
