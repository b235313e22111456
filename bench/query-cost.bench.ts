/**
 * Query cost analysis: gatehouse's `analyzeQueryCost` against graphql-js `parse` of the same text and the
 * peers graphql-armor max-depth / max-aliases / cost-limit, graphql-depth-limit and graphql-query-complexity, on one
 * corpus, in one process. Each (case, implementation) runs in its own worker thread with a hard timeout, so a peer
 * that loops or overflows the stack is reported as `timeout` or `crash` instead of hanging the bench; each answer is
 * checked (accepts / rejects the query) before it is timed.
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { createComplexityRule, simpleEstimator } from 'graphql-query-complexity';
import type { ComplexityEstimator } from 'graphql-query-complexity';
import { buildSchema, GraphQLError, parse, validate } from 'graphql';
import type { DocumentNode, ValidationContext, ValidationRule } from 'graphql';
import { analyzeQueryCost, checkQueryCost } from '../src/core/query-cost/analyze.js';
import type { QueryCost, QueryCostError } from '../src/core/query-cost/analyze.js';
import { queryCostRule } from '../src/core/query-cost/rule.js';
import { formatNs, measure, printTable } from './harness.js';
import type { Measurement } from './harness.js';

// graphql-depth-limit ships no types: its documented call is `depthLimit(maxDepth)`, a validation rule.
const depthLimit: (maxDepth: number) => ValidationRule = createRequire(import.meta.url)('graphql-depth-limit');

const BENCH = 'query-cost';
const HARD_TIMEOUT_MS = 30_000;

const schema = buildSchema(`
  type Query {
    currentUser: User
    a: Node
    name: String
    nodes(first: Int, last: Int): [Node!]!
    search(query: String!): SearchResults
  }
  type Node { id: ID! name: String a: Node children(first: Int, last: Int): [Node!]! }
  type User {
    id: ID! username: String! displayName: String email: String avatarURL: String createdAt: String
    repositories(first: Int, last: Int): RepositoryConnection!
    organizations(first: Int): OrgConnection!
  }
  type RepositoryConnection { totalCount: Int! nodes: [Repository!]! pageInfo: PageInfo! }
  type Repository {
    id: ID! name: String! url: String! description: String stars: Int! isPrivate: Boolean!
    commits(first: Int): CommitConnection!
  }
  type CommitConnection { totalCount: Int! nodes: [Commit!]! }
  type Commit { oid: String! message: String! author: User }
  type PageInfo { hasNextPage: Boolean! endCursor: String }
  type OrgConnection { nodes: [Org!]! }
  type Org { id: ID! name: String! displayName: String }
  type SearchResults { matchCount: Int! results: [Repository!]! }
`);

/** 40 fields, two named fragments, pagination by literal and by variable default. */
const NORMAL = `query Dashboard($first: Int = 20) {
  currentUser {
    ...UserFields
    repositories(first: $first) {
      totalCount
      pageInfo { hasNextPage endCursor }
      nodes { ...RepoFields commits(first: 5) { totalCount nodes { oid message author { username } } } }
    }
    organizations(first: 10) { nodes { id name displayName } }
  }
  search(query: "repo:gatehouse") { matchCount results { ...RepoFields } }
}
fragment UserFields on User { id username displayName email avatarURL createdAt }
fragment RepoFields on Repository { id name url description stars isPrivate }`;

const MEGABYTE_UNIT = 'a { id name } ';
const MEGABYTE_UNITS = Math.ceil(1_000_000 / MEGABYTE_UNIT.length);

function oneMegabyte(): string {
  return `{ ${MEGABYTE_UNIT.repeat(MEGABYTE_UNITS)}}`;
}

function fanOut(): string {
  let text = '{ a { ...F20 } }\nfragment F0 on Node { id name }\n';
  for (let i = 1; i <= 20; i++) text += `fragment F${i} on Node { ...F${i - 1} ...F${i - 1} }\n`;
  return text;
}

