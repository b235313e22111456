/**
 * Child process of bench/http.bench.ts: starts the gatehouse server (with a seeded user and access token) and a
 * bare graphql-http server with the same schema and no authentication, on loopback, and prints their URLs and
 * the token as one JSON line. Kept out of the bench's own process so autocannon does not share its event loop.
 */
import { createHandler } from 'graphql-http/lib/use/http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatehouseServer } from '../src/http/server.js';
import { createGatehouseSchema } from '../src/http/schema.js';
import type { GatehouseContext } from '../src/http/schema.js';

const gatehouse = createGatehouseServer({ log: () => undefined });
const user = (
  await gatehouse.store.createUser({ username: 'bench', origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: Date.now() })
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

process.stdout.write(`${JSON.stringify({ ours: ours.url, bare: `http://127.0.0.1:${bareAddress.port}`, token: token.token })}\n`);
process.on('message', () => undefined);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
