/**
 * The account change feed: against a fake connection (reconnection with a growing pause, `missed` on every
 * connection, payloads that are not account ids), and on a throwaway PostgreSQL cluster with two stores (two
 * instances): every account change committed on one is told on the other, with the account's id; a change undone
 * is never told.
 */
import { EventEmitter } from 'node:events';
import { err } from 'neverthrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_CHANGES_CHANNEL, startChangeFeed } from '../../../src/store/postgres/change-feed.js';
import type { ListenConnection } from '../../../src/store/postgres/change-feed.js';
import { openStore } from '../../../src/store/open.js';
import type { AccountChange, Store } from '../../../src/store/types.js';
import { postgresServerAvailability, startPostgresCluster } from '../../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../../helpers/postgres-cluster.js';

/** A connection that connects (or fails to) as told, and lets the test send notifications and drop it. */
class FakeConnection extends EventEmitter implements ListenConnection {
  readonly statements: string[] = [];
  ended = false;
  readonly fails: boolean;
  constructor(fails: boolean) {
    super();
    this.fails = fails;
  }
  connect(): Promise<unknown> {
    return this.fails ? Promise.reject(new Error('refused')) : Promise.resolve();
  }
  async query(text: string): Promise<unknown> {
    this.statements.push(text);
    return undefined;
  }
  async end(): Promise<void> {
    this.ended = true;
  }
  notify(payload: string, channel = ACCOUNT_CHANGES_CHANNEL): void {
    this.emit('notification', { channel, payload });
  }
}

const settle = (ms = 5): Promise<void> => new Promise((done) => setTimeout(done, ms));

describe('startChangeFeed (fake connection)', () => {
  it('should LISTEN, tell missed once listening, then each account id; ignore other channels; forget all on a strange payload', async () => {
    const made: FakeConnection[] = [];
    const feed = startChangeFeed({ connect: () => made[made.push(new FakeConnection(false)) - 1] ?? new FakeConnection(true) });
    const told: AccountChange[] = [];
    feed.subscribe((c) => told.push(c));
    await feed.whenListening();
    expect(made[0]?.statements).toStrictEqual([`LISTEN ${ACCOUNT_CHANGES_CHANNEL}`]);
    made[0]?.notify('42');
    made[0]?.notify('7', 'another_channel');
    made[0]?.notify('not an id');
    expect(told).toStrictEqual([{ kind: 'missed' }, { kind: 'account', userId: '42' }, { kind: 'missed' }]);
    await feed.close();
    expect(made[0]?.ended).toBe(true);
  });

  it('should open a lost connection again after a pause, telling missed, and keep trying while connecting fails', async () => {
    const outcomes = [false, true, true, false];
    const made: FakeConnection[] = [];
    const states: string[] = [];
    const feed = startChangeFeed({
      connect: () => {
        const c = new FakeConnection(outcomes[made.length] ?? false);
        made.push(c);
        return c;
      },
      retryMinMs: 1,
      retryMaxMs: 4,
      onState: (s) => states.push(s),
    });
    const told: AccountChange[] = [];
    feed.subscribe((c) => told.push(c));
    await feed.whenListening();
    made[0]?.emit('error', new Error('connection lost'));
    expect(feed.listening()).toBe(false);
    for (let i = 0; i < 200 && !feed.listening(); i++) await settle(2);
    expect(feed.listening()).toBe(true);
    expect(made).toHaveLength(4);
    expect(made[0]?.ended).toBe(true);
    expect(states).toStrictEqual(['listening', 'disconnected', 'listening']);
    expect(told).toStrictEqual([{ kind: 'missed' }, { kind: 'missed' }]);
    made[3]?.notify('5');
    made[0]?.notify('6'); // the lost connection is no longer heard
    expect(told.at(-1)).toStrictEqual({ kind: 'account', userId: '5' });
    expect(told).toHaveLength(3);
    await feed.close();
  });

  it('should stop trying after close, and a throwing subscriber stops neither the feed nor the others', async () => {
    const made: FakeConnection[] = [];
    const feed = startChangeFeed({ connect: () => made[made.push(new FakeConnection(true)) - 1] ?? new FakeConnection(true), retryMinMs: 1, retryMaxMs: 1 });
    await settle(20);
    await feed.close();
    const count = made.length;
    await settle(20);
    expect(made.length).toBe(count);
    const ok2 = startChangeFeed({ connect: () => new FakeConnection(false) });
    const told: AccountChange[] = [];
    ok2.subscribe(() => {
      throw new Error('subscriber failed');
    });
    ok2.subscribe((c) => told.push(c));
    await ok2.whenListening();
    expect(told).toStrictEqual([{ kind: 'missed' }]);
    await ok2.close();
  });
});

