/**
 * Every kind of mailed or printed link besides the password reset (which `password-reset.test.ts` covers the same
 * way): email verification, the unlock link and the first administrator's link, made through the operations the
 * server runs, on the memory store, PostgreSQL on PGlite and a throwaway PostgreSQL server. Each is read back from
 * the store: the token is nowhere in it (nor in the outbox, whose body is sealed), the digest is the token's
 * SHA-256, the expiry is the configured one; the link works once (once between concurrent users too), an expired
 * one is refused; making and using it are audited.
 */
import { createHash } from 'node:crypto';
import { err } from 'neverthrow';
import type { Result } from 'neverthrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountLinkPorts } from '../../src/operations/account-link-ports.js';
import { consumeAccountLink } from '../../src/operations/account-links.js';
import { sendEmailVerification, verifyEmailLink } from '../../src/operations/email-verification.js';
import { unlockAccount } from '../../src/operations/lockout.js';
import type { MailQueue } from '../../src/operations/mail.js';
import { createFirstAdministratorLink, FIRST_ADMIN_LINK_SECONDS, mailUnlockLink, setPasswordByLink } from '../../src/operations/password-reset.js';
import type { AccountLinkDeps } from '../../src/operations/password-reset.js';
import { auditedTransaction } from '../../src/store/audited.js';
import type { AuditSink } from '../../src/store/audited.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { SqlDriver } from '../../src/store/postgres/driver.js';
import { openNodePostgresDriver } from '../../src/store/postgres/node-postgres.js';
import { openPgliteDriver } from '../../src/store/postgres/pglite.js';
import type { Store } from '../../src/store/types.js';
import { TEST_MAIL_SEALING } from '../helpers/mail-sealing.js';
import { postgresServerAvailability, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';
import { reusingOpener } from '../helpers/postgres-store.js';

const T = 1_700_000_000_000;
const DAY_MS = 86_400_000;
const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const tokenOf = (url: string): string => new URL(url).searchParams.get('token') ?? '';

function cases(open: () => Promise<Store>): void {
  async function setup(unlockSeconds = 300) {
    const store = await open();
    let now = T;
    const clock = (): number => now;
    const audit: AuditSink = async (event, into) => void (await into.audit.append({ ...event, timestamp: now }));
    const mail: MailQueue = { enabled: () => true, capacity: 100, now: clock, log: () => undefined, wake: () => undefined, seal: TEST_MAIL_SEALING.seal };
    const deps: AccountLinkDeps = {
      store,
      now: clock,
      audit,
      ports: accountLinkPorts({ store, mailQueue: mail, now: clock, randomBytes: random, baseURL: () => 'https://gatehouse.example' }),
      expiry: () => ({ passwordResetLinkExpiry: 14_400, unlockAccountLinkExpiry: unlockSeconds }),
    };
    const create = async (username: string, siteAdmin: boolean, passwordHash: string | null, email: string | null) =>
      (
        await store.accounts.create({
          usernames: [username],
          origin: 'admin_created',
          siteAdmin,
          serviceAccount: false,
          emails: email === null ? [] : [{ email, verified: false }],
          passwordHash,
          createdAt: 0,
        })
      )._unsafeUnwrap();
    /** Every queued mail's opened text and the outbox rows as stored. */
    const outbox = async (): Promise<{ stored: string; opened: string[] }> => {
      const rows = await store.outbox.list(100);
      return { stored: JSON.stringify(rows), opened: rows.map((m) => { const o = TEST_MAIL_SEALING.open(m); return o.kind === 'opened' ? o.text : ''; }) };
    };
    return { store, deps, mail, audit, create, outbox, clock, advance: (ms: number) => void (now += ms) };
  }

  it('email verification: digest only, 24 hours, once, audited when made and used', async () => {
    const { store, mail, audit, create, outbox, clock, advance } = await setup();
    const alice = await create('alice', false, 'hash', 'alice@example.com');
    const verification = { store, now: clock, randomBytes: random, audit, mail, baseURL: () => 'https://gatehouse.example' };
    const sent = (await sendEmailVerification(verification, alice, 'alice@example.com', alice.id))._unsafeUnwrap();
    expect(sent.mail).toBe('queued');
    const token = tokenOf(sent.url);
    const stored = await store.links.find(alice.id, 'verify_email');
    expect(stored).toMatchObject({ purpose: 'verify_email', userId: alice.id, email: 'alice@example.com', digest: sha256(token), expiresAt: T + DAY_MS, usedAt: null });
    expect(JSON.stringify(stored)).not.toContain(token);
    const mailed = await outbox();
    expect(mailed.stored).not.toContain(token);
    expect(mailed.opened.some((text) => text.includes(sent.url))).toBe(true);
    expect((await store.audit.list(1, { action: 'email_verification_sent' }))[0]).toMatchObject({ actorUserId: alice.id, subjectUserId: alice.id, details: { email: 'alice@example.com', mail: 'queued' } });

    const [first, second] = await Promise.all([verifyEmailLink(verification, alice, token), verifyEmailLink(verification, alice, token)]);
    expect([first?.isOk(), second?.isOk()].filter(Boolean)).toHaveLength(1);
    expect((await store.accounts.get(alice.id))?.emails).toStrictEqual([{ email: 'alice@example.com', verified: true }]);
    expect((await verifyEmailLink(verification, alice, token))._unsafeUnwrapErr()).toStrictEqual({ code: 'link_used' });
    expect(await store.audit.list(10, { action: 'email_verified' })).toHaveLength(1);

    // a second address: its link expires after 24 hours, unused
    const saved = (await store.accounts.setEmails(alice.id, [{ email: 'alice@example.com', verified: true }, { email: 'a2@example.com', verified: false }]))._unsafeUnwrap();
    const late = tokenOf((await sendEmailVerification(verification, saved, 'a2@example.com', alice.id))._unsafeUnwrap().url);
    advance(DAY_MS);
    expect((await verifyEmailLink(verification, saved, late))._unsafeUnwrapErr()).toStrictEqual({ code: 'link_expired' });
    expect((await store.accounts.get(alice.id))?.emails[1]).toStrictEqual({ email: 'a2@example.com', verified: false });
  });

  it('unlock link: mailed on a lock, digest only, auth.unlockAccountLinkExpiry, once, audited when mailed and used', async () => {
    const { store, deps, create, outbox, clock, advance } = await setup(120);
    const bob = await create('bob', false, 'hash', 'bob@example.com');
    (await store.lockouts.put({ userId: bob.id, failures: 0, lastFailureAt: null, lockedUntil: T + 1_800_000 }))._unsafeUnwrap();
    expect(await mailUnlockLink(deps, bob)).toBe(true);
    const mailed = await outbox();
    const url = /(https:\/\/gatehouse\.example\/\S+\?token=\S+)/u.exec(mailed.opened.join('\n'))?.[1] ?? '';
    const token = tokenOf(url);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/u);
    expect(mailed.stored).not.toContain(token);
    const stored = await store.links.find(bob.id, 'unlock_account');
    // the configured 120 s, not the default 300 s
    expect(stored).toMatchObject({ purpose: 'unlock_account', userId: bob.id, digest: sha256(token), expiresAt: T + 120_000, usedAt: null });
    expect(JSON.stringify(stored)).not.toContain(token);
    expect((await store.audit.list(1, { action: 'unlock_link_mailed' }))[0]).toMatchObject({ actorUserId: null, subjectUserId: bob.id });

    // what the unlock page does: use the link and unlock in one transaction
    const useLink = () =>
      auditedTransaction(store, async (tx): Promise<Result<unknown, unknown>> => {
        const consumed = await consumeAccountLink(tx, 'unlock_account', token, clock());
        if (consumed.isErr()) return err(consumed.error);
        return unlockAccount({ store: tx, now: clock, audit: deps.audit }, { kind: 'unlock_link' }, consumed.value.userId);
      });
    const outcomes = await Promise.all([useLink(), useLink()]);
    expect(outcomes.filter((o) => o.isOk())).toHaveLength(1);
    expect(await store.lockouts.get(bob.id)).toBeNull();
    expect(await store.audit.list(10, { action: 'unlocked' })).toHaveLength(1);
    expect((await store.audit.list(1, { action: 'unlocked' }))[0]).toMatchObject({ actorUserId: bob.id, subjectUserId: bob.id, reason: 'by the unlock link' });
    expect((await useLink()).isErr()).toBe(true);

    // a new lock, a new link, used too late
    (await store.lockouts.put({ userId: bob.id, failures: 0, lastFailureAt: null, lockedUntil: T + 1_800_000 }))._unsafeUnwrap();
    expect(await mailUnlockLink(deps, bob)).toBe(true);
    const newer = (await store.links.find(bob.id, 'unlock_account'))?.digest;
    expect(newer).not.toBe(sha256(token));
    advance(120_000);
    const rows = await outbox();
    const lateToken = tokenOf(/(https:\/\/gatehouse\.example\/\S+\?token=\S+)/u.exec(rows.opened.at(-1) ?? '')?.[1] ?? 'https://x/?token=none');
    expect(sha256(lateToken)).toBe(newer);
    expect((await consumeAccountLink(store, 'unlock_account', lateToken, clock()))._unsafeUnwrapErr()).toStrictEqual({ code: 'link_expired' });
    expect(await store.lockouts.get(bob.id)).not.toBeNull();
  });

  it('first administrator link: printed once, digest only, 24 hours, once, audited when made and used', async () => {
    const { store, deps, create, clock, advance } = await setup();
    const root = await create('root', true, null, null);
    const url = await createFirstAdministratorLink(store, { userId: root.id, baseURL: 'https://gatehouse.example', now: clock, randomBytes: random });
    expect(url).toMatch(/^https:\/\/gatehouse\.example\/\.auth\/first-admin\?token=/u);
    const token = tokenOf(url ?? '');
    const stored = await store.links.find(root.id, 'first_admin');
    expect(FIRST_ADMIN_LINK_SECONDS).toBe(86_400);
    expect(stored).toMatchObject({ purpose: 'first_admin', userId: root.id, digest: sha256(token), expiresAt: T + DAY_MS, usedAt: null });
    expect(JSON.stringify(stored)).not.toContain(token);
    expect((await store.audit.list(1, { action: 'first_admin_link_created' }))[0]).toMatchObject({ actorUserId: root.id, subjectUserId: root.id });

    const outcomes = await Promise.all([setPasswordByLink(deps, 'first_admin', token, 'hash-a'), setPasswordByLink(deps, 'first_admin', token, 'hash-b')]);
    expect(outcomes.filter((o) => o.isOk())).toHaveLength(1);
    expect(['hash-a', 'hash-b']).toContain((await store.accounts.get(root.id))?.passwordHash);
    expect((await setPasswordByLink(deps, 'first_admin', token, 'hash-c'))._unsafeUnwrapErr()).toStrictEqual({ code: 'link', reason: 'link_used' });
    expect(await store.audit.list(10, { action: 'first_admin_password_set' })).toHaveLength(1);
    // an account with a password gets no first administrator link
    expect(await createFirstAdministratorLink(store, { userId: root.id, baseURL: 'https://gatehouse.example', now: clock, randomBytes: random })).toBeNull();

    // on another account without a password, a link used after 24 hours is refused
    const other = await create('root2', true, null, null);
    const late = tokenOf((await createFirstAdministratorLink(store, { userId: other.id, baseURL: 'https://gatehouse.example', now: clock, randomBytes: random })) ?? '');
    advance(DAY_MS);
    expect((await setPasswordByLink(deps, 'first_admin', late, 'x'))._unsafeUnwrapErr()).toStrictEqual({ code: 'link', reason: 'link_expired' });
    expect((await store.accounts.get(other.id))?.passwordHash).toBeNull();
  });
}

describe('link kinds on createMemoryStore', () => {
  cases(async () => createMemoryStore());
});

describe('link kinds on createPostgresStore on PGlite in memory', () => {
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
if (!availability.run) console.log(`skipping the link kinds on a PostgreSQL server: ${availability.reason}`);

describe.runIf(availability.run)('link kinds on createPostgresStore on a PostgreSQL server', () => {
  let cluster: PostgresCluster;
  let driver: SqlDriver;
  let open: () => Promise<{ store: Store }>;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    driver = await openNodePostgresDriver({ connectionString: await cluster.createDatabase('link_kinds') });
    open = await reusingOpener(driver);
  }, 120_000);
  afterAll(async () => {
    await driver?.close();
    await cluster?.stop();
  });
  cases(async () => (await open()).store);
});
