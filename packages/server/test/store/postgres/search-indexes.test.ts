/**
 * Site admin's user search and every audit-log filter run on an index, never a sequential scan, on both PostgreSQL
 * drivers: the statements the store really sends (recorded from its driver) are explained on tables of 40,000
 * accounts and 40,000 audit entries, analysed, so the planner chooses as it would on a large site. A time range is
 * searched through the index of the entries' spans, and a substring of several words through its longest whole word.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlDriver } from '../../../src/store/postgres/driver.js';
import { applyMigrations } from '../../../src/store/postgres/migrate.js';
import { openNodePostgresDriver } from '../../../src/store/postgres/node-postgres.js';
import { openPgliteDriver } from '../../../src/store/postgres/pglite.js';
import { createPostgresStore } from '../../../src/store/postgres/store.js';
import type { AccountPage, AuditQuery, Store } from '../../../src/store/types.js';
import { postgresServerAvailability, startPostgresCluster } from '../../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../../helpers/postgres-cluster.js';

const ROWS = 40_000;
const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);

/** Seeds accounts with one email each, and audit entries over 400 days: 8 entities, 40 actions (one rare), 1,000 actors. */
const SEED = `
INSERT INTO accounts (username, username_key, origin, site_admin, service_account, password_hash, created_at)
  SELECT 'member-' || g || '-' || md5(g::text), 'member-' || g || '-' || md5(g::text), 'sign_up', false, false, NULL, ${START}
  FROM generate_series(1, ${ROWS}) g;
INSERT INTO account_emails (account_id, position, email, verified, verified_key)
  SELECT id, 0, 'Member' || id || '@Example.com', false, NULL FROM accounts;
INSERT INTO audit_log (timestamp, entity, action, reason, actor_user_id, subject_user_id, impersonated_user_id, details, count, first_at, last_at, coalesce_key)
  SELECT ${START} + g::bigint * ${Math.floor((400 * DAY) / ROWS)}, 'entity_' || (g % 8), CASE WHEN g % 10000 = 7 THEN 'rare_action' ELSE 'action_' || (g % 39) END,
         NULL, (g % 1000)::text, NULL, NULL, CASE WHEN g % 1000 = 777 THEN jsonb_build_object('reference', 'REF' || lpad(g::text, 5, '0')) ELSE '{}'::jsonb END, 1, ${START} + g::bigint * ${Math.floor((400 * DAY) / ROWS)}, ${START} + g::bigint * ${Math.floor((400 * DAY) / ROWS)}, NULL
  FROM generate_series(1, ${ROWS}) g;
ANALYZE;
`;

const SEARCHES: readonly (readonly [string, AccountPage])[] = [
  ['a username substring that matches nothing', { first: 50, query: 'zzzqqq' }],
  ['a username substring that matches one account', { first: 50, query: 'member-31337-' }],
  ['a username substring, on the second page', { first: 50, query: 'member-3133', after: '20000' }],
  ['an exact email address, in other case', { first: 50, query: 'MEMBER777@example.COM' }],
];

const FILTERS: readonly (readonly [string, AuditQuery])[] = [
  ['a rare action', { action: 'rare_action' }],
  ['an entity', { entity: 'entity_3' }],
  ['an actor', { actorUserId: '42' }],
  ['an entity and an action', { entity: 'entity_7', action: 'rare_action' }],
  ['an actor and an action', { actorUserId: '7', action: 'rare_action' }],
  ['a day range', { since: START + 200 * DAY, until: START + 201 * DAY }],
  ['a day range with an entity', { entity: 'entity_5', since: START + 100 * DAY, until: START + 101 * DAY }],
  ['an action, on a later page', { action: 'action_5', before: '20000' }],
  ["a refusal's reference code", { reference: 'REF00777' }],
];

interface Statement {
  readonly text: string;
  readonly params: readonly unknown[];
}

/** The driver, recording every statement run outside a transaction. */
function recording(driver: SqlDriver, log: Statement[]): SqlDriver {
  return {
    ...driver,
    query: async (text, params = []) => {
      log.push({ text, params });
      return driver.query(text, params);
    },
  };
}

