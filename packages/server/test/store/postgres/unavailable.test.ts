/**
 * Which driver failures mean the database cannot be reached: a table of the failures node-postgres reports, then the
 * real thing, a pool on a PostgreSQL server that is stopped and started again and a server that accepts connections
 * but never answers (the pool's connection timeout). The server tests need Debian's PostgreSQL binaries.
 */
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodePostgresDriver } from '../../../src/store/postgres/node-postgres.js';
import type { SqlDriver } from '../../../src/store/postgres/driver.js';
import { classifyDriverFailure, isConnectionFailure } from '../../../src/store/postgres/unavailable.js';
import { postgresServerAvailability, startPostgresCluster } from '../../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../../helpers/postgres-cluster.js';

const availability = postgresServerAvailability();
if (!availability.run) console.log(`skipping the driver fault tests on a PostgreSQL server: ${availability.reason}`);

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe('isConnectionFailure', () => {
  it.each([
    { ref: 'a refused connection', error: withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), expected: true },
    { ref: 'a reset connection', error: withCode('read ECONNRESET', 'ECONNRESET'), expected: true },
    { ref: 'a Unix socket that is gone', error: withCode('connect ENOENT /run/postgresql/.s.PGSQL.5432', 'ENOENT'), expected: true },
    { ref: 'both addresses of a host refused (Node reports an AggregateError)', error: new AggregateError([withCode('a', 'ECONNREFUSED'), withCode('b', 'ECONNREFUSED')]), expected: true },
    { ref: '57P01 admin_shutdown (pg_ctl stop -m fast)', error: withCode('terminating connection due to administrator command', '57P01'), expected: true },
    { ref: '57P02 crash_shutdown', error: withCode('terminating connection because of crash of another server process', '57P02'), expected: true },
    { ref: '57P03 cannot_connect_now (starting up)', error: withCode('the database system is starting up', '57P03'), expected: true },
    { ref: 'class 08: connection_failure', error: withCode('connection failure', '08006'), expected: true },
    { ref: 'class 08: sqlclient_unable_to_establish_sqlconnection', error: withCode('x', '08001'), expected: true },
    { ref: 'a connection lost mid-statement', error: new Error('Connection terminated unexpectedly'), expected: true },
    { ref: 'a connection attempt that timed out', error: new Error('Connection terminated due to connection timeout'), expected: true },
    { ref: 'the pool could not hand out a connection in time', error: new Error('timeout exceeded when trying to connect'), expected: true },
    { ref: 'a client whose connection failed', error: new Error('Client has encountered a connection error and is not queryable'), expected: true },
    { ref: 'already classified', error: withCode('The database cannot be reached.', 'database_unavailable'), expected: true },
    { ref: '23505 unique_violation', error: withCode('duplicate key value violates unique constraint', '23505'), expected: false },
    { ref: '40001 serialization_failure (retried, not unavailable)', error: withCode('could not serialize access', '40001'), expected: false },
    { ref: '42601 syntax_error', error: withCode('syntax error at or near', '42601'), expected: false },
    { ref: '53100 disk_full', error: withCode('could not extend file', '53100'), expected: false },
    { ref: 'an AggregateError with one answer of the database', error: new AggregateError([withCode('a', 'ECONNREFUSED'), withCode('b', '23505')]), expected: false },
    { ref: 'a plain error', error: new Error('bug'), expected: false },
    { ref: 'not an error', error: 'ECONNREFUSED', expected: false },
  ])('should answer $expected for $ref', ({ error, expected }) => {
    expect(isConnectionFailure(error)).toBe(expected);
  });
});

describe('classifyDriverFailure', () => {
  it('should make a connection failure one error with code database_unavailable, keeping the driver error as its cause', () => {
    const refused = withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED');
    const classified = classifyDriverFailure(refused);
    expect(classified).toMatchObject({ name: 'DatabaseUnavailable', code: 'database_unavailable', message: 'The database cannot be reached.', cause: refused });
    expect(classifyDriverFailure(classified)).toBe(classified);
  });

  it('should return any other failure as it is', () => {
    const unique = withCode('duplicate key value violates unique constraint', '23505');
    expect(classifyDriverFailure(unique)).toBe(unique);
  });
});

describe('openNodePostgresDriver on a server that accepts connections but never answers', () => {
  let silent: Server;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('should give up after the connection timeout rather than wait for ever', async () => {
    const address = silent.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const opened = openNodePostgresDriver({ connectionString: `postgres://x@127.0.0.1:${port}/x`, connectionTimeoutMs: 300 });
    // far longer than the timeout; without one the promise never settles
    const bound = new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), 10_000));
    const outcome = await Promise.race([opened.then(() => 'opened', (error: unknown) => error), bound]);
    expect(isConnectionFailure(outcome)).toBe(true);
  });
});

describe.runIf(availability.run)('openNodePostgresDriver on a PostgreSQL server that stops and starts (needs a PostgreSQL server)', () => {
  let cluster: PostgresCluster;
  let driver: SqlDriver;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    driver = await openNodePostgresDriver({ connectionString: cluster.url });
  }, 120_000);
  afterAll(async () => {
    await driver?.close();
    await cluster?.stop();
  });

  it('should reject every call with database_unavailable while the server is down, and work again once it is back', async () => {
    const transaction = () => driver.transaction('serializable', async (tx) => ({ commit: true, value: await tx.query<{ n: number }>('SELECT 1 AS n') }));
    expect(await transaction()).toStrictEqual([{ n: 1 }]);
    await cluster.stopServer();
    try {
      for (const call of [() => driver.query('SELECT 1'), () => driver.exec('SELECT 1; SELECT 2'), transaction]) {
        await expect(call()).rejects.toMatchObject({ code: 'database_unavailable' });
      }
    } finally {
      await cluster.startServer();
    }
    expect(await driver.query<{ n: number }>('SELECT 1 AS n')).toStrictEqual([{ n: 1 }]);
    expect(await transaction()).toStrictEqual([{ n: 1 }]);
    // an answer of the database keeps its own error
    await expect(driver.query('SELEC 1')).rejects.toMatchObject({ code: '42601' });
  }, 60_000);

  it('should survive the server ending a transaction under way (kill -9 of the postmaster): the transaction fails, the process does not', async () => {
    const started = driver.transaction('read committed', async (tx) => {
      await tx.query('SELECT 1');
      await cluster.killPostmaster();
      return { commit: true, value: await tx.query('SELECT 2') };
    });
    await expect(started).rejects.toMatchObject({ code: 'database_unavailable' });
    await cluster.startServer();
    expect(await driver.query<{ n: number }>('SELECT 3 AS n')).toStrictEqual([{ n: 3 }]);
  }, 60_000);
});