type Verdict = 'accept' | 'reject';
type Expect = Verdict | 'either';

/** What `analyzeQueryCost` must answer on a case, worked out by hand (the answer is checked, not only timed). */
type Analysis = { readonly ok: QueryCost } | { readonly err: QueryCostError };

const costs = (depth: number, fieldCount: number, aliasCount: number, highestDuplicateFieldCount: number, uniqueFieldCount: number): Analysis => ({
  ok: { depth, fieldCount, aliasCount, highestDuplicateFieldCount, uniqueFieldCount },
});

interface Case {
  readonly name: string;
  readonly text: () => string;
  /** The exact costs (or error) gatehouse must find. */
  readonly analysis: Analysis;
  /** The right answer per implementation, by what that implementation claims to measure. */
  readonly expected: Readonly<Record<ImplName, Expect>>;
}

const IMPLS = [
  'gatehouse analyzeQueryCost',
  'graphql-js parse',
  'graphql-js validate, no rules (overhead every rule pays)',
  'gatehouse queryCostRule (validate)',
  'graphql-armor max-depth (validate)',
  'graphql-depth-limit (validate)',
  'graphql-armor max-aliases (validate)',
  'graphql-armor cost-limit (validate)',
  'graphql-query-complexity (validate)',
] as const;
type ImplName = (typeof IMPLS)[number];

const row = (
  ours: Expect,
  depth: Expect,
  aliases: Expect,
  cost: Expect,
  complexity: Expect,
): Readonly<Record<ImplName, Expect>> => ({
  'gatehouse analyzeQueryCost': ours,
  'graphql-js parse': 'either',
  'graphql-js validate, no rules (overhead every rule pays)': 'either',
  'gatehouse queryCostRule (validate)': ours,
  'graphql-armor max-depth (validate)': depth,
  'graphql-depth-limit (validate)': depth,
  'graphql-armor max-aliases (validate)': aliases,
  'graphql-armor cost-limit (validate)': cost,
  'graphql-query-complexity (validate)': complexity,
});

const CASES: readonly Case[] = [
  { name: 'normal 40-field query with fragments and pagination', text: () => NORMAL, analysis: costs(7, 898, 0, 4, 26), expected: row('accept', 'accept', 'accept', 'accept', 'accept') },
  { name: 'nesting 1,000 deep', text: () => `${'{ a '.repeat(1000)}{ id }${' }'.repeat(1000)}`, analysis: costs(1001, 1001, 0, 1000, 2), expected: row('reject', 'reject', 'accept', 'reject', 'accept') },
  { name: '10,000 aliases', text: () => `{ ${Array.from({ length: 10_000 }, (_, i) => `a${i}: name`).join(' ')} }`, analysis: costs(1, 10_000, 10_000, 10_000, 1), expected: row('reject', 'accept', 'reject', 'reject', 'either') },
  { name: '10,000 __typename', text: () => `{ ${'__typename '.repeat(10_000)}}`, analysis: costs(1, 10_000, 0, 10_000, 1), expected: row('reject', 'accept', 'accept', 'either', 'either') },
  { name: '1 MB of repeated fields', text: oneMegabyte, analysis: costs(2, 3 * MEGABYTE_UNITS, 0, MEGABYTE_UNITS, 3), expected: row('reject', 'accept', 'accept', 'reject', 'either') },
  { name: 'fragment fan-out (2^20 uses)', text: fanOut, analysis: costs(2, 1 + 2 ** 21, 0, 2 ** 20, 3), expected: row('reject', 'accept', 'accept', 'reject', 'reject') },
  {
    name: 'two-fragment cycle',
    text: () => '{ a { ...A } }\nfragment A on Node { a { ...B } }\nfragment B on Node { a { ...A } }',
    analysis: { err: { code: 'fragment_cycle', fragmentName: 'A' } },
    expected: row('reject', 'reject', 'either', 'reject', 'reject'),
  },
  { name: 'self-spreading fragment', text: () => '{ a { ...F } }\nfragment F on Node { id ...F }', analysis: { err: { code: 'fragment_cycle', fragmentName: 'F' } }, expected: row('reject', 'reject', 'either', 'reject', 'reject') },
  {
    name: 'pagination product beyond 64 bits',
    text: () => '{ nodes(first: 2147483647) { children(first: 2147483647) { children(first: 2147483647) { id } } } }',
    analysis: costs(4, Number.MAX_SAFE_INTEGER, 0, 2, 3),
    expected: row('reject', 'accept', 'accept', 'either', 'reject'),
  },
];

