/**
 * `search` (spec §2.2) needs a signed-in viewer unless the site configuration sets `"auth.public": true`, and one
 * operation selects at most 5 `search` fields (configurable), counted before anything runs. Against a real server
 * on 127.0.0.1, with a search that counts its calls.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SearchFunction } from '../../src/index.js';
import { gql, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const SEARCH = '{ search(query: "secret") { results { matchCount } } }';

/** A search that answers 1 match and counts how often it ran. */
function countingSearch(): { readonly search: SearchFunction; calls: number } {
  const counter = {
    calls: 0,
    search: async (): Promise<{ readonly matchCount: number }> => {
      counter.calls += 1;
      return { matchCount: 1 };
    },
  };
  return counter;
}

function aliasedSearches(count: number): string {
  return `{ ${Array.from({ length: count }, (_, i) => `s${i}: search(query: "q${i}") { results { matchCount } }`).join(' ')} }`;
}

function errorsOf(body: unknown): readonly { message: string; extensions?: Record<string, unknown> }[] {
  return (body as { errors?: { message: string; extensions?: Record<string, unknown> }[] } | null)?.errors ?? [];
}

describe('§2.2 search needs a signed-in viewer by default', () => {
  let s: TestServer;
  const counter = countingSearch();
  let auth: Record<string, string>;

  beforeAll(async () => {
    s = await startServer({ search: counter.search, siteConfiguration: '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }' });
    auth = { authorization: `token ${(await s.token(await s.user('alice'))).token}` };
  });
  beforeEach(() => {
    counter.calls = 0;
  });
  afterAll(async () => {
    await s.close();
  });

  it('should refuse an anonymous search with UNAUTHENTICATED and never run it (§2.2)', async () => {
    const answer = await gql(s.url, SEARCH);
    expect(answer.body).toMatchObject({ data: { search: null } });
    expect(errorsOf(answer.body)).toStrictEqual([expect.objectContaining({ extensions: { code: 'UNAUTHENTICATED' } })]);
    expect(errorsOf(answer.body)[0]?.message).toMatch(/Sign in/);
    expect(counter.calls).toBe(0);
  });

  it('should refuse a search sent with an unsupported Authorization scheme, which is ignored (§2.2, §5.1 rule 4)', async () => {
    const answer = await gql(s.url, SEARCH, { headers: { authorization: 'Basic YTpi' } });
    expect(answer.body).toMatchObject({ data: { search: null } });
    expect(counter.calls).toBe(0);
  });

  it('should answer a signed-in viewer (§2.2)', async () => {
    const answer = await gql(s.url, SEARCH, { headers: auth });
    expect(answer.body).toStrictEqual({ data: { search: { results: { matchCount: 1 } } } });
    expect(counter.calls).toBe(1);
  });

  it('should run one search per search field, however often its results are selected (§2.2: no way around the 5-field bound)', async () => {
    const results = Array.from({ length: 50 }, (_, i) => `r${i}: results { matchCount }`).join(' ');
    const answer = await gql(s.url, `{ search(query: "secret") { ${results} } }`, { headers: auth });
    expect(answer.status).toBe(200);
    expect((answer.body as { data: { search: Record<string, unknown> } }).data.search['r49']).toStrictEqual({ matchCount: 1 });
    expect(counter.calls).toBe(1);
  });

  it('should answer 5 aliased searches and refuse 6 with HTTP 400 before any runs (§2.2)', async () => {
    const five = await gql(s.url, aliasedSearches(5), { headers: auth });
    expect(five.status).toBe(200);
    expect(counter.calls).toBe(5);
    counter.calls = 0;
    const six = await gql(s.url, aliasedSearches(6), { headers: auth });
    expect(six.status).toBe(400);
    expect(errorsOf(six.body)).toStrictEqual([
      expect.objectContaining({
        message: 'Query exceeds maximum search field count limit',
        extensions: { code: 'QUERY_COST_LIMIT_EXCEEDED', limit: 5, actual: 6 },
      }),
    ]);
    expect(counter.calls).toBe(0);
  });

  it('should count searches in fragments once per spread (§2.2)', async () => {
    const query = '{ ...F ...F } fragment F on Query { a: search(query: "a") { results { matchCount } } b: search(query: "b") { results { matchCount } } c: search(query: "c") { results { matchCount } } }';
    const answer = await gql(s.url, query, { headers: auth });
    expect(answer.status).toBe(400);
    expect(errorsOf(answer.body)[0]?.extensions).toStrictEqual({ code: 'QUERY_COST_LIMIT_EXCEEDED', limit: 5, actual: 6 });
    expect(counter.calls).toBe(0);
  });

  it('should refuse 500 aliased anonymous searches with HTTP 400, never walking the corpus (§2.2)', async () => {
    const answer = await gql(s.url, aliasedSearches(500));
    expect(answer.status).toBe(400);
    expect(counter.calls).toBe(0);
  });
});

describe('§2.2 search with "auth.public": true and a configured search field limit', () => {
  let s: TestServer;
  const counter = countingSearch();

  beforeAll(async () => {
    s = await startServer({ search: counter.search, siteConfiguration: '{ "auth.public": true }', maxSearchFields: 2 });
  });
  beforeEach(() => {
    counter.calls = 0;
  });
  afterAll(async () => {
    await s.close();
  });

  it('should answer an anonymous search when the site is public (§2.2)', async () => {
    const answer = await gql(s.url, SEARCH);
    expect(answer.body).toStrictEqual({ data: { search: { results: { matchCount: 1 } } } });
    expect(counter.calls).toBe(1);
  });

  it('should apply maxSearchFields: 2 passes, 3 is HTTP 400 (§2.2)', async () => {
    expect((await gql(s.url, aliasedSearches(2))).status).toBe(200);
    const three = await gql(s.url, aliasedSearches(3));
    expect(three.status).toBe(400);
    expect(errorsOf(three.body)[0]?.extensions).toStrictEqual({ code: 'QUERY_COST_LIMIT_EXCEEDED', limit: 2, actual: 3 });
    expect(counter.calls).toBe(2);
  });
});
