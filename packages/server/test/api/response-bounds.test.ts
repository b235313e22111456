/**
 * A response is bounded by spec §8's field count: every list field takes `first` (default 20, at most 100) and the
 * cost analyzer counts it, one account holds at most 100 access tokens with notes of at most 256 characters, and
 * execution stops once past the field limit. Against a real server on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/index.js';
import { gql, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { flatStoreOf } from '../helpers/flat-store.js';

/** Tokens put straight into the store (as a store filled before the quota existed could hold). */
const STORED_TOKENS = 120;
const NOTE = 'n'.repeat(256);
const ALIASES = 200;

/** `{ a0: currentUser { accessTokens { note } } … }` with `count` aliases. */
function aliasedTokens(count: number, selection = 'accessTokens { note }', header = ''): string {
  const fields = Array.from({ length: count }, (_, i) => `a${i}: currentUser { ${selection} }`);
  return `${header}{ ${fields.join(' ')} }`;
}

async function fillTokens(s: TestServer, user: UserRecord, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const stored = await flatStoreOf(s.gatehouse.store).createAccessToken({
      userId: user.id,
      digest: i.toString(16).padStart(64, '0'),
      scopes: ['user:all'],
      note: NOTE,
      createdAt: s.clock.now,
      expiresAt: null,
    });
    expect(stored.isOk()).toBe(true);
  }
}

function errorsOf(body: unknown): readonly { message: string; extensions?: Record<string, unknown> }[] {
  const errors = (body as { errors?: { message: string; extensions?: Record<string, unknown> }[] } | null)?.errors;
  return errors ?? [];
}

describe('§8 graphQLMaxFieldCount: list fields are paginated and counted (default limits)', () => {
  let s: TestServer;
  let alice: UserRecord;
  let auth: Record<string, string>;

  beforeAll(async () => {
    s = await startServer({ siteConfiguration: '{ "auth.providers": [{ "type": "builtin" }] }' });
    alice = await s.user('alice');
    auth = { authorization: `token ${(await s.token(alice)).token}` };
    await fillTokens(s, alice, STORED_TOKENS);
  });
  afterAll(async () => {
    await s.close();
  });

  it('should answer the aliased accessTokens query with at most 20 tokens per alias, not every token 200 times (§8)', async () => {
    const started = performance.now();
    const answer = await gql(s.url, aliasedTokens(ALIASES), { headers: auth });
    const ms = performance.now() - started;
    // 200 aliases × 121 tokens × 256 characters was 6.5 MB before lists were paginated; now at most 20 per alias.
    expect(answer.status).toBe(200);
    const data = (answer.body as { data: Record<string, { accessTokens: unknown[] }> }).data;
    expect(Object.keys(data)).toHaveLength(ALIASES);
    for (const value of Object.values(data)) expect(value.accessTokens).toHaveLength(20);
    expect(answer.text.length).toBeLessThan(ALIASES * 20 * (NOTE.length + 20) + 10_000);
    expect(ms).toBeLessThan(10_000);
  });

  it('should return exactly first items of a list, up to 100 (§8 pagination)', async () => {
    for (const first of [0, 3, 100]) {
      const answer = await gql(s.url, `{ currentUser { accessTokens(first: ${first}) { id } emails(first: ${first}) { email } } }`, {
        headers: auth,
      });
      expect(answer.status).toBe(200);
      const user = (answer.body as { data: { currentUser: { accessTokens: unknown[] } } }).data.currentUser;
      expect(user.accessTokens).toHaveLength(first);
    }
  });

  it.each([
    { ref: 'literal above the maximum', query: '{ currentUser { accessTokens(first: 101) { id } } }', variables: {} },
    { ref: 'literal far above the maximum', query: '{ currentUser { accessTokens(first: 1000000) { id } } }', variables: {} },
    { ref: 'negative literal', query: '{ currentUser { accessTokens(first: -1) { id } } }', variables: {} },
    { ref: 'variable above the maximum', query: 'query ($n: Int) { currentUser { accessTokens(first: $n) { id } } }', variables: { n: 1000 } },
    { ref: 'on auditLog', query: '{ auditLog(first: 500) { id } }', variables: {} },
    { ref: 'on a nested scalar list', query: '{ currentUser { accessTokens { scopes(first: 101) } } }', variables: {} },
  ])('should refuse first above 100 with HTTP 400 and say why, before anything runs (§8: $ref)', async ({ query, variables }) => {
    const answer = await gql(s.url, query, { headers: auth, variables });
    expect(answer.status).toBe(400);
    const [error] = errorsOf(answer.body);
    expect(error?.extensions).toMatchObject({ code: 'QUERY_COST_ANALYSIS_FAILED', reason: 'page_size_out_of_range' });
    expect(error?.message).toMatch(/first on "\w+" must be from 0 to 100/);
  });

  it('should refuse a 101st access token with quota_exceeded and store nothing (§2.3)', async () => {
    const bob = await s.user('bob');
    let bobToken = '';
    for (let i = 0; i < 100; i++) bobToken = (await s.token(bob)).token;
    expect(await flatStoreOf(s.gatehouse.store).listAccessTokens(bob.id)).toHaveLength(100);
    const answer = await gql(s.url, 'mutation { createAccessToken(scopes: ["user:all"], note: "one too many") { id } }', {
      headers: { authorization: `token ${bobToken}` },
    });
    expect(answer.body).toMatchObject({ data: null });
    expect(errorsOf(answer.body)[0]?.extensions).toStrictEqual({ code: 'QUOTA_EXCEEDED', reason: 'quota_exceeded', limit: 100 });
    // A site administrator creating one for bob meets the same quota.
    const admin = await s.user('root', true);
    const asAdmin = await s.gatehouse.createAccessToken(admin, bob.id, ['user:all'], 'for bob');
    expect(asAdmin).toStrictEqual({ error: expect.stringContaining('100 access tokens') });
    expect(await flatStoreOf(s.gatehouse.store).listAccessTokens(bob.id)).toHaveLength(100);
  });

  it('should refuse a note longer than 256 characters and store nothing (§2.3)', async () => {
    const carol = await s.user('carol');
    const carolAuth = { authorization: `token ${(await s.token(carol)).token}` };
    const before = (await flatStoreOf(s.gatehouse.store).listAccessTokens(carol.id)).length;
    const long = await gql(s.url, 'mutation ($n: String!) { createAccessToken(scopes: ["user:all"], note: $n) { id } }', {
      headers: carolAuth,
      variables: { n: 'x'.repeat(257) },
    });
    expect(errorsOf(long.body)[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'note', maxLength: 256 });
    expect(await flatStoreOf(s.gatehouse.store).listAccessTokens(carol.id)).toHaveLength(before);
    const exact = await gql(s.url, 'mutation ($n: String!) { createAccessToken(scopes: ["user:all"], note: $n) { note } }', {
      headers: carolAuth,
      variables: { n: '😀'.repeat(256) },
    });
    expect(exact.body).toMatchObject({ data: { createAccessToken: { note: '😀'.repeat(256) } } });
  });

  it('should refuse overlong string arguments with BAD_USER_INPUT (search query, email)', async () => {
    const search = await gql(s.url, 'query ($q: String!) { search(query: $q) { results { matchCount } } }', {
      headers: auth,
      variables: { q: 'q'.repeat(1001) },
    });
    expect(errorsOf(search.body)[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'query', maxLength: 1000 });
  });
});

