/**
 * Query documents over gatehouse's schema in the shapes of the query-cost bench (bench/query-cost.bench.ts): nested,
 * aliased, fragment-heavy and list fan-out; a schema built once for the list fields the endpoint derives from it;
 * and a fast-check generator of valid documents (every field with arguments under a unique alias, so that no two
 * selections conflict in validation).
 */
import fc from 'fast-check';
import { err } from 'neverthrow';
import { parse } from 'graphql';
import { explainQueryCost } from '../../../../src/core/query-cost/explain.js';
import type { QueryLimits } from '../../../../src/core/query-cost/limits.js';
import type { ListFields } from '../../../../src/core/query-cost/analyze.js';
import type { QueryCostExplanation } from '../../../../src/core/query-cost/explain.js';
import { listFieldsOfSchema } from '../../src/api/list-fields.js';
import { createGatehouseSchema } from '../../src/api/schema.js';
import { createMemoryStore } from '../../src/store/memory/store.js';

/** The list fields of gatehouse's schema, as the endpoint derives them. */
export const GATEHOUSE_LIST_FIELDS: ListFields = listFieldsOfSchema(
  createGatehouseSchema({
    store: createMemoryStore(),
    now: () => 0,
    randomBytes: (n) => new Uint8Array(n),
    search: async () => ({ matchCount: 0 }),
    audit: async () => undefined,
    registerOAuthApp: async () => err({ code: 'unused', message: 'unused' }),
  }),
).listFields;

/** Bench-style documents, by shape. */
export const COST_DOCUMENTS: readonly { readonly shape: string; readonly query: string; readonly variables?: Record<string, unknown> }[] = [
  { shape: 'nested', query: '{ currentUser { username emails { email verified } accessTokens(first: 5) { id note scopes(first: 3) } } }' },
  { shape: 'aliased', query: '{ a: currentUser { username } b: currentUser { u: username n: id } c: currentUser { siteAdmin } }' },
  {
    shape: 'fragment-heavy',
    query: `query Dashboard($n: Int = 7) { currentUser { ...U accessTokens(first: $n) { ...T } externalAccounts { ...E } } }
fragment U on User { id username ...V }
fragment V on User { siteAdmin serviceAccount createdAt }
fragment T on AccessToken { id note scopes createdAt }
fragment E on ExternalAccount { serviceType serviceId accountId }`,
  },
  {
    shape: 'list fan-out',
    query: '{ currentUser { accessTokens(first: 100) { id scopes(first: 100) } externalAccounts(first: 50) { serviceType } emails(first: 10) { email } } }',
  },
  { shape: 'variables', query: 'query Q($first: Int) { currentUser { accessTokens(first: $first) { id } } }', variables: { first: 42 } },
];

/** The five measures and the list breakdown the core answers for a document (what `extensions.cost` must hold). */
export function expectedMeasures(query: string, limits: QueryLimits, variables: Record<string, unknown> | null = null): Omit<QueryCostExplanation, 'exceeded'> {
  const { exceeded: _exceeded, ...measures } = explainQueryCost(parse(query), { variables, listFields: GATEHOUSE_LIST_FIELDS }, limits)._unsafeUnwrap();
  return measures;
}

const userLeaf = fc.constantFrom('id', 'username', 'siteAdmin', 'serviceAccount', 'createdAt', '__typename');
const tokenLeaf = fc.constantFrom('id', 'note', 'createdAt', '__typename');
const page = fc.option(fc.integer({ min: 0, max: 100 }), { nil: null });

let aliasCounter = 0;
const unique = (base: string): string => `${base}${aliasCounter++}`;
const withFirst = (first: number | null): string => (first === null ? '' : `(first: ${first})`);

const userSelection: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(userLeaf, fc.boolean()).map(([leaf, aliased]) => (aliased ? `${unique('l')}: ${leaf}` : leaf)),
  fc.tuple(page, fc.array(tokenLeaf, { minLength: 1, maxLength: 4 }), page).map(
    ([first, leaves, scopes]) => `${unique('t')}: accessTokens${withFirst(first)} { ${leaves.join(' ')} ${unique('s')}: scopes${withFirst(scopes)} }`,
  ),
  page.map((first) => `${unique('e')}: emails${withFirst(first)} { email verified }`),
  fc.array(userLeaf, { minLength: 1, maxLength: 3 }).map((leaves) => `... on User { ${leaves.join(' ')} }`),
  fc.constant('...UserBasics'),
);

/** Valid documents over gatehouse's schema: aliased `currentUser` fields with fields, lists, inline fragments and a named fragment. */
export const gatehouseDocument: fc.Arbitrary<string> = fc
  .array(fc.array(userSelection, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 3 })
  .map((users) => {
    const body = users.map((selections) => `${unique('u')}: currentUser { ${selections.join(' ')} }`).join(' ');
    return body.includes('...UserBasics') ? `{ ${body} } fragment UserBasics on User { id username emails { email } }` : `{ ${body} }`;
  });
