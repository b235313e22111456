/**
 * `gatehouse api -explain-cost`: sends `X-Gatehouse-Cost: dry-run`, prints the five measures of spec §8 (and the
 * token count) beside their limits as a table, exits 0 within the limits and 2 over one; the query never runs.
 */
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUERY_LIMITS } from '../../../../src/core/query-cost/limits.js';
import { formatCostTable } from '../../src/cli/explain-cost.js';
import { runCli } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/main.js';
import { COST_DOCUMENTS, expectedMeasures } from '../helpers/cost-documents.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

async function cli(argv: string[], env: Record<string, string>): Promise<{ status: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const io: CliIo = {
    env,
    stdin: Readable.from([], { objectMode: true }),
    stdout: { write: (chunk) => (out.stdout += chunk) },
    stderr: { write: (chunk) => (out.stderr += chunk) },
    readFile: async () => {
      throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    },
    homedir: () => '/home/tester',
  };
  const status = await runCli(argv, io);
  return { status, ...out };
}

/** The rows of the printed measures table: name → [value, limit]. */
function printedMeasures(stdout: string): Record<string, [number, number]> {
  const rows: Record<string, [number, number]> = {};
  for (const line of stdout.split('\n')) {
    const match = /^(depth|fieldCount|aliases|duplicateFieldCount|uniqueFieldCount|tokenCount)\s+([\d,]+)\s+([\d,]+)\s/u.exec(line);
    if (match !== null) rows[match[1] ?? ''] = [Number((match[2] ?? '').replace(/,/g, '')), Number((match[3] ?? '').replace(/,/g, ''))];
  }
  return rows;
}

function analyzerMeasures(query: string, limits = DEFAULT_QUERY_LIMITS, variables: Record<string, unknown> | null = null): Record<string, [number, number]> {
  const m = expectedMeasures(query, limits, variables);
  return {
    depth: [m.depth.value, m.depth.limit],
    fieldCount: [m.fieldCount.value, m.fieldCount.limit],
    aliases: [m.aliases.value, m.aliases.limit],
    duplicateFieldCount: [m.duplicateFieldCount.value, m.duplicateFieldCount.limit],
    uniqueFieldCount: [m.uniqueFieldCount.value, m.uniqueFieldCount.limit],
  };
}

describe('gatehouse api -explain-cost', () => {
  let server: TestServer;
  let strict: TestServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startServer();
    strict = await startServer({ siteConfiguration: '{ "rateLimits": { "graphQLMaxAliases": 2 } }' });
    const alice = await server.user('alice');
    env = { SRC_ENDPOINT: server.url, SRC_ACCESS_TOKEN: (await server.token(alice)).token };
  });
  afterAll(async () => {
    await server.close();
    await strict.close();
  });

  it.each(COST_DOCUMENTS)('should print the measures the analyzer gives and exit 0: $shape', async ({ query, variables }) => {
    const result = await cli(['api', '-explain-cost', '-query', query, ...(variables === undefined ? [] : ['-vars', JSON.stringify(variables)])], env);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const { tokenCount, ...printed } = printedMeasures(result.stdout);
    expect(printed).toEqual(analyzerMeasures(query, DEFAULT_QUERY_LIMITS, variables ?? null));
    expect(tokenCount?.[1]).toBe(10_000);
    expect(result.stdout).toContain('within every limit (not executed)');
  });

  it('should show how first bounded each list field', async () => {
    const query = COST_DOCUMENTS.find((d) => d.shape === 'list fan-out')?.query ?? '';
    const result = await cli(['api', '-explain-cost', '-query', query], env);
    expect(result.stdout).toMatch(/currentUser\.accessTokens\.scopes\s+100\s+first\s+100\s+10,000/u);
    expect(result.stdout).toMatch(/currentUser\.externalAccounts\s+50\s+first\s+100\s+50/u);
  });

  it('should not run the query: a mutation creates no token', async () => {
    const mutation = 'mutation { createAccessToken(scopes: ["user:all"], note: "explained") { id } }';
    const list = ['api', '-query', '{ currentUser { accessTokens(first: 100) { id } } }'];
    const count = async () => (JSON.parse((await cli(list, env)).stdout) as { data: { currentUser: { accessTokens: unknown[] } } }).data.currentUser.accessTokens.length;
    const before = await count();
    expect((await cli(['api', '-explain-cost', '-query', mutation], env)).status).toBe(0);
    expect(await count()).toBe(before);
  });

  it('should exit 2 and mark the exceeded limit when the server would refuse the query', async () => {
    const query = COST_DOCUMENTS.find((d) => d.shape === 'aliased')?.query ?? '';
    const result = await cli(['api', '-explain-cost', '-query', query], { SRC_ENDPOINT: strict.url });
    expect(result.status).toBe(2);
    expect(printedMeasures(result.stdout)['aliases']).toEqual([5, 2]);
    expect(result.stdout).toMatch(/^aliases\s+5\s+2\s+graphQLMaxAliases\s+EXCEEDED$/mu);
    expect(result.stdout).toContain('exceeds a limit');
  });

  it('should put the header in the curl command of -get-curl', async () => {
    const result = await cli(['api', '-explain-cost', '-get-curl', '-query', '{ currentUser { username } }'], env);
    expect(result.stdout).toContain('X-Gatehouse-Cost: dry-run');
  });

  it('should print nothing as a table for an answer without a cost', () => {
    expect(formatCostTable({ data: {} })).toBeNull();
    expect(formatCostTable({ extensions: { cost: { depth: { value: 'x' } } } })).toBeNull();
  });
});