describe('§8 graphQLMaxFieldCount counts each list at its page size (a tight limit)', () => {
  let s: TestServer;
  let auth: Record<string, string>;

  beforeAll(async () => {
    s = await startServer({ siteConfiguration: '{ "rateLimits": { "graphQLMaxFieldCount": 4000 } }' });
    const alice = await s.user('alice');
    auth = { authorization: `token ${(await s.token(alice)).token}` };
    await fillTokens(s, alice, STORED_TOKENS);
  });
  afterAll(async () => {
    await s.close();
  });

  it('should refuse the aliased accessTokens query with HTTP 400: a list without first counts 20 (§8)', async () => {
    // 200 × (currentUser + accessTokens + 20 notes) = 4400 > 4000; counting each list once said 600.
    const answer = await gql(s.url, aliasedTokens(ALIASES), { headers: auth });
    expect(answer.status).toBe(400);
    expect(errorsOf(answer.body)).toStrictEqual([
      expect.objectContaining({
        message: 'Query exceeds maximum field count limit',
        extensions: { code: 'QUERY_COST_LIMIT_EXCEEDED', limit: 4000, actual: 4400 },
      }),
    ]);
    expect(answer.text.length).toBeLessThan(1000);
  });

  it('should count first: $var at the variable value (§8)', async () => {
    const query = aliasedTokens(38, 'accessTokens(first: $n) { note }', 'query ($n: Int) ');
    // 38 × (2 + 100) = 3876 ≤ 4000 passes; 38 × (2 + 101) is never reached: 101 is out of range.
    expect((await gql(s.url, query, { headers: auth, variables: { n: 100 } })).status).toBe(200);
    const over = aliasedTokens(40, 'accessTokens(first: $n) { note }', 'query ($n: Int) ');
    // 40 × (2 + 100) = 4080 > 4000, while 40 × (2 + 20) = 880 would pass if the variable were not read.
    const answer = await gql(s.url, over, { headers: auth, variables: { n: 100 } });
    expect(answer.status).toBe(400);
    expect(errorsOf(answer.body)[0]?.extensions).toStrictEqual({ code: 'QUERY_COST_LIMIT_EXCEEDED', limit: 4000, actual: 4080 });
  });
});
