import { err } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../src/kernel/logging.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { Store } from '../../src/store/types.js';
import { reportStoreErrors } from '../../src/store/errors.js';

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
    expect(logs).toStrictEqual([{ level: 'error', event: 'store_error', operation, name: 'Error' }]);
  });

  it('should report no refusal: an err result is an answer, passed through as it is', async () => {
    const logs: LogEntry[] = [];
    const watched = reportStoreErrors(createMemoryStore(), (entry) => logs.push(entry));
    expect(await watched.accounts.setSiteAdmin('missing', true)).toStrictEqual(err({ code: 'unknown_user', userId: 'missing' }));
    expect(await watched.accounts.get('missing')).toBeNull();
    expect(logs).toStrictEqual([]);
  });
});