/** graphql-query-complexity's README pattern: multiply the child complexity by `first`/`last`. */
const paginationEstimator: ComplexityEstimator = ({ args, childComplexity }) => {
  const first: unknown = args['first'];
  const last: unknown = args['last'];
  const n = Math.max(typeof first === 'number' ? first : 0, typeof last === 'number' ? last : 0);
  return n > 0 ? 1 + n * childComplexity : undefined;
};

const armorReport = { propagateOnRejection: false, onReject: [(ctx: ValidationContext | null, error: GraphQLError) => ctx?.reportError(error)] };

function ruleOf(impl: ImplName): ValidationRule | null {
  switch (impl) {
    case 'gatehouse queryCostRule (validate)':
      return queryCostRule();
    case 'graphql-armor max-depth (validate)':
      return maxDepthRule({ n: 30, ...armorReport });
    case 'graphql-depth-limit (validate)':
      return depthLimit(30);
    case 'graphql-armor max-aliases (validate)':
      return maxAliasesRule({ n: 500, ...armorReport });
    case 'graphql-armor cost-limit (validate)':
      return costLimitRule({ ...armorReport });
    case 'graphql-query-complexity (validate)':
      return createComplexityRule({ maximumComplexity: 500_000, estimators: [paginationEstimator, simpleEstimator({ defaultComplexity: 1 })] });
    default:
      return null;
  }
}

/** One call of `impl` on the case, returning its verdict (`null` for parse, which has none). */
function callOf(impl: ImplName, text: string, document: DocumentNode): () => Verdict | null {
  if (impl === 'graphql-js parse') return () => (parse(text) === null ? 'reject' : null);
  if (impl === 'graphql-js validate, no rules (overhead every rule pays)') return () => (validate(schema, document, []).length > 0 ? 'reject' : null);
  if (impl === 'gatehouse analyzeQueryCost') {
    return () => (analyzeQueryCost(document).andThen((cost) => checkQueryCost(cost)).isOk() ? 'accept' : 'reject');
  }
  const rule = ruleOf(impl);
  if (rule === null) throw new Error(`no rule for ${impl}`);
  // graphql-query-complexity throws its node-limit GraphQLError out of validate(): that is a rejection too.
  return () => {
    try {
      return validate(schema, document, [rule]).length === 0 ? 'accept' : 'reject';
    } catch (error) {
      if (error instanceof GraphQLError) return 'reject';
      throw error;
    }
  };
}

/** A probe: one call, its verdict and its wall time. */
interface ProbeResult {
  readonly verdict: Verdict | null;
  readonly ms: number;
  /** For gatehouse's analyzer: whether its costs (or error) equal the case's hand-worked answer. */
  readonly exact?: boolean;
}

type WorkerTask =
  | { readonly bench: typeof BENCH; readonly mode: 'probe'; readonly caseIndex: number; readonly impl: ImplName }
  | { readonly bench: typeof BENCH; readonly mode: 'measure'; readonly caseIndex: number; readonly impls: readonly ImplName[] };

function prepare(caseIndex: number): { readonly text: string; readonly document: DocumentNode } {
  const c = CASES[caseIndex];
  if (c === undefined) throw new Error('no such case');
  const text = c.text();
  return { text, document: parse(text) };
}

