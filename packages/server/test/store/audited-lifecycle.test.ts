/**
 * Every account lifecycle action is kept only with its audit entry (spec §6), as `audited-changes.test.ts` checks
 * the other changes: on a store whose audit log refuses every append (inside its transactions too), the action
 * leaves the store as it was (accounts, sessions, tokens, lockouts, account links, the outbox and the audit log)
 * and logs no `audit` line; run again with the audit log working, it changes the store and writes exactly the
 * expected entry: its entity, its action as the code names it, its reason, its actor and its subject. Each action
 * runs through the server (a GraphQL mutation, a page's form) where a request makes it; the two that run after the
 * request has been answered (the "Forgot password?" mail and the unlock mail) and the first start's link run as
 * the operation the server calls. The table runs on the memory store, on PostgreSQL (PGlite) and on a throwaway
 * PostgreSQL server cluster.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountLink } from '../../src/operations/account-links.js';
import { accountLinkPorts } from '../../src/operations/account-link-ports.js';
import { createFirstAdministratorLink, linkURL, mailResetLink, mailUnlockLink } from '../../src/operations/password-reset.js';
import type { AccountLinkDeps } from '../../src/operations/password-reset.js';
import type { MailQueue } from '../../src/operations/mail.js';
import { VERIFY_EMAIL_PATH } from '../../src/operations/email-verification.js';
import { CSRF_COOKIE } from '../../src/pages/csrf.js';
import { SESSION_COOKIE } from '../../src/session/sessions.js';
import { VERIFICATION_LINK_PATH } from '../../src/site-admin/verification-links.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { SqlDriver } from '../../src/store/postgres/driver.js';
import { openNodePostgresDriver } from '../../src/store/postgres/node-postgres.js';
import { openPgliteDriver } from '../../src/store/postgres/pglite.js';
import type { AuditEntry, Store, UserRecord } from '../../src/store/types.js';
import { postgresServerAvailability, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';
import { reusingOpener } from '../helpers/postgres-store.js';
import { cookieFrom, gql, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { TEST_MAIL_SEALING } from '../helpers/mail-sealing.js';
import { byGraphQL, byRejection, byStatus, withFailingAudit } from '../helpers/failing-audit.js';
import type { Answer } from '../helpers/failing-audit.js';

const CONFIG = JSON.stringify({
  externalURL: 'http://127.0.0.1:9',
  'auth.providers': [{ type: 'builtin', allowSignup: true }],
  'auth.lockout': { failedAttemptThreshold: 2 },
});
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a new long password 7';
const PURPOSES = ['verify_email', 'reset_password', 'unlock_account', 'first_admin'] as const;
const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));

/** Everything a lifecycle action could touch, in a comparable form. */
async function snapshot(store: Store): Promise<unknown> {
  const users = await store.accounts.list({ first: 1000 });
  const perUser = await Promise.all(
    users.map(async (u) => ({
      user: u,
      tokens: (await store.accessTokens.list(u.id)).map(({ lastUsedAt: _used, ...t }) => t),
      sessions: (await store.sessions.list(u.id)).map(({ lastSeenAt: _seen, ...s }) => s),
      lockout: await store.lockouts.get(u.id),
      links: await Promise.all(PURPOSES.map((purpose) => store.links.find(u.id, purpose))),
    })),
  );
  return { perUser, outbox: await store.outbox.list(1000), audit: await store.audit.list(1000) };
}

/** One server on a store with a switchable audit log. */
interface Harness {
  readonly s: TestServer;
  /** The store, its audit log always working. */
  readonly store: Store;
  /** The store the server uses (its audit log fails while `failing.on`). */
  readonly served: Store;
  readonly failing: { on: boolean };
  /** A session cookie for `user`, signed in now. */
  session(user: UserRecord): Promise<string>;
  /** A form post from `page` (fetched first for its form token), as `cookie`'s browser. */
  post(cookie: string, page: string, path: string, fields: readonly [string, string][]): Promise<Response>;
  /** The link operations' dependencies on the failing store, with mail on. */
  linkDeps(): AccountLinkDeps;
}

