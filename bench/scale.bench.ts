/**
 * How gatehouse's database paths grow with the site: accounts (each with an email address and an access token) and
 * audit entries seeded with `generate_series` at 1,000 and 100,000 of each (and 1,000,000 with
 * `BENCH_SCALE_MAX=1000000`), on the embedded PGlite store and on a PostgreSQL server (a throwaway cluster, or
 * `GATEHOUSE_BENCH_DATABASE_URL`), the database grown from one size to the next. At each size it times the token
 * lookup of the store, a `token` request and a proxy sign-in (`http-header` provider) through a real server (its
 * token cache off, so each request reaches the database), the site admin's user search (a substring that matches
 * nothing, one that matches an account, an exact email address) and each audit-log filter (entity, rare action,
 * actor, a one-day range), and prints medians with the growth ratio to the smallest size.
 *
 * Bounded: `BENCH_SCALE_ITERATIONS` (default 15) timed runs of each operation after 3 untimed ones, each operation
 * at most `BENCH_SCALE_OPERATION_S` (default 10) seconds per size.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createGatehouseServer } from '../packages/server/src/index.js';
import type { SqlDriver } from '../packages/server/src/store/postgres/driver.js';
import { applyMigrations } from '../packages/server/src/store/postgres/migrate.js';
import { openNodePostgresDriver } from '../packages/server/src/store/postgres/node-postgres.js';
import { openPgliteDriver } from '../packages/server/src/store/postgres/pglite.js';
import { createPostgresStore } from '../packages/server/src/store/postgres/store.js';
import type { AuditQuery, Store } from '../packages/server/src/store/types.js';
import { startBenchDatabase } from './postgres-cluster.js';

const positive = (name: string, fallback: number): number => {
  const n = Number(process.env[name]);
  return Number.isFinite(n) && n > 0 ? n : fallback;
};
const MAX_SIZE = positive('BENCH_SCALE_MAX', 100_000);
const SIZES = [1_000, 100_000, 1_000_000].filter((n) => n <= Math.max(MAX_SIZE, 1_000));
const ITERATIONS = Math.floor(positive('BENCH_SCALE_ITERATIONS', 15));
const OPERATION_MS = positive('BENCH_SCALE_OPERATION_S', 10) * 1000;
const WARM_UP = 3;
const STORES = process.env['BENCH_SCALE_STORES'] ?? 'both';
const START = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
/** How long the suite's server keeps audit entries: the oldest seeded one (START) stays within it until 2035. */
const AUDIT_RETENTION_DAYS = 3_650;
const HOUR = 60 * MINUTE;
/** The account every lookup names: it exists at every size. */
const PROBE = 777;
/** The account the substring search finds (`member-555-` names no other account, the proxy's included). */
const SEARCHED = 555;
const probeUsername = `member-${PROBE}-${createHash('md5').update(String(PROBE)).digest('hex')}`;
const SITE = JSON.stringify({
  'auth.providers': [{ type: 'http-header', usernameHeader: 'x-forwarded-user' }],
  trustedProxies: ['127.0.0.1'],
});
const QUERY = JSON.stringify({ query: '{ currentUser { username } }' });

/**
 * Grows the tables from `from` to `to` rows each: accounts `member-<n>-<md5>` with the address
 * `Member<id>@Example.com` and one access token, audit entries one a minute over 8 entities, 40 actions (one of
 * them, `rare_action`, once in 10,000) and 1,000 actors. The accounts arrive as a bulk import would bring them:
 * with the username trigram index's pending list on for the import, then merged and off again (migration 9), which
 * is where a site that grew one account at a time stands too; row by row into the tree, a million take many minutes.
 */