/**
 * Worker side. A probe runs one call (the verdict). A measurement times every implementation that passed its probe
 * round-robin (one `measure` sample each per round), so that the machine's load, shared with other work, falls on
 * every implementation alike; the median over rounds is reported.
 */
function runInWorker(task: WorkerTask): void {
  console.error = () => undefined; // graphql-depth-limit logs what it throws
  const { text, document } = prepare(task.caseIndex);
  if (task.mode === 'probe') {
    const call = callOf(task.impl, text, document);
    const t0 = performance.now();
    const verdict = call();
    const ms = performance.now() - t0;
    const c = CASES[task.caseIndex];
    const analysis = analyzeQueryCost(document).match(
      (ok): Analysis => ({ ok }),
      (e): Analysis => ({ err: e }),
    );
    const exact = task.impl === 'gatehouse analyzeQueryCost' ? JSON.stringify(analysis) === JSON.stringify(c?.analysis) : undefined;
    const result: ProbeResult = exact === undefined ? { verdict, ms } : { verdict, ms, exact };
    parentPort?.postMessage(result);
    return;
  }
  const calls = task.impls.map((impl) => callOf(impl, text, document));
  const samples: number[][] = calls.map(() => []);
  const started = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    calls.forEach((call, i) => samples[i]?.push(measure(call, { samples: 1, minBatchMs: 10, timeoutMs: 2_000 })));
    if (round >= 2 && performance.now() - started > MEASURE_BUDGET_MS) break;
  }
  const medians = samples.map((list) => {
    const sorted = [...list].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  });
  parentPort?.postMessage(medians);
}

type Outcome<T> = { readonly kind: 'done'; readonly result: T } | { readonly kind: 'timeout' } | { readonly kind: 'crash'; readonly reason: string };

function spawn<T>(task: WorkerTask, timeoutMs: number): Promise<Outcome<T>> {
  const api = import.meta.resolve('tsx/esm/api');
  const code = `(async () => { const { register } = await import(${JSON.stringify(api)}); register(); await import(${JSON.stringify(import.meta.url)}); })()`;
  return new Promise((resolve) => {
    const worker = new Worker(code, { eval: true, workerData: task, resourceLimits: { maxOldGenerationSizeMb: 2048 } });
    let settled = false;
    const settle = (outcome: Outcome<T>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(outcome);
    };
    const timer = setTimeout(() => settle({ kind: 'timeout' }), timeoutMs);
    worker.on('message', (result: T) => settle({ kind: 'done', result }));
    worker.on('error', (error: Error) => settle({ kind: 'crash', reason: `${error.name}: ${error.message}`.slice(0, 80) }));
    worker.on('exit', (code) => settle({ kind: 'crash', reason: `exit ${code}` }));
  });
}

const ROUNDS = 45;
const MEASURE_BUDGET_MS = 20_000;
/** A peer slower than this per call is reported with its single probe time rather than timed in rounds. */
const SLOW_MS = 1_000;