async function harness(base: Store): Promise<Harness> {
  const failing = { on: false };
  const served = withFailingAudit(base, failing);
  const s = await startServer({ store: served, siteConfiguration: CONFIG });
  let sessions = 0;
  return {
    s,
    store: base,
    served,
    failing,
    async session(user) {
      sessions += 1;
      const id = createHash('sha256').update(`session-${user.id}-${sessions}`).digest('base64url');
      const digest = createHash('sha256').update(id).digest('hex');
      (await base.sessions.create({ digest, userId: user.id, createdAt: s.clock.now, expiresAt: s.clock.now + 3_600_000, lastSeenAt: s.clock.now, userAgent: '' }, 10))._unsafeUnwrap();
      return `${SESSION_COOKIE}=${id}`;
    },
    async post(cookie, page, path, fields) {
      const shown = await fetch(`${s.url}${page}`, { headers: { cookie } });
      const csrfCookie = cookieFrom(shown.headers, CSRF_COOKIE) ?? '';
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await shown.text())?.[1] ?? '';
      return fetch(`${s.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [cookie, csrfCookie].filter((c) => c !== '').join('; '), origin: s.url, 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams([['_csrf', csrf], ...fields]).toString(),
      });
    },
    linkDeps() {
      const now = () => s.clock.now;
      const mail: MailQueue = { enabled: () => true, capacity: 100, now, log: () => undefined, wake: () => undefined, seal: TEST_MAIL_SEALING.seal };
      return {
        store: served,
        now,
        audit: async (event, into) => void (await into.audit.append({ ...event, timestamp: now() })),
        ports: accountLinkPorts({ store: served, mailQueue: mail, now, randomBytes: random, baseURL: () => s.url }),
        expiry: () => ({ passwordResetLinkExpiry: 14_400, unlockAccountLinkExpiry: 300 }),
      };
    },
  };
}

/** The entry an action must write. */
interface Expected {
  readonly entity: string;
  readonly action: string;
  readonly reason: string | null;
  readonly actorUserId: string | null;
  readonly subjectUserId: string;
}

/** A lifecycle action: arranged with the audit log working; returns how to run it and the entry it writes. */
interface Row {
  readonly name: string;
  readonly arrange: (h: Harness) => Promise<{ readonly run: () => Promise<Answer>; readonly entry: Expected }>;
}

async function admin(h: Harness): Promise<{ user: UserRecord; token: string; cookie: string }> {
  const user = await h.s.user('root', true);
  return { user, token: (await h.s.token(user, ['user:all', 'site-admin:sudo'])).token, cookie: await h.session(user) };
}

async function member(h: Harness, username = 'alice'): Promise<{ user: UserRecord; cookie: string }> {
  const signUp = await fetch(`${h.s.url}/.auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, email: `${username}@example.com`, password: PASSWORD }),
  });
  expect(signUp.status).toBe(201);
  const user = (await h.store.accounts.list({ first: 1000 })).find((u) => u.username === username);
  if (user === undefined) throw new Error('no account');
  return { user, cookie: await h.session(user) };
}

const api = (h: Harness, token: string, query: string) => gql(h.s.url, query, { headers: { authorization: `token ${token}` } });

/** A link made straight in the store (the action under test is its use). */
async function link(h: Harness, purpose: (typeof PURPOSES)[number], user: UserRecord, email: string | null = null): Promise<string> {
  return (await createAccountLink(h.store, { purpose, userId: user.id, email, ttlSeconds: 3600, now: h.s.clock.now, randomBytes: random }))._unsafeUnwrap().token;
}

