/**
 * `previewSiteConfiguration` as a function of the schema: site administrators only, the problems of an invalid
 * candidate with their paths, who would lose sign-in for a valid one, and every list of its answer bounded by
 * `first` (§8).
 */
import { graphql } from 'graphql';
import { err } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { parseSiteConfiguration } from '../../../../src/core/site-configuration/parse.js';
import { createGatehouseSchema, type Viewer } from '../../src/api/schema.js';
import { listFieldsOfSchema } from '../../src/api/list-fields.js';
import { previewConfiguration } from '../../src/operations/configuration-preview.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { UserRecord } from '../../src/store/types.js';

const config = (orgs: readonly string[]): string =>
  JSON.stringify({ 'auth.providers': [{ type: 'builtin' }, { type: 'hosta', clientID: 'id', clientSecret: 's', allowOrgs: orgs }] });

async function setUp() {
  const store = createMemoryStore();
  const current = parseSiteConfiguration(config(['acme', 'globex']))._unsafeUnwrap();
  const make = async (name: string, siteAdmin: boolean, orgs: readonly string[] | null): Promise<UserRecord> => {
    const user = (
      await store.accounts.create({
        usernames: [name], origin: 'provider_signup', siteAdmin, serviceAccount: false, emails: [], passwordHash: null, createdAt: 1,
        externalAccount: { serviceType: 'hosta', serviceId: '', accountId: name, createdAt: 1 },
      })
    )._unsafeUnwrap();
    if (orgs !== null) (await store.accounts.recordIdentityFacts({ serviceType: 'hosta', serviceId: '', accountId: name }, { username: name, emails: [], orgs }, 2))._unsafeUnwrap();
    return user;
  };
  const admin = await make('root', true, ['acme']);
  const member = await make('bob', false, ['globex']);
  const schema = createGatehouseSchema({
    store,
    now: () => 0,
    randomBytes: (n) => new Uint8Array(n),
    search: async () => ({ matchCount: 0 }),
    audit: async () => undefined,
    registerOAuthApp: async () => err({ code: 'unused', message: 'unused' }),
    previewConfiguration: (text) => previewConfiguration(store, current, text),
  });
  const run = (user: UserRecord | null, configuration: string, first = 20) => {
    const viewer: Viewer = user === null ? { kind: 'anonymous' } : { kind: 'user', user, actor: user, via: 'token' };
    return graphql({
      schema,
      source: `query($c: String!, $n: Int) { previewSiteConfiguration(configuration: $c) {
        valid problems(first: $n) { path message } losing { count first(first: $n) { username providerUsername reason } } locksOutSiteAdmins } }`,
      variableValues: { c: configuration, n: first },
      contextValue: { viewer },
    });
  };
  return { schema, admin, member, run };
}

describe('previewSiteConfiguration', () => {
  it('should be for site administrators only', async () => {
    const { member, run } = await setUp();
    const anonymous = await run(null, config(['acme']));
    expect(anonymous.errors?.[0]?.extensions['code']).toBe('UNAUTHENTICATED');
    const refused = await run(member, config(['acme']));
    expect(refused.errors?.[0]?.extensions['code']).toBe('FORBIDDEN');
  });

  it('should list who would lose sign-in, and the problems of an invalid candidate with their paths', async () => {
    const { admin, run } = await setUp();
    const answer = await run(admin, config(['acme']));
    expect(answer.errors).toBeUndefined();
    expect(JSON.parse(JSON.stringify(answer.data?.['previewSiteConfiguration']))).toStrictEqual({
      valid: true,
      problems: [],
      losing: { count: 1, first: [{ username: 'bob', providerUsername: 'bob', reason: 'not_in_allowed_orgs_or_teams' }] },
      locksOutSiteAdmins: false,
    });
    const invalid = await run(admin, '{ "rateLimits": { "graphQLMaxDepth": -1 }, "auth.providers": [{ "type": "hosta" }] }', 1);
    const preview = invalid.data?.['previewSiteConfiguration'] as { valid: boolean; problems: { path: string }[] };
    expect(preview.valid).toBe(false);
    // bounded by first
    expect(preview.problems).toHaveLength(1);
    expect(preview.problems[0]?.path).toMatch(/^auth\.providers\[0\]/u);
  });

  it('should refuse a candidate longer than its bound', async () => {
    const { admin, run } = await setUp();
    const answer = await run(admin, `{ ${' '.repeat(256 * 1024)} }`);
    expect(answer.errors?.[0]?.extensions['code']).toBe('BAD_USER_INPUT');
  });

  it('should leave no list of the schema unbounded (§8: every list takes first)', async () => {
    const { schema } = await setUp();
    expect(listFieldsOfSchema(schema).unbounded).toStrictEqual([]);
  });
});
