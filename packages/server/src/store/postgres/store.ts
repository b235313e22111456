/**
 * The store on PostgreSQL: one schema (the migrations) and one implementation of the {@link Store} contract,
 * running on either driver, PGlite embedded or node-postgres on a server. Each operation is one statement or one
 * transaction; {@link Store.transaction} is a serializable transaction, run again after a serialization conflict.
 *
 * @module
 */
import type { Store } from '../types.js';
import { postgresAccounts } from './accounts.js';
import { postgresAudit } from './audit.js';
import type { ChangeFeed } from './change-feed.js';
import type { SqlDriver } from './driver.js';
import { postgresEphemeral } from './ephemeral.js';
import { postgresLockouts } from './lockouts.js';
import { postgresLinks, postgresOutbox } from './lifecycle.js';
import { postgresOAuth } from './oauth.js';
import { rootSql } from './sql.js';
import type { Sql } from './sql.js';
import { postgresAccessTokens, postgresSessions } from './tokens.js';

function storeOn(sql: Sql, close: () => Promise<void>): Store {
  const store: Store = {
    accounts: postgresAccounts(sql),
    accessTokens: postgresAccessTokens(sql),
    sessions: postgresSessions(sql),
    oauth: postgresOAuth(sql),
    audit: postgresAudit(sql),
    ephemeral: postgresEphemeral(sql),
    lockouts: postgresLockouts(sql),
    links: postgresLinks(sql),
    outbox: postgresOutbox(sql),
    // inside a transaction the store's operations run on the transaction's connection, each as a savepoint
    transaction: (work) => sql.serializable((inner) => work(storeOn(inner, close))),
    close,
  };
  return store;
}

/**
 * A {@link Store} on a migrated database (see `applyMigrations`, or `openStore`, which does both).
 *
 * @param driver - The database: `openPgliteDriver(…)` or `openNodePostgresDriver(…)`.
 * @param feed - The account change feed of a PostgreSQL server shared by several instances
 *   (`openNodePostgresChangeFeed`), which becomes the store's `onAccountChange`; none for PGlite.
 * @returns The store; `close()` closes the feed and the driver.
 * @example
 * ```ts
 * const driver = await openPgliteDriver({ memory: true });
 * await applyMigrations(driver);
 * const store = createPostgresStore(driver);
 * await store.accounts.create({ usernames: ['alice'], origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 0 });
 * // ok({ id: '1', username: 'alice', … })
 * ```
 */
export function createPostgresStore(driver: SqlDriver, feed?: ChangeFeed): Store {
  const close = async (): Promise<void> => {
    await feed?.close();
    await driver.close();
  };
  const store: Store = { ...storeOn(rootSql(driver), close), ping: async () => void (await driver.query('SELECT 1')) };
  return feed === undefined ? store : { ...store, onAccountChange: (listener) => feed.subscribe(listener) };
}
