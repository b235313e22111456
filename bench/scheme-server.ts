/**
 * Child process of bench/schemes.bench.ts: starts ONE server (named by the first argument) on loopback, in its own
 * process as its users run it (the parent sets `NODE_ENV=production`), and prints one JSON line: the targets to
 * measure (name, scheme, URL, request headers) or why it is skipped. Closing its stdin stops it.
 *
 * - `bare`: graphql-http on gatehouse's schema, no authentication (every request is the bench user);
 * - `apollo`: Apollo Server 4 standalone with graphql-armor, the same schema and context (its production defaults:
 *   no landing page in production, CSRF prevention on, the bounded document cache);
 * - `memory`, `pglite`, `postgres` (`GATEHOUSE_BENCH_DATABASE_URL` from the parent): gatehouse with its default
 *   access log (pino to standard error, which the parent discards) and three targets: `token`, `Bearer` (an OAuth
 *   access token from the authorization-code flow) and `token-sudo` (a site admin's sudo token acting as the bench
 *   user).
 */
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
import { createGatehouseServer } from '../packages/server/src/index.js';
import { createGatehouseSchema } from '../packages/server/src/api/schema.js';
import type { GatehouseContext } from '../packages/server/src/api/schema.js';
import { createMemoryStore } from '../packages/server/src/store/memory/store.js';
import { createPostgresStore } from '../packages/server/src/store/postgres/store.js';
import { applyMigrations } from '../packages/server/src/store/postgres/migrate.js';
import { openPgliteDriver } from '../packages/server/src/store/postgres/pglite.js';
import { openNodePostgresDriver } from '../packages/server/src/store/postgres/node-postgres.js';
import type { SqlDriver } from '../packages/server/src/store/postgres/driver.js';
import type { Store } from '../packages/server/src/store/types.js';
import { applyEngineFlags } from '../packages/server/src/run/engine-flags.js';
import { oauthPair, signUp } from '../packages/server/test/helpers/processes.js';

// an embedded database here runs as in the `gatehouse` program (engine-flags.ts)
applyEngineFlags();

/** One thing to measure. */
export interface SchemeTarget {
  readonly server: string;
  readonly scheme: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** What the child prints. */
export type SchemeServerAnswer = { readonly targets: readonly SchemeTarget[] } | { readonly skipped: string };

const kind = process.argv[2] ?? '';
const cleanups: (() => Promise<void>)[] = [];

async function migrated(driver: SqlDriver): Promise<Store> {
  const report = await applyMigrations(driver);
  if (report.isErr()) throw new Error('the migrations refused the database');
  return createPostgresStore(driver);
}

async function storeOf(name: string): Promise<Store> {
  if (name === 'memory') return createMemoryStore();
  if (name === 'pglite') {
    const dataDir = await mkdtemp(join(tmpdir(), 'gatehouse-bench-pglite-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    return migrated(await openPgliteDriver({ dataDir }));
  }
  const url = process.env['GATEHOUSE_BENCH_DATABASE_URL'] ?? '';
  if (url === '') throw new Error('no database');
  return migrated(await openNodePostgresDriver({ connectionString: url, max: 10 }));
}

async function gatehouse(name: string): Promise<SchemeServerAnswer> {
  const store = await storeOf(name);
  const server = createGatehouseServer({
    store,
    siteConfiguration: '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }',
    oauthAccessTokenTtlSeconds: 86_400,
  });
  const { url } = await server.listen(0);
  cleanups.push(() => server.shutdown());
  const account = (usernames: string[], siteAdmin: boolean) =>
    store.accounts.create({ usernames, origin: 'admin_created', siteAdmin, serviceAccount: false, emails: [], passwordHash: null, createdAt: Date.now() });
  const admin = (await account(['benchadmin'], true))._unsafeUnwrap();
  const adminToken = await server.createAccessToken(admin, admin.id, ['user:all', 'site-admin:sudo'], 'bench');
  if ('error' in adminToken) throw new Error(adminToken.error);
  // the bench user signs up, so that it can approve the OAuth app; its personal token is made by the admin
  const signedUp = await signUp(url, 'bench', 'bench password 1');
  const bench = await store.accounts.findByUsernameKey('bench');
  if (bench === null) throw new Error(`sign-up refused: ${signedUp.status}`);
  const token = await server.createAccessToken(admin, bench.id, ['user:all'], 'bench');
  if ('error' in token) throw new Error(token.error);
  const pair = await oauthPair(url, adminToken.token, signedUp.cookie ?? '');
  const endpoint = `${url}/.api/graphql`;
  const label = `gatehouse, ${{ memory: 'memory store', pglite: 'PGlite embedded', postgres: 'PostgreSQL server' }[name] ?? name}`;
  return {
    targets: [
      { server: label, scheme: 'token', url: endpoint, headers: { authorization: `token ${token.token}` } },
      { server: label, scheme: 'Bearer', url: endpoint, headers: { authorization: `Bearer ${pair.accessToken}` } },
      { server: label, scheme: 'token-sudo', url: endpoint, headers: { authorization: `token-sudo user="bench",token="${adminToken.token}"` } },
    ],
  };
}

/** The schema and a fixed viewer, for the peers (no authentication). */
function peerSchema(): { schema: ReturnType<typeof createGatehouseSchema>; context: GatehouseContext } {
  const store = createMemoryStore();
  const user = { id: '1', username: 'bench', origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 0 } as const;
  const schema = createGatehouseSchema({
    store,
    now: Date.now,
    randomBytes: (n) => new Uint8Array(n),
    search: async () => ({ matchCount: 0 }),
    audit: async () => undefined,
    registerOAuthApp: async () => {
      throw new Error('not in the bench');
    },
  });
  return { schema, context: { viewer: { kind: 'user', user, actor: user, via: 'token' } } };
}

async function peer(name: string): Promise<SchemeServerAnswer> {
  const { schema, context } = peerSchema();
  if (name === 'bare') {
    const handler = createHandler({ schema, context });
    const bare = createServer((req, res) => {
      if (req.url?.startsWith('/.api/graphql') === true) void handler(req, res);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => bare.close(() => resolve())));
    const { port } = bare.address() as AddressInfo; // a TCP listen always gives an AddressInfo
    return { targets: [{ server: 'bare graphql-http', scheme: 'none', url: `http://127.0.0.1:${port}/.api/graphql`, headers: {} }] };
  }
  const armor = new ApolloArmor().protect();
  // graphql-armor's types name Apollo's CommonJS declarations, this file its ESM ones: the same plugins, two type paths
  const plugins = armor.plugins as unknown as ApolloServerPlugin<GatehouseContext>[];
  const apollo = new ApolloServer<GatehouseContext>({ schema, ...armor, plugins });
  const started = await startStandaloneServer(apollo, { listen: { port: 0, host: '127.0.0.1' }, context: async () => context });
  cleanups.push(() => apollo.stop());
  return { targets: [{ server: 'Apollo Server 4 + graphql-armor', scheme: 'none', url: started.url, headers: {} }] };
}

let answer: SchemeServerAnswer;
try {
  answer = kind === 'bare' || kind === 'apollo' ? await peer(kind) : await gatehouse(kind);
} catch (error) {
  answer = { skipped: error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error) };
}
process.stdout.write(`${JSON.stringify(answer)}\n`);
function stopAll(): void {
  void (async () => {
    for (const cleanup of cleanups.reverse().splice(0)) await cleanup().catch(() => undefined);
    process.exit(0);
  })();
}
process.stdin.resume();
process.stdin.on('end', stopAll);
process.once('SIGTERM', stopAll);
