/**
 * A gatehouse server for profiling the `token` request by hand: the memory store, the default access log (pino to
 * standard error), one bench account with a token. Prints `{"url","token"}` on one line; SIGINT stops it (so that
 * `node --cpu-prof` writes its profile).
 *
 * ```sh
 * node --cpu-prof --conditions=gatehouse-source --import tsx bench/profile-server.ts 2>/dev/null
 * ```
 */
import { createGatehouseServer } from '../packages/server/src/index.js';

const gatehouse = createGatehouseServer({});
const user = (
  await gatehouse.store.accounts.create({ usernames: ['bench'], origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: Date.now() })
)._unsafeUnwrap();
const token = await gatehouse.createAccessToken(user, user.id, ['user:all'], 'bench');
if ('error' in token) throw new Error(token.error);
const { url } = await gatehouse.listen(0);
process.stdout.write(`${JSON.stringify({ url, token: token.token })}\n`);
process.on('SIGINT', () => process.exit(0));