const availability = postgresServerAvailability();
if (!availability.run) console.log(`skipping the change feed on a PostgreSQL server: ${availability.reason}`);

describe.runIf(availability.run)('the account change feed on a PostgreSQL server (needs a PostgreSQL server)', () => {
  let cluster: PostgresCluster;
  let a: Store;
  let b: Store;
  const told: AccountChange[] = [];

  /** Waits until instance B was told of `userId` (bounded: 5 s), returning what it was told since `from`. */
  async function toldOf(userId: string, from: number): Promise<readonly AccountChange[]> {
    for (let i = 0; i < 500 && !told.slice(from).some((c) => c.kind === 'account' && c.userId === userId); i++) await settle(10);
    return told.slice(from);
  }

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    const url = await cluster.createDatabase('feed');
    a = (await openStore({ databaseUrl: url }))._unsafeUnwrap().store;
    b = (await openStore({ databaseUrl: url }))._unsafeUnwrap().store;
    expect(typeof b.onAccountChange).toBe('function');
    const listening = new Promise<void>((done) => {
      b.onAccountChange?.((c) => {
        told.push(c);
        if (c.kind === 'missed') done();
      });
    });
    await listening;
  }, 120_000);
  afterAll(async () => {
    await a.close();
    await b.close();
    await cluster.stop();
  });

  it('should tell instance B of every account change committed on instance A', async () => {
    const created = (await a.accounts.create({ usernames: ['alice'], origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 1 }))._unsafeUnwrap();
    const id = created.id;
    const token = (await a.accessTokens.create({ userId: id, digest: 'd1', scopes: ['user:all'], note: '', createdAt: 1, expiresAt: null }))._unsafeUnwrap();
    await a.accessTokens.create({ userId: id, digest: 'd2', scopes: ['user:all'], note: '', createdAt: 1, expiresAt: null });
    const changes: [string, () => Promise<unknown>][] = [
      ['suspend', () => a.accounts.setSuspended(id, 5)],
      ['reinstate', () => a.accounts.setSuspended(id, null)],
      ['grant', () => a.accounts.setSiteAdmin(id, true)],
      ['password', () => a.accounts.setPasswordHash(id, null)],
      ['rename', () => a.accounts.setUsername(id, 'alice2')],
      ['token delete', () => a.accessTokens.delete(token.id)],
      ['every token', () => a.accessTokens.deleteForUser(id)],
      ['every OAuth token', () => a.oauth.revokeForUser(id)],
      ['in a transaction', () => a.transaction(async (tx) => tx.accounts.setSuspended(id, 9))],
      ['account delete', () => a.accounts.delete(id)],
    ];
    for (const [name, change] of changes) {
      const from = told.length;
      await change();
      expect(await toldOf(id, from), name).toContainEqual({ kind: 'account', userId: id });
    }
  });

  it('should never tell a change undone by its transaction', async () => {
    const id = (await a.accounts.create({ usernames: ['bob'], origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 1 }))._unsafeUnwrap().id;
    const from = told.length;
    const undone = await a.transaction(async (tx) => {
      await tx.accounts.setSuspended(id, 5);
      return err('undo');
    });
    expect(undone.isErr()).toBe(true);
    // a committed change after it: once B heard that one, it would have heard the undone one before
    const marker = (await a.accounts.create({ usernames: ['marker'], origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 1 }))._unsafeUnwrap().id;
    await a.accounts.setSuspended(marker, 1);
    const heard = await toldOf(marker, from);
    expect(heard).toContainEqual({ kind: 'account', userId: marker });
    expect(heard).not.toContainEqual({ kind: 'account', userId: id });
    expect(await a.accounts.get(id)).not.toHaveProperty('suspendedAt');
  });
});
