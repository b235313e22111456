import { err } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../src/kernel/logging.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { Store } from '../../src/store/types.js';
import { reportStoreErrors } from '../../src/store/errors.js';
import { applyMigrations } from '../../src/store/postgres/migrate.js';
import { openPgliteDriver } from '../../src/store/postgres/pglite.js';
import { createPostgresStore } from '../../src/store/postgres/store.js';

describe('reportStoreErrors', () => {
  const down = (): Promise<never> => Promise.reject(new Error('database unreachable'));

  it.each([
    { ref: 'an account lookup', operation: 'accounts.get', call: (s: Store) => s.accounts.get('1'), broken: (m: Store): Store => ({ ...m, accounts: { ...m.accounts, get: down } }) },
    { ref: 'an OAuth app lookup', operation: 'oauth.findApp', call: (s: Store) => s.oauth.findApp('c'), broken: (m: Store): Store => ({ ...m, oauth: { ...m.oauth, findApp: down } }) },
    { ref: 'an audit listing', operation: 'audit.list', call: (s: Store) => s.audit.list(10), broken: (m: Store): Store => ({ ...m, audit: { ...m.audit, list: down } }) },
    { ref: 'a transaction', operation: 'transaction', call: (s: Store) => s.transaction(async () => err('x')), broken: (m: Store): Store => ({ ...m, transaction: down }) },
  ])('should log a failing $ref under its group and method ($operation) and fail as before', async ({ operation, call, broken }) => {
    const logs: LogEntry[] = [];
    const watched = reportStoreErrors(broken(createMemoryStore()), (entry) => logs.push(entry));
    await expect(call(watched)).rejects.toThrow('database unreachable');
    expect(logs).toStrictEqual([{ level: 'error', event: 'store_error', operation, name: 'Error', code: null }]);
  });

  it('should report no refusal: an err result is an answer, passed through as it is', async () => {
    const logs: LogEntry[] = [];
    const watched = reportStoreErrors(createMemoryStore(), (entry) => logs.push(entry));
    expect(await watched.accounts.setSiteAdmin('missing', true)).toStrictEqual(err({ code: 'unknown_user', userId: 'missing' }));
    expect(await watched.accounts.get('missing')).toBeNull();
    expect(logs).toStrictEqual([]);
  });

  it('should name the database error code of a real failure (a SQLSTATE), never its message', async () => {
    const driver = await openPgliteDriver({ memory: true });
    try {
      expect((await applyMigrations(driver)).isOk()).toBe(true);
      // the table a lookup needs is gone: PostgreSQL answers undefined_table
      await driver.exec('DROP TABLE oauth_apps CASCADE');
      const logs: LogEntry[] = [];
      const watched = reportStoreErrors(createPostgresStore(driver), (entry) => logs.push(entry));
      await expect(watched.oauth.findApp('secret-client-id')).rejects.toThrow();
      expect(logs).toStrictEqual([{ level: 'error', event: 'store_error', operation: 'oauth.findApp', name: 'error', code: '42P01' }]);
      expect(JSON.stringify(logs)).not.toContain('secret-client-id');
    } finally {
      await driver.close();
    }
  }, 60_000);

  it('should take the code of a wrapped cause (a connection error), and no code that is not one', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' });
    const cases: readonly [unknown, string | null][] = [
      [new Error('pool failed', { cause: refused }), 'ECONNREFUSED'],
      [Object.assign(new Error('x'), { code: 'duplicate key value (email)=(alice@example.com)' }), null],
      ['a string', null],
    ];
    for (const [error, code] of cases) {
      const logs: LogEntry[] = [];
      const memory = createMemoryStore();
      const watched = reportStoreErrors({ ...memory, accounts: { ...memory.accounts, get: () => Promise.reject(error) } }, (entry) => logs.push(entry));
      await expect(watched.accounts.get('1')).rejects.toBe(error);
      expect(logs.map((l) => l['code'])).toStrictEqual([code]);
    }
  });
});