/** One plan node: its type, relation, index, index condition and the buffers it touched (with ANALYZE, BUFFERS). */
interface PlanNode {
  readonly type: string;
  readonly relation: string | null;
  readonly index: string | null;
  readonly indexCondition: string | null;
  readonly buffers: number;
}

/** Every plan node, depth first. */
function planNodes(plan: unknown): readonly PlanNode[] {
  if (typeof plan !== 'object' || plan === null) return [];
  const fields = plan as Record<string, unknown>;
  const field = (name: string): string | null => (typeof fields[name] === 'string' ? fields[name] : null);
  const count = (name: string): number => (typeof fields[name] === 'number' ? fields[name] : 0);
  const type = field('Node Type');
  const children = 'Plans' in plan && Array.isArray(plan.Plans) ? plan.Plans.flatMap(planNodes) : [];
  if (type === null) return children;
  const node = {
    type,
    relation: field('Relation Name'),
    index: field('Index Name'),
    indexCondition: field('Index Cond'),
    buffers: count('Shared Hit Blocks') + count('Shared Read Blocks'),
  };
  return [node, ...children];
}

function describeIndexedPaths(name: string, open: () => Promise<SqlDriver>): void {
  describe(name, () => {
    let driver: SqlDriver;
    let store: Store;
    const log: Statement[] = [];
    beforeAll(async () => {
      driver = await open();
      expect((await applyMigrations(driver)).isOk()).toBe(true);
      await driver.exec(SEED);
      store = createPostgresStore(recording(driver, log));
    }, 300_000);
    afterAll(async () => {
      await driver?.close();
    });

    /** The plan of a statement (`options` as EXPLAIN takes them). */
    async function plan(statement: Statement, options = 'FORMAT JSON'): Promise<readonly PlanNode[]> {
      const [row] = await driver.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (${options}) ${statement.text}`, statement.params);
      const json: unknown = row?.['QUERY PLAN'];
      const parsed: unknown = typeof json === 'string' ? JSON.parse(json) : json;
      const top = Array.isArray(parsed) ? (parsed[0] as { Plan?: unknown } | undefined)?.Plan : undefined;
      return planNodes(top);
    }

    /** The one statement `run` sends, and what `run` answered. */
    async function recorded<T>(run: () => Promise<T>): Promise<{ readonly statement: Statement; readonly answer: T }> {
      log.length = 0;
      const answer = await run();
      expect(log).toHaveLength(1);
      const [statement] = log;
      if (statement === undefined) throw new Error('no statement');
      return { statement, answer };
    }

    /** The plan of the one statement `run` sends, and what `run` answered. */
    async function explained<T>(run: () => Promise<T>): Promise<{ readonly nodes: readonly PlanNode[]; readonly answer: T }> {
      const { statement, answer } = await recorded(run);
      return { nodes: await plan(statement), answer };
    }

    it.each(SEARCHES)('should search users by %s on an index, never a sequential scan', async (_, page) => {
      const { nodes, answer } = await explained(() => store.accounts.list(page));
      expect(nodes.filter((n) => n.type === 'Seq Scan')).toStrictEqual([]);
      // and the answer is the search's: every account found matches
      for (const user of answer) {
        const query = (page.query ?? '').toLowerCase();
        if (query.includes('@')) expect(user.emails.map((e) => e.email.toLowerCase())).toContain(query);
        else expect(user.username.toLowerCase()).toContain(query);
      }
    });

    it('should find exactly the account of an email address and of a unique substring', async () => {
      expect((await store.accounts.list({ first: 50, query: 'member777@EXAMPLE.com' })).map((u) => u.id)).toStrictEqual(['777']);
      expect((await store.accounts.list({ first: 50, query: 'member-31337-' })).map((u) => u.username)).toHaveLength(1);
      expect(await store.accounts.list({ first: 50, query: 'zzzqqq' })).toStrictEqual([]);
    });

    it.each(FILTERS.filter(([, q]) => q.since !== undefined && q.until !== undefined))(
      'should filter the audit log by %s through the index of the entries\' spans (migration 8)',
      async (_, query) => {
        const { nodes } = await explained(() => store.audit.list(50, query));
        expect(nodes.filter((n) => n.type === 'Seq Scan')).toStrictEqual([]);
        expect(nodes.map((n) => n.index)).toContain('audit_log_span');
      },
    );

    it('should search a substring whose first word every account holds through its whole word first, reading fewer index pages than with the substring alone', async () => {
      const { statement, answer } = await recorded(() => store.accounts.list({ first: 50, query: 'member-31337-' }));
      expect(answer.map((u) => u.username)).toStrictEqual([expect.stringMatching(/^member-31337-/)]);
      // the same statement with the substring's pattern alone (the last parameter), as one trigram index key
      const alone: Statement = {
        text: `SELECT a.id FROM accounts a WHERE a.username_key LIKE $2::text ESCAPE '\\' ORDER BY a.id LIMIT $1`,
        params: [statement.params[0], statement.params.at(-1)],
      };
      const options = 'ANALYZE, BUFFERS, FORMAT JSON';
      const trigramScan = (nodes: readonly PlanNode[]): PlanNode | undefined => nodes.find((n) => n.index === 'accounts_username_trigrams');
      const split = trigramScan(await plan(statement, options));
      const whole = trigramScan(await plan(alone, options));
      expect(split?.indexCondition).toMatch(/^\(\(username_key ~~ '%-31337-%'::text\) AND \(username_key ~~ '%member-31337-%'::text\)\)$/);
      expect(whole?.indexCondition).toBe("(username_key ~~ '%member-31337-%'::text)");
      // pages touched are counted, not timed: the word's key spares reading the lists of `member`'s trigrams (here
      // 285 against 335 pages; at a million accounts 258 against 1,798)
      expect(split?.buffers).toBeGreaterThan(0);
      expect(split?.buffers).toBeLessThan(whole?.buffers ?? 0);
    });

    it('should take new accounts into the username trigram index at once, leaving it no pending list to read (migration 9)', async () => {
      const [options] = await driver.query<{ reloptions: readonly string[] | null }>("SELECT reloptions FROM pg_class WHERE relname = 'accounts_username_trigrams'");
      expect(options?.reloptions).toContain('fastupdate=off');
      await driver.exec(`
INSERT INTO accounts (username, username_key, origin, site_admin, service_account, password_hash, created_at)
  SELECT 'pending-' || g, 'pending-' || g, 'sign_up', false, false, NULL, ${START} FROM generate_series(1, 200) g;`);
      // the number of pending-list pages merged: none, as none were written
      const [cleaned] = await driver.query<{ pages: number | string }>("SELECT gin_clean_pending_list('accounts_username_trigrams'::regclass) AS pages");
      expect(Number(cleaned?.pages)).toBe(0);
      expect((await store.accounts.list({ first: 50, query: 'pending-17' })).map((u) => u.username).sort()).toStrictEqual(['pending-17', ...Array.from({ length: 10 }, (_, i) => `pending-17${String(i)}`)]);
    });

    it.each(FILTERS)('should filter the audit log by %s on an index, never a sequential scan', async (_, query) => {
      const { nodes, answer } = await explained(() => store.audit.list(50, query));
      expect(nodes.filter((n) => n.type === 'Seq Scan')).toStrictEqual([]);
      expect(answer.length).toBeGreaterThan(0);
      for (const entry of answer) {
        if (query.action !== undefined) expect(entry.action).toBe(query.action);
        if (query.entity !== undefined) expect(entry.entity).toBe(query.entity);
        if (query.actorUserId !== undefined) expect(entry.actorUserId).toBe(query.actorUserId);
        if (query.since !== undefined) expect(entry.lastAt).toBeGreaterThanOrEqual(query.since);
        if (query.until !== undefined) expect(entry.timestamp).toBeLessThanOrEqual(query.until);
        if (query.reference !== undefined) expect(entry.details).toMatchObject({ reference: query.reference });
      }
    });
  });
}

describeIndexedPaths('search and filter plans on PGlite', () => openPgliteDriver({ memory: true }));

const availability = postgresServerAvailability();
if (!availability.run) console.log(`skipping the search plans on a PostgreSQL server: ${availability.reason}`);

describe.runIf(availability.run)('on a PostgreSQL server (needs a PostgreSQL server)', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  });
  describeIndexedPaths('search and filter plans on a PostgreSQL server through node-postgres', async () =>
    openNodePostgresDriver({ connectionString: await cluster.createDatabase('plans') }),
  );
});
