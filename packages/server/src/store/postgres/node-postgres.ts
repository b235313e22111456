/**
 * The server driver: node-postgres (`pg`, an optional peer) with a connection pool on a PostgreSQL server, for
 * production and for several gatehouse instances sharing one database.
 *
 * The pool outlives the server it talks to: a connection the server ends (a restart, a crash) is dropped and the next
 * request opens a new one, so nothing needs restarting once the database is back. While it is away, every call fails
 * fast (a refused connection at once, an unanswered one after the connection timeout) with the error
 * `classifyDriverFailure` makes of it.
 *
 * @module
 */
import type { Pool, PoolClient } from 'pg';
import type { IsolationLevel, SqlClient, SqlDriver, SqlRow, TransactionOutcome } from './driver.js';
import { classifyDriverFailure } from './unavailable.js';

/**
 * Options of {@link openNodePostgresDriver}.
 *
 * @example
 * ```ts
 * const options: NodePostgresOptions = { connectionString: 'postgres://gatehouse@127.0.0.1:5432/gatehouse', max: 10 };
 * ```
 */
export interface NodePostgresOptions {
  /** `postgres://user:password@host:port/database` (the `DATABASE_URL`). */
  readonly connectionString: string;
  /** The most connections the pool opens (default 10). */
  readonly max?: number;
  /**
   * How long a statement waits for a connection, to open one or for one of the pool to be free, in milliseconds
   * (default {@link DEFAULT_CONNECTION_TIMEOUT_MS}): a database that does not answer fails requests after this long.
   */
  readonly connectionTimeoutMs?: number;
}

/**
 * Default of {@link NodePostgresOptions.connectionTimeoutMs}: 3 seconds.
 *
 * @example
 * ```ts
 * DEFAULT_CONNECTION_TIMEOUT_MS; // 3000
 * ```
 */
export const DEFAULT_CONNECTION_TIMEOUT_MS = 3_000;

/** Rejects with the error the store reports for `error` (see unavailable.ts). */
const rejectClassified = (error: unknown): Promise<never> => Promise.reject(classifyDriverFailure(error));

function clientOf(target: Pool | PoolClient): SqlClient {
  return {
    async query<R extends SqlRow = SqlRow>(text: string, params: readonly unknown[] = []): Promise<readonly R[]> {
      const result = await target.query<R>(text, [...params]).catch(rejectClassified);
      return result.rows;
    },
    async exec(script: string): Promise<void> {
      // without parameters node-postgres uses the simple query protocol, which runs several statements
      await target.query(script).catch(rejectClassified);
    },
  };
}

/**
 * One connection runs one statement at a time: callers inside a transaction may start several at once
 * (`Promise.all` over lookups), so they are queued here in the order they were asked, as PostgreSQL would run them.
 */
function queued(client: SqlClient): SqlClient {
  let last: Promise<unknown> = Promise.resolve();
  const next = <T>(run: () => Promise<T>): Promise<T> => {
    const result = last.then(run, run);
    last = result.catch(() => undefined);
    return result;
  };
  return {
    query: (text, params) => next(() => client.query(text, params)),
    exec: (script) => next(() => client.exec(script)),
  };
}

/**
 * Opens a pool on a PostgreSQL server, loading `pg` on first use. It checks one connection before it resolves, so
 * a wrong address or password is reported at start rather than at the first request.
 *
 * @param options - The connection string and pool size.
 * @returns A driver; rejects when `pg` is not installed or the server cannot be reached.
 * @example
 * ```ts
 * const driver = await openNodePostgresDriver({ connectionString: process.env.DATABASE_URL ?? '' });
 * ```
 */
export async function openNodePostgresDriver(options: NodePostgresOptions): Promise<SqlDriver> {
  const pg = await import('pg');
  const PoolClass = pg.default.Pool;
  const pool = new PoolClass({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS,
    // TCP keepalive: a connection whose server vanished without a word is found dead rather than waited on forever
    keepAlive: true,
  });
  // an idle client that loses its connection emits `error` on the pool; without a listener that would end the process
  pool.on('error', () => undefined);
  const first = await pool.connect();
  first.release();
  const root = clientOf(pool);
  return {
    kind: 'postgres',
    query: root.query,
    exec: root.exec,
    async transaction<T>(isolation: IsolationLevel, work: (client: SqlClient) => Promise<TransactionOutcome<T>>): Promise<T> {
      const client = await pool.connect().catch(rejectClassified);
      // a checked-out client whose connection ends emits `error` (the pool listens only while it is idle): the
      // statement under way rejects with it, and without a listener the process would end
      const ignore = (): void => undefined;
      client.on('error', ignore);
      const run = async (): Promise<T> => {
        await client.query(`BEGIN ISOLATION LEVEL ${isolation === 'serializable' ? 'SERIALIZABLE' : 'READ COMMITTED'}`);
        const outcome = await work(queued(clientOf(client)));
        await client.query(outcome.commit ? 'COMMIT' : 'ROLLBACK');
        return outcome.value;
      };
      return run().then(
        (value) => {
          client.removeListener('error', ignore);
          client.release();
          return value;
        },
        async (error: unknown) => {
          // a connection that cannot even roll back is in an unknown state: it is discarded, not pooled again
          const rolledBack = await client.query('ROLLBACK').then(
            () => true,
            () => false,
          );
          client.removeListener('error', ignore);
          client.release(!rolledBack);
          return rejectClassified(error);
        },
      );
    },
    async close(): Promise<void> {
      await pool.end();
    },
  };
}