function growth(from: number, to: number): readonly string[] {
  // each step its own transaction: an index altered and a table analysed in one would deadlock with a PostgreSQL
  // server's autovacuum, which holds the table and waits for the index
  return [
    'ALTER INDEX accounts_username_trigrams SET (fastupdate = on)',
    `
INSERT INTO accounts (username, username_key, origin, site_admin, service_account, password_hash, created_at)
  SELECT 'member-' || g || '-' || md5(g::text), 'member-' || g || '-' || md5(g::text), 'sign_up', false, false, NULL, ${START}
  FROM generate_series(${from + 1}, ${to}) g;
INSERT INTO account_emails (account_id, position, email, verified, verified_key)
  SELECT id, 0, 'Member' || id || '@Example.com', false, NULL FROM accounts WHERE id > ${from} AND id <= ${to};
INSERT INTO access_tokens (account_id, digest, scopes, note, created_at, expires_at)
  SELECT id, md5('a' || id) || md5('b' || id), '["user:all"]'::jsonb, 'bench', ${START}, NULL FROM accounts WHERE id > ${from} AND id <= ${to};
INSERT INTO audit_log (timestamp, entity, action, reason, actor_user_id, subject_user_id, impersonated_user_id, details, count, first_at, last_at, coalesce_key)
  SELECT ${START} + g::bigint * ${MINUTE}, 'entity_' || (g % 8), CASE WHEN g % 10000 = 7 THEN 'rare_action' ELSE 'action_' || (g % 39) END,
         NULL, (g % 1000)::text, NULL, NULL, '{}'::jsonb, 1, ${START} + g::bigint * ${MINUTE}, ${START} + g::bigint * ${MINUTE}, NULL
  FROM generate_series(${from + 1}, ${to}) g;`,
    'ALTER INDEX accounts_username_trigrams SET (fastupdate = off)',
    "SELECT gin_clean_pending_list('accounts_username_trigrams'::regclass)",
    'ANALYZE',
  ];
}

/** The digest of the seeded token of account `id` (as `growth` writes it). */
const seededDigest = (id: number): string =>
  createHash('md5').update(`a${id}`).digest('hex') + createHash('md5').update(`b${id}`).digest('hex');

interface Operation {
  readonly name: string;
  /** Runs once; throws when the answer is not the expected one (a wrong answer is no measurement). */
  readonly run: () => Promise<void>;
}

