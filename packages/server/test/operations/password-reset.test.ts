/**
 * Setting a password by a link on every store (memory, PostgreSQL on PGlite, PostgreSQL on a throwaway server
 * cluster), read back from the store: the link is kept as its token's SHA-256 digest only, it works once (also
 * between concurrent callers), and using it sets the hash, ends every session and forgets the lockout in one
 * transaction with its audit entry; a refused use changes nothing.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountLinkPorts } from '../../src/operations/account-link-ports.js';
import { makeResetLinkAsAdmin, setPasswordByLink } from '../../src/operations/password-reset.js';
import type { AccountLinkDeps } from '../../src/operations/password-reset.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { SqlDriver } from '../../src/store/postgres/driver.js';
import { openNodePostgresDriver } from '../../src/store/postgres/node-postgres.js';
import { openPgliteDriver } from '../../src/store/postgres/pglite.js';
import type { Store } from '../../src/store/types.js';
import { postgresServerAvailability, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';
import { reusingOpener } from '../helpers/postgres-store.js';

const T = 1_700_000_000_000;
const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));

function cases(open: () => Promise<Store>): void {
  async function setup() {
    const store = await open();
    let now = T;
    const deps: AccountLinkDeps = {
      store,
      now: () => now,
      audit: async (event, into) => void (await into.audit.append({ ...event, timestamp: now })),
      ports: accountLinkPorts({ store, mailQueue: null, now: () => now, randomBytes: random, baseURL: () => 'https://gatehouse.example' }),
      expiry: () => ({ passwordResetLinkExpiry: 600, unlockAccountLinkExpiry: 300 }),
    };
    const create = async (username: string, siteAdmin: boolean) =>
      (await store.accounts.create({ usernames: [username], origin: 'admin_created', siteAdmin, serviceAccount: false, emails: [], passwordHash: 'old-hash', createdAt: 0 }))._unsafeUnwrap();
    const admin = await create('root', true);
    const alice = await create('alice', false);
    for (let i = 0; i < 2; i += 1) {
      (await store.sessions.create({ digest: `s${i}`, userId: alice.id, createdAt: T, expiresAt: T + 3_600_000, lastSeenAt: T, userAgent: '' }, 10))._unsafeUnwrap();
    }
    (await store.lockouts.put({ userId: alice.id, failures: 0, lastFailureAt: null, lockedUntil: T + 1_000_000 }))._unsafeUnwrap();
    const made = (await makeResetLinkAsAdmin(deps, admin, alice.id))._unsafeUnwrap();
    const token = new URL(made.url).searchParams.get('token') ?? '';
    return { store, deps, admin, alice, token, advance: (ms: number) => void (now += ms) };
  }

  it('should keep only the digest of the token, and use the link once: hash set, sessions ended, lockout forgotten, audited', async () => {
    const { store, deps, alice, token } = await setup();
    const stored = await store.links.find(alice.id, 'reset_password');
    expect(stored).toMatchObject({ purpose: 'reset_password', userId: alice.id, digest: createHash('sha256').update(token).digest('hex'), expiresAt: T + 600_000, usedAt: null });
    expect(JSON.stringify(stored)).not.toContain(token);
    const used = await setPasswordByLink(deps, 'reset_password', token, 'new-hash');
    expect(used.isOk() && used.value.sessionsEnded).toBe(2);
    expect((await store.accounts.get(alice.id))?.passwordHash).toBe('new-hash');
    expect(await store.sessions.list(alice.id)).toStrictEqual([]);
    expect(await store.lockouts.get(alice.id)).toBeNull();
    expect((await store.links.find(alice.id, 'reset_password'))?.usedAt).toBe(T);
    expect((await store.audit.list(1, { action: 'password_reset' }))[0]).toMatchObject({ actorUserId: alice.id, subjectUserId: alice.id, details: { sessionsEnded: '2' } });
    const again = await setPasswordByLink(deps, 'reset_password', token, 'third-hash');
    expect(again.isErr() && again.error).toStrictEqual({ code: 'link', reason: 'link_used' });
    expect((await store.accounts.get(alice.id))?.passwordHash).toBe('new-hash');
  });

  it('should let one of two concurrent uses win, the other change nothing', async () => {
    const { store, deps, alice, token } = await setup();
    const outcomes = await Promise.all([setPasswordByLink(deps, 'reset_password', token, 'hash-a'), setPasswordByLink(deps, 'reset_password', token, 'hash-b')]);
    expect(outcomes.filter((o) => o.isOk())).toHaveLength(1);
    const winner = outcomes[0]?.isOk() ? 'hash-a' : 'hash-b';
    expect((await store.accounts.get(alice.id))?.passwordHash).toBe(winner);
    expect(await store.audit.list(10, { action: 'password_reset' })).toHaveLength(1);
  });

  it('should refuse an expired link, another purpose and a made-up token, changing nothing', async () => {
    const { store, deps, alice, token, advance } = await setup();
    expect((await setPasswordByLink(deps, 'first_admin', token, 'x'))._unsafeUnwrapErr()).toStrictEqual({ code: 'link', reason: 'wrong_purpose' });
    expect((await setPasswordByLink(deps, 'reset_password', 'A'.repeat(43), 'x'))._unsafeUnwrapErr()).toStrictEqual({ code: 'link', reason: 'unknown_link' });
    advance(600_000);
    expect((await setPasswordByLink(deps, 'reset_password', token, 'x'))._unsafeUnwrapErr()).toStrictEqual({ code: 'link', reason: 'link_expired' });
    expect((await store.accounts.get(alice.id))?.passwordHash).toBe('old-hash');
    expect(await store.sessions.list(alice.id)).toHaveLength(2);
    expect(await store.lockouts.get(alice.id)).not.toBeNull();
  });
}

describe('password by link: memory store', () => {
  cases(async () => createMemoryStore());
});

describe('password by link: PostgreSQL on PGlite', () => {
  let driver: SqlDriver;
  let open: () => Promise<{ store: Store }>;
  beforeAll(async () => {
    driver = await openPgliteDriver({ memory: true });
    open = await reusingOpener(driver);
  }, 120_000);
  afterAll(async () => {
    await driver.close();
  });
  cases(async () => (await open()).store);
});

const availability = postgresServerAvailability();
if (!availability.run) console.log(`skipping password by link on a PostgreSQL server: ${availability.reason}`);

describe.runIf(availability.run)('password by link: PostgreSQL on a server (needs a PostgreSQL server)', () => {
  let cluster: PostgresCluster;
  let driver: SqlDriver;
  let open: () => Promise<{ store: Store }>;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    driver = await openNodePostgresDriver({ connectionString: await cluster.createDatabase('links') });
    open = await reusingOpener(driver);
  }, 120_000);
  afterAll(async () => {
    await driver.close();
    await cluster.stop();
  });
  cases(async () => (await open()).store);
});