export async function run(): Promise<void> {
  console.log('\n# query cost analysis ');
  console.log(
    `Each case: every implementation is first probed once in its own worker thread (hard timeout ${HARD_TIMEOUT_MS / 1000} s; ` +
      'its accept/reject answer is checked), then those that answered are timed round-robin in one worker; median per call.',
  );
  const summary: string[] = [];
  for (const [caseIndex, c] of CASES.entries()) {
    const verdicts = new Map<ImplName, ProbeResult>();
    const failures = new Map<ImplName, string>();
    for (const impl of IMPLS) {
      const outcome = await spawn<ProbeResult>({ bench: BENCH, mode: 'probe', caseIndex, impl }, HARD_TIMEOUT_MS);
      if (outcome.kind === 'done') verdicts.set(impl, outcome.result);
      else failures.set(impl, outcome.kind === 'timeout' ? `timeout (> ${HARD_TIMEOUT_MS / 1000} s)` : `crash: ${outcome.reason}`);
    }
    const timed = IMPLS.filter((impl) => (verdicts.get(impl)?.ms ?? Number.POSITIVE_INFINITY) < SLOW_MS);
    const measured = await spawn<number[]>({ bench: BENCH, mode: 'measure', caseIndex, impls: timed }, 4 * MEASURE_BUDGET_MS);
    const times = new Map<ImplName, number>();
    if (measured.kind === 'done') timed.forEach((impl, i) => times.set(impl, measured.result[i] ?? Number.NaN));
    const rows: Measurement[] = IMPLS.map((impl): Measurement => {
      const failure = failures.get(impl);
      if (failure !== undefined) return { name: impl, nsPerOp: failure };
      const probe = verdicts.get(impl);
      const expected = c.expected[impl];
      const verdict = probe?.verdict ?? null;
      const wrong = (verdict !== null && expected !== 'either' && verdict !== expected) || probe?.exact === false;
      if (impl === IMPLS[0]) {
        summary.push(
          wrong
            ? `- ${c.name}: gatehouse WRONG (verdict ${String(verdict)}, expected ${expected}; exact costs ${probe?.exact === true ? 'match' : 'DIFFER'})`
            : `- ${c.name}: gatehouse answer checked: ${verdict} with the hand-worked costs ${JSON.stringify(c.analysis)}`,
        );
      }
      const name = impl === IMPLS[0] || verdict === null ? impl : `${impl}: ${verdict}s${wrong ? ' — WRONG ANSWER' : ''}`;
      const ns = times.get(impl);
      if (ns !== undefined) return { name, nsPerOp: ns };
      if (measured.kind !== 'done') return { name, nsPerOp: `measurement ${measured.kind}` };
      return { name, nsPerOp: probe === undefined ? 'no result' : probe.ms * 1e6 };
    });
    printTable(c.name, IMPLS[0], rows);
    const ours = times.get('gatehouse analyzeQueryCost');
    const parsed = times.get('graphql-js parse');
    if (ours === undefined || parsed === undefined) continue;
    if (caseIndex === 0) {
      let fastestName = 'none';
      let fastest = Number.POSITIVE_INFINITY;
      for (const [name, ns] of times) {
        if (name.startsWith('gatehouse') || name.startsWith('graphql-js') || ns >= fastest) continue;
        fastestName = name;
        fastest = ns;
      }
      const ratio = fastest / ours;
      summary.push(
        `- normal query: gatehouse ${formatNs(ours)}, fastest peer ${fastestName} ${formatNs(fastest)}: ${ratio.toFixed(1)}× faster (target ≥ 5×: ${ratio >= 5 ? 'met' : 'NOT met'})`,
      );
      const overhead = times.get('graphql-js validate, no rules (overhead every rule pays)');
      const rule = times.get('gatehouse queryCostRule (validate)');
      if (overhead !== undefined && rule !== undefined) {
        summary.push(
          `- normal query, for context: the peers are validation rules, so each pays validate()'s own traversal (${formatNs(overhead)} with no rules); gatehouse's own rule inside validate() takes ${formatNs(rule)}`,
        );
      }
    } else {
      const ratio = ours / parsed;
      summary.push(
        `- ${c.name}: gatehouse ${formatNs(ours)} = ${ratio.toFixed(2)}× graphql-js parse ${formatNs(parsed)} (target < 2×: ${ratio < 2 ? 'met' : 'NOT met'})`,
      );
    }
  }
  console.log('\n## targets');
  for (const line of summary) console.log(line);
}

function isTask(data: unknown): data is WorkerTask {
  return typeof data === 'object' && data !== null && 'bench' in data && data.bench === BENCH;
}

if (!isMainThread && isTask(workerData)) runInWorker(workerData);