/** Median milliseconds of `ITERATIONS` runs after the warm-up, or why there is none. */
async function time(operation: Operation): Promise<number | string> {
  const started = performance.now();
  const times: number[] = [];
  try {
    for (let i = 0; i < WARM_UP + ITERATIONS; i++) {
      const t0 = performance.now();
      await operation.run();
      if (i >= WARM_UP) times.push(performance.now() - t0);
      if (performance.now() - started > OPERATION_MS && times.length > 0) break;
    }
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `failed: ${error instanceof Error ? error.message : String(error)}${cause}`;
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

function expect(condition: boolean, what: string): void {
  if (!condition) throw new Error(what);
}

/** The operations timed at each size, on one store and a server over it. */
function operations(store: Store, url: string, token: string, size: number): readonly Operation[] {
  const digest = seededDigest(PROBE);
  const filter = (name: string, query: AuditQuery): Operation => ({
    name: `audit filter: ${name}`,
    run: async () => expect((await store.audit.list(50, query)).length > 0, `no audit entry for ${name}`),
  });
  const middle = START + Math.floor(size / 2) * MINUTE;
  const post = async (headers: Record<string, string>): Promise<string> => {
    const res = await fetch(`${url}/.api/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: QUERY });
    const body = (await res.json()) as { data?: { currentUser?: { username?: string } | null } };
    return `${res.status} ${body.data?.currentUser?.username ?? 'nobody'}`;
  };
  return [
    { name: 'token lookup (store)', run: async () => expect((await store.accessTokens.findByDigest(digest))?.userId === String(PROBE), 'token not found') },
    { name: 'token request (server)', run: async () => expect((await post({ authorization: `token ${token}` })) === `200 ${probeUsername}`, 'token request refused') },
    {
      // the proxy's first sign-in of this person makes their account (the seeded one has their username and is not
      // linked to the proxy, so the new one gets a suffix); the timed ones are returning sign-ins
      name: 'proxy sign-in (server)',
      run: async () => {
        const answer = await post({ 'x-forwarded-user': probeUsername, 'x-requested-with': 'bench' });
        expect(answer.startsWith(`200 ${probeUsername}`), `proxy sign-in answered ${answer}`);
      },
    },
    { name: 'user search: substring, no match', run: async () => expect((await store.accounts.list({ first: 50, query: 'zzzqqq' })).length === 0, 'matched') },
    {
      name: 'user search: substring, one match',
      run: async () => expect((await store.accounts.list({ first: 50, query: `member-${SEARCHED}-` })).length === 1, 'not one account'),
    },
    {
      name: 'user search: exact email',
      run: async () => expect((await store.accounts.list({ first: 50, query: `MEMBER${PROBE}@example.COM` })).length === 1, 'not one account'),
    },
    filter('entity', { entity: 'entity_3' }),
    filter('rare action', { action: 'rare_action' }),
    filter('actor', { actorUserId: '42' }),
    filter('one-day range', { since: middle - 12 * HOUR, until: middle + 12 * HOUR }),
  ];
}

const formatMs = (value: number | string): string => (typeof value === 'string' ? value : value >= 100 ? `${value.toFixed(0)} ms` : `${value.toFixed(2)} ms`);

/** Grows one database through every size, timing each operation at each, and prints the table. */
async function measureOn(label: string, open: () => Promise<SqlDriver>): Promise<void> {
  const driver = await open();
  const migrated = await applyMigrations(driver);
  if (migrated.isErr()) throw new Error(`${label}: migrations failed: ${JSON.stringify(migrated.error)}`);
  const store = createPostgresStore(driver);
  // the token cache is off: each token request and proxy sign-in reaches the database
  // (and its keep-alive connections outlast the seeding of the next size, so no request meets a closed one). The
  // seeded audit entries date from START on: kept for ten years, none is past its retention, so the periodic purge
  // has nothing to delete while the operations are timed (on embedded PGlite, one connection, each of its batches
  // would hold up the request queued behind it).
  const gatehouse = createGatehouseServer({
    store,
    siteConfiguration: SITE,
    tokenCacheTtlMs: 0,
    auditRetentionDays: AUDIT_RETENTION_DAYS,
    log: () => undefined,
    timeouts: { keepAliveMs: 30 * 60_000 },
  });
  const results = new Map<string, (number | string)[]>();
  const seeding: string[] = [];
  try {
    const { url } = await gatehouse.listen(0);
    let token: string | null = null;
    let seeded = 0;
    for (const size of SIZES) {
      const t0 = performance.now();
      for (const step of growth(seeded, size)) await driver.exec(step);
      seeded = size;
      seeding.push(`${size.toLocaleString('en')}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      if (token === null) {
        const owner = await store.accounts.get(String(PROBE));
        if (owner === null) throw new Error(`${label}: the probe account was not seeded`);
        const created = await gatehouse.createAccessToken(owner, owner.id, ['user:all'], 'scale bench');
        if ('error' in created) throw new Error(`${label}: ${created.error}`);
        token = created.token;
      }
      for (const operation of operations(store, url, token, size)) {
        const row = results.get(operation.name) ?? [];
        row.push(await time(operation));
        results.set(operation.name, row);
      }
    }
  } finally {
    await gatehouse.shutdown(1_000).catch(() => undefined);
  }
  console.log(`\n## scale on ${label} (median of ${ITERATIONS} runs; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')})`);
  console.log(`seeding (accounts, emails, tokens, audit entries with generate_series): ${seeding.join(', ')}`);
  const header = SIZES.map((s) => s.toLocaleString('en'));
  const growthHeader = SIZES.slice(1).map((s) => `× at ${s.toLocaleString('en')}`);
  console.log(`| operation | ${[...header, ...growthHeader].join(' | ')} |`);
  console.log(`| --- | ${[...header, ...growthHeader].map(() => '---').join(' | ')} |`);
  for (const [name, row] of results) {
    const base = row[0];
    const ratios = row.slice(1).map((v) => (typeof v === 'number' && typeof base === 'number' && base > 0 ? `${(v / base).toFixed(2)}×` : '—'));
    console.log(`| ${name} | ${[...row.map(formatMs), ...ratios].join(' | ')} |`);
  }
}

/** Prints one table per store. */
export async function run(): Promise<void> {
  const started = performance.now();
  console.log(`\n# scale: ${SIZES.map((s) => s.toLocaleString('en')).join(' / ')} accounts and audit entries (BENCH_SCALE_MAX=${MAX_SIZE})`);
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-bench-scale-'));
  try {
    // BENCH_SCALE_STORES=postgres measures the PostgreSQL server only, =pglite the embedded store only
    if (STORES !== 'postgres') await measureOn('embedded PGlite', () => openPgliteDriver({ dataDir: join(dir, 'pglite') }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const database = STORES === 'pglite' ? 'not asked for (BENCH_SCALE_STORES=pglite)' : await startBenchDatabase();
  if (typeof database === 'string') {
    console.log(`\nskipping the scale suite on a PostgreSQL server: ${database}`);
  } else {
    try {
      await measureOn('a PostgreSQL server (node-postgres)', () => openNodePostgresDriver({ connectionString: database.url }));
    } finally {
      await database.stop();
    }
  }
  console.log(`\nscale suite: ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
