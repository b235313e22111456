/**
 * Child process of bench/http.bench.ts: starts every server the HTTP bench compares, each on loopback, and prints
 * one JSON line: the servers (name, endpoint URL, request headers) and the ones skipped with the reason. Kept out
 * of the bench's own process so autocannon does not share its event loop.
 *
 * - bare graphql-http: gatehouse's schema, no authentication (every request is the bench user);
 * - Apollo Server standalone with graphql-armor's protections, the same schema and context;
 * - gatehouse with a `token` request on its default memory store;
 * - gatehouse on the PostgreSQL store, embedded PGlite (a temporary data directory) and a PostgreSQL server (a
 *   throwaway cluster, see postgres-cluster.ts), read through the token cache, and on the server also without it:
 *   these run when `createPostgresStore` and its drivers are in the tree and the server takes the grouped store.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApolloServer } from '@apollo/server';
import type { ApolloServerPlugin } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { createHandler } from 'graphql-http/lib/use/http';
import { ACCESS_TOKEN_RANDOM_BYTES, generateAccessToken, hashAccessToken } from '../src/core/access-token.js';
import { createGatehouseServer } from '../packages/server/src/index.js';
import { sha256 } from '../packages/server/src/kernel/digest.js';
import { createGatehouseSchema } from '../packages/server/src/api/schema.js';
import type { GatehouseContext } from '../packages/server/src/api/schema.js';
import type { Store } from '../packages/server/src/store/types.js';
import { startBenchDatabase } from './postgres-cluster.js';

/** A server under measurement. */
export interface BenchServer {
  readonly name: string;
  /** The GraphQL endpoint. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** What the child prints. */
export interface BenchServers {
  readonly servers: readonly BenchServer[];
  readonly skipped: readonly { readonly name: string; readonly reason: string }[];
}

const servers: BenchServer[] = [];
const skipped: { name: string; reason: string }[] = [];
const cleanups: (() => Promise<void>)[] = [];

// --- gatehouse on its default memory store, and the bench user with a token
const gatehouse = createGatehouseServer({ log: () => undefined });
const user = (
  await gatehouse.store.accounts.create({ usernames: ['bench'], origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: Date.now() })
)._unsafeUnwrap();
const token = await gatehouse.createAccessToken(user, user.id, ['user:all'], 'bench');
if ('error' in token) throw new Error(token.error);
const ours = await gatehouse.listen(0);

// the same schema, no authentication: every request is the bench user
const schema = createGatehouseSchema({
  store: gatehouse.store,
  now: Date.now,
  randomBytes: (n) => new Uint8Array(n),
  search: async () => ({ matchCount: 0 }),
  audit: async () => undefined,
  registerOAuthApp: async () => {
    throw new Error('not in the bench');
  },
});
const context: GatehouseContext = { viewer: { kind: 'user', user, actor: user, via: 'token' } };
const bareHandler = createHandler({ schema, context });
const bare = createServer((req, res) => {
  if (req.url?.startsWith('/.api/graphql') === true) {
    void bareHandler(req, res);
    return;
  }
  res.writeHead(404).end();
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const bareAddress = bare.address() as AddressInfo; // a TCP listen always gives an AddressInfo
servers.push({ name: 'bare graphql-http (no auth)', url: `http://127.0.0.1:${bareAddress.port}/.api/graphql`, headers: {} });

// --- Apollo Server standalone with graphql-armor (max depth, aliases, directives, tokens, cost limit, no suggestions)
const armor = new ApolloArmor().protect();
// graphql-armor's types name Apollo's CommonJS declarations, this file its ESM ones: the same plugins, two type paths
const armorPlugins = armor.plugins as unknown as ApolloServerPlugin<GatehouseContext>[];
const apollo = new ApolloServer<GatehouseContext>({ schema, ...armor, plugins: armorPlugins });
const apolloStarted = await startStandaloneServer(apollo, { listen: { port: 0, host: '127.0.0.1' }, context: async () => context });
servers.push({ name: 'Apollo Server 4 + graphql-armor (no auth)', url: apolloStarted.url, headers: {} });
cleanups.push(() => apollo.stop());

servers.push({ name: 'gatehouse, memory store (token)', url: `${ours.url}/.api/graphql`, headers: { authorization: `token ${token.token}` } });

// --- gatehouse on the PostgreSQL store

type Loaded = { readonly kind: 'ok'; readonly value: Readonly<Record<string, unknown>> } | { readonly kind: 'absent'; readonly reason: string };

/** Imports a module of the tree by path, or says why it cannot (not written yet, a dependency missing). */
async function importOptional(path: string): Promise<Loaded> {
  try {
    const value: unknown = await import(new URL(path, import.meta.url).href);
    return typeof value === 'object' && value !== null ? { kind: 'ok', value: { ...value } } : { kind: 'absent', reason: `${path} exports nothing` };
  } catch (error) {
    return { kind: 'absent', reason: `${path}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
  }
}

type AsyncFn = (...args: readonly unknown[]) => Promise<unknown>;

/** Loads one function of a module of the tree, or says why it cannot. */
async function loadFunction(file: string, name: string): Promise<AsyncFn | string> {
  const loaded = await importOptional(file);
  if (loaded.kind === 'absent') return loaded.reason;
  const fn = loaded.value[name];
  // its signature is the PostgreSQL store package's (see its module)
  return typeof fn === 'function' ? (fn as AsyncFn) : `${file} has no function ${name}`;
}

/** `createPostgresStore` and the migrations, as the PostgreSQL store package exports them. */
interface PostgresApi {
  readonly createPostgresStore: (driver: unknown) => Store;
  readonly applyMigrations: AsyncFn;
}

async function loadPostgresApi(): Promise<PostgresApi | string> {
  const create = await loadFunction('../packages/server/src/store/postgres/store.js', 'createPostgresStore');
  const applyMigrations = await loadFunction('../packages/server/src/store/postgres/migrate.js', 'applyMigrations');
  if (typeof create === 'string') return create;
  if (typeof applyMigrations === 'string') return applyMigrations;
  // createPostgresStore returns the store synchronously
  return { createPostgresStore: create as unknown as (driver: unknown) => Store, applyMigrations };
}

/** Seeds the bench user and a token through the grouped store contract; returns the token's secret. */
async function seed(store: Store): Promise<string> {
  // the first free of these: two servers on one database each seed their own account
  const account = await store.accounts.create({ usernames: ['bench', 'bench2', 'bench3'], origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: Date.now() });
  const secret = generateAccessToken(randomBytes(ACCESS_TOKEN_RANDOM_BYTES))._unsafeUnwrap();
  const digest = hashAccessToken(secret, sha256)._unsafeUnwrap();
  const created = await store.accessTokens.create({ userId: account._unsafeUnwrap().id, digest, scopes: ['user:all'], note: 'bench', createdAt: Date.now(), expiresAt: null });
  created._unsafeUnwrap();
  return secret;
}

async function startOnStore(name: string, store: Store, cached: boolean): Promise<void> {
  const secret = await seed(store);
  const server = createGatehouseServer({ store, log: () => undefined, ...(cached ? {} : { tokenCacheTtlMs: 0 }) });
  const listening = await server.listen(0);
  servers.push({ name, url: `${listening.url}/.api/graphql`, headers: { authorization: `token ${secret}` } });
  cleanups.push(() => server.close());
}

/** Opens a driver, applies the migrations and makes the store, or says why it could not. */
async function migrated(api: PostgresApi, open: AsyncFn, options: unknown): Promise<Store | string> {
  let driver: unknown;
  let report: unknown;
  try {
    driver = await open(options);
    report = await api.applyMigrations(driver);
  } catch (error) {
    return `could not open the database: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
  }
  if (typeof report === 'object' && report !== null && 'isErr' in report && typeof report.isErr === 'function' && report.isErr() === true) {
    return 'the migrations refused the database';
  }
  return api.createPostgresStore(driver);
}

const PGLITE = 'gatehouse, PGlite embedded (token, token cache)';
const POSTGRES = 'gatehouse, PostgreSQL server (token, token cache)';
const POSTGRES_UNCACHED = 'gatehouse, PostgreSQL server (token, no token cache)';
const api = await loadPostgresApi();
if (typeof api === 'string') {
  for (const name of [PGLITE, POSTGRES, POSTGRES_UNCACHED]) skipped.push({ name, reason: `the PostgreSQL store is not in this tree yet (${api})` });
} else {
  const openPglite = await loadFunction('../packages/server/src/store/postgres/pglite.js', 'openPgliteDriver');
  if (typeof openPglite === 'string') {
    skipped.push({ name: PGLITE, reason: openPglite });
  } else {
    const dataDir = await mkdtemp(join(tmpdir(), 'gatehouse-bench-pglite-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const pglite = await migrated(api, openPglite, { dataDir });
    if (typeof pglite === 'string') skipped.push({ name: PGLITE, reason: pglite });
    else await startOnStore(PGLITE, pglite, true);
  }
  const openNodePostgres = await loadFunction('../packages/server/src/store/postgres/node-postgres.js', 'openNodePostgresDriver');
  const database = typeof openNodePostgres === 'string' ? openNodePostgres : await startBenchDatabase();
  if (typeof database === 'string' || typeof openNodePostgres === 'string') {
    for (const name of [POSTGRES, POSTGRES_UNCACHED]) skipped.push({ name, reason: typeof database === 'string' ? database : 'no driver' });
  } else {
    cleanups.push(database.stop);
    for (const [name, cached] of [[POSTGRES, true], [POSTGRES_UNCACHED, false]] as const) {
      const store = await migrated(api, openNodePostgres, { connectionString: database.url, max: 10 });
      if (typeof store === 'string') skipped.push({ name, reason: store });
      else await startOnStore(name, store, cached);
    }
  }
}

const answer: BenchServers = { servers, skipped };
process.stdout.write(`${JSON.stringify(answer)}\n`);
/** Stops what was started (the throwaway cluster last), then leaves. */
function stopAll(): void {
  void (async () => {
    for (const cleanup of cleanups.reverse().splice(0)) await cleanup().catch(() => undefined);
    process.exit(0);
  })();
}
process.stdin.resume();
process.stdin.on('end', stopAll);
process.once('SIGTERM', stopAll);