const signIn = (h: Harness, password: string) =>
  fetch(`${h.s.url}/.auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'alice', password }) });

/** The account control mutations, each by an administrator against a member. */
const controlRow = (name: string, mutation: (id: string) => string, action: string, reason: string | null, before?: (h: Harness, r: { token: string }, id: string) => Promise<void>): Row => ({
  name,
  arrange: async (h) => {
    const r = await admin(h);
    const a = await member(h);
    await before?.(h, r, a.user.id);
    return { run: async () => byGraphQL(await api(h, r.token, `mutation { ${mutation(a.user.id)} }`)), entry: { entity: 'user', action, reason, actorUserId: r.user.id, subjectUserId: a.user.id } };
  },
});

const ROWS: readonly Row[] = [
  controlRow('suspend (suspendUser)', (id) => `suspendUser(user: "${id}") { id }`, 'suspended', null),
  controlRow('reinstate (reinstateUser)', (id) => `reinstateUser(user: "${id}") { id }`, 'reinstated', null, async (h, r, id) => {
    await api(h, r.token, `mutation { suspendUser(user: "${id}") { id } }`);
  }),
  controlRow('end all sessions (invalidateSessionsByID)', (id) => `invalidateSessionsByID(userID: "${id}")`, 'sessions_ended', null),
  controlRow('revoke all tokens (revokeUserAccessTokens)', (id) => `revokeUserAccessTokens(user: "${id}")`, 'tokens_revoked', null, async (h, _r, id) => {
    const user = await h.store.accounts.get(id);
    if (user !== null) await h.s.token(user);
  }),
  controlRow('unlock by an administrator (unlockUser)', (id) => `unlockUser(user: "${id}") { id }`, 'unlocked', 'by a site administrator', async (h, _r, id) => {
    (await h.store.lockouts.put({ userId: id, failures: 0, lastFailureAt: null, lockedUntil: h.s.clock.now + 600_000 }))._unsafeUnwrap();
  }),
  controlRow('a reset link by an administrator (createPasswordResetLink)', (id) => `createPasswordResetLink(user: "${id}") { url }`, 'password_reset_link_created', 'by a site administrator'),
  {
    name: 'unlock by the link',
    arrange: async (h) => {
      const a = await member(h);
      (await h.store.lockouts.put({ userId: a.user.id, failures: 0, lastFailureAt: null, lockedUntil: h.s.clock.now + 600_000 }))._unsafeUnwrap();
      const token = await link(h, 'unlock_account', a.user);
      const page = new URL(linkURL(h.s.url, 'unlock_account', token));
      return {
        run: async () => byStatus(await h.post('', `${page.pathname}${page.search}`, page.pathname, [['token', token]])),
        entry: { entity: 'user', action: 'unlocked', reason: 'by the unlock link', actorUserId: a.user.id, subjectUserId: a.user.id },
      };
    },
  },
  {
    name: 'a new password by a reset link',
    arrange: async (h) => {
      const a = await member(h);
      const token = await link(h, 'reset_password', a.user);
      const page = new URL(linkURL(h.s.url, 'reset_password', token));
      return {
        run: async () => byStatus(await h.post('', `${page.pathname}${page.search}`, page.pathname, [['token', token], ['password', NEW_PASSWORD], ['confirm', NEW_PASSWORD]])),
        entry: { entity: 'user', action: 'password_reset', reason: 'by a password reset link', actorUserId: a.user.id, subjectUserId: a.user.id },
      };
    },
  },
  {
    name: 'the "Forgot password?" mail (mailResetLink)',
    arrange: async (h) => {
      const a = await member(h);
      return {
        run: () => byRejection(async () => mailResetLink(h.linkDeps(), a.user)),
        entry: { entity: 'user', action: 'password_reset_requested', reason: 'forgot password', actorUserId: null, subjectUserId: a.user.id },
      };
    },
  },
  {
    name: "the first administrator's link made (createFirstAdministratorLink)",
    arrange: async (h) => {
      const root = await h.s.user('root', true);
      return {
        run: () => byRejection(async () => createFirstAdministratorLink(h.served, { userId: root.id, baseURL: h.s.url, now: () => h.s.clock.now, randomBytes: random })),
        entry: { entity: 'user', action: 'first_admin_link_created', reason: 'first start', actorUserId: root.id, subjectUserId: root.id },
      };
    },
  },
  {
    name: "the first administrator's password set by the link",
    arrange: async (h) => {
      const root = await h.s.user('root', true);
      const made = await createFirstAdministratorLink(h.store, { userId: root.id, baseURL: h.s.url, now: () => h.s.clock.now, randomBytes: random });
      const page = new URL(made ?? '');
      const token = page.searchParams.get('token') ?? '';
      return {
        run: async () => byStatus(await h.post('', `${page.pathname}${page.search}`, page.pathname, [['token', token], ['password', NEW_PASSWORD], ['confirm', NEW_PASSWORD]])),
        entry: { entity: 'user', action: 'first_admin_password_set', reason: "by the first start's link", actorUserId: root.id, subjectUserId: root.id },
      };
    },
  },
  {
    name: 'an email added on the profile page',
    arrange: async (h) => {
      const a = await member(h);
      return {
        run: async () => byStatus(await h.post(a.cookie, '/settings', '/settings/emails', [['email', 'second@example.com'], ['current', PASSWORD]])),
        entry: { entity: 'user', action: 'email_added', reason: null, actorUserId: a.user.id, subjectUserId: a.user.id },
      };
    },
  },
  {
    name: 'an email verified by its link',
    arrange: async (h) => {
      const a = await member(h);
      const token = await link(h, 'verify_email', a.user, 'alice@example.com');
      return {
        run: async () => byStatus(await h.post(a.cookie, `${VERIFY_EMAIL_PATH}?token=${token}`, VERIFY_EMAIL_PATH, [['token', token]])),
        entry: { entity: 'user', action: 'email_verified', reason: null, actorUserId: a.user.id, subjectUserId: a.user.id },
      };
    },
  },
  {
    name: 'an email made primary',
    arrange: async (h) => {
      const a = await member(h);
      (await h.store.accounts.setEmails(a.user.id, [{ email: 'alice@example.com', verified: false }, { email: 'work@example.com', verified: true }]))._unsafeUnwrap();
      return {
        run: async () => byStatus(await h.post(a.cookie, '/settings', '/settings/emails/make-primary', [['email', 'work@example.com'], ['current', PASSWORD]])),
        entry: { entity: 'user', action: 'primary_email_changed', reason: null, actorUserId: a.user.id, subjectUserId: a.user.id },
      };
    },
  },
  {
    name: "the administrator's verification link",
    arrange: async (h) => {
      const r = await admin(h);
      const a = await member(h);
      return {
        run: async () => byStatus(await h.post(r.cookie, '/site-admin/users', VERIFICATION_LINK_PATH, [['id', a.user.id], ['email', 'alice@example.com']])),
        entry: { entity: 'user', action: 'email_verification_sent', reason: null, actorUserId: r.user.id, subjectUserId: a.user.id },
      };
    },
  },
  {
    name: 'lockout reached by failed password sign-ins',
    arrange: async (h) => {
      const a = await member(h);
      expect((await signIn(h, 'not the password')).status).toBe(401);
      return { run: async () => byStatus(await signIn(h, 'not the password either')), entry: { entity: 'user', action: 'locked', reason: '2 failed password sign-ins', actorUserId: null, subjectUserId: a.user.id } };
    },
  },
  {
    name: 'the unlock mail of a locked account (mailUnlockLink)',
    arrange: async (h) => {
      const a = await member(h);
      return {
        run: () => byRejection(async () => mailUnlockLink(h.linkDeps(), a.user)),
        entry: { entity: 'user', action: 'unlock_link_mailed', reason: null, actorUserId: null, subjectUserId: a.user.id },
      };
    },
  },
];

/** Runs one row on `base`: the failing run changes nothing; the working run changes the store and writes the entry. */
async function check(base: Store, row: Row): Promise<void> {
  const h = await harness(base);
  try {
    const { run, entry } = await row.arrange(h);
    const before = await snapshot(h.store);
    const known = new Set((await h.store.audit.list(1000)).map((e) => e.id));
    const logged = h.s.logs.length;
    h.failing.on = true;
    const refused = await run();
    h.failing.on = false;
    expect(refused.failed, `${row.name} with the audit log failing: ${refused.detail}`).toBe(true);
    expect(await snapshot(h.store), `${row.name} left the store as it was`).toStrictEqual(before);
    expect(h.s.logs.slice(logged).filter((e) => e['event'] === 'audit')).toStrictEqual([]);
    const done = await run();
    expect(done.failed, `${row.name} with the audit log working: ${done.detail}`).toBe(false);
    expect(await snapshot(h.store), `${row.name} changes the store when its entry is written`).not.toStrictEqual(before);
    const written = (await h.store.audit.list(1000)).filter((e: AuditEntry) => !known.has(e.id) && e.action === entry.action);
    expect(written, `${row.name} wrote ${entry.action}`).toHaveLength(1);
    expect(written[0]).toMatchObject(entry);
  } finally {
    await h.s.close();
  }
}

describe('every account lifecycle action is kept only with its audit entry: memory store', () => {
  it.each(ROWS.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    await check(createMemoryStore(), row);
  }, 60_000);
});

describe('every account lifecycle action is kept only with its audit entry: PostgreSQL on PGlite', () => {
  let driver: SqlDriver;
  let open: () => Promise<{ store: Store }>;
  beforeAll(async () => {
    driver = await openPgliteDriver({ memory: true });
    open = await reusingOpener(driver);
  }, 120_000);
  afterAll(async () => {
    await driver.close();
  });
  it.each(ROWS.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    await check((await open()).store, row);
  }, 60_000);
});

const availability = postgresServerAvailability();
if (!availability.run) console.log(`skipping the audited lifecycle actions on a PostgreSQL server: ${availability.reason}`);

describe.runIf(availability.run)('every account lifecycle action is kept only with its audit entry: PostgreSQL on a server (needs a PostgreSQL server)', () => {
  let cluster: PostgresCluster;
  let driver: SqlDriver;
  let open: () => Promise<{ store: Store }>;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    driver = await openNodePostgresDriver({ connectionString: await cluster.createDatabase('audited_lifecycle') });
    open = await reusingOpener(driver);
  }, 120_000);
  afterAll(async () => {
    await driver.close();
    await cluster.stop();
  });
  it.each(ROWS.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    await check((await open()).store, row);
  }, 60_000);
});
