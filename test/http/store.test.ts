import { ACCOUNT_ORIGINS } from '../../src/core/account-directory.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Result } from 'neverthrow';
import type { AuthorizationCodeRecord } from '../../src/core/oauth-authorization.js';
import { createMemoryStore as createGroupedMemoryStore } from '../../src/http/store/memory.js';
import { flatStoreOf } from '../helpers/flat-store.js';
import type { ExternalAccountRecord, FlatOAuthStore, FlatStore as Store, FlatStoreError as StoreError, NewAuditEntry, SessionRecord, UserRecord } from '../helpers/flat-store.js';

/** The flat view of a fresh grouped memory store: this suite pins the grouped store's behaviour through it. */
const createMemoryStore = (): Store => flatStoreOf(createGroupedMemoryStore());
/** The flat OAuth part of a fresh grouped memory store. */
const createMemoryOAuthStore = (): FlatOAuthStore => createMemoryStore().oauth;

/** A deliberately simple model: lists of plain records. */
interface Model {
  users: { username: string; verifiedEmails: string[] }[];
  tokens: { id: string; digest: string }[];
}

type Real = { store: Store };

const names = fc.constantFrom('ann', 'ANN', 'bob', 'Bob', 'cy');
const emails = fc.constantFrom('a@x.io', 'A@X.IO', 'b@x.io', 'c@x.io');
const digests = fc.constantFrom('d1', 'd2', 'd3');

async function snapshot(store: Store): Promise<unknown> {
  const users = await store.listUsers();
  const tokens = await Promise.all(users.map((u) => store.listAccessTokens(u.id)));
  return { users, tokens };
}

class CreateUser implements fc.AsyncCommand<Model, Real> {
  readonly username: string;
  readonly email: string;
  readonly verified: boolean;
  constructor(username: string, email: string, verified: boolean) {
    this.username = username;
    this.email = email;
    this.verified = verified;
  }
  check(): boolean {
    return true;
  }
  async run(m: Model, r: Real): Promise<void> {
    const before = await snapshot(r.store);
    const result = await r.store.createUser({
      username: this.username,
      origin: 'admin_created',
      siteAdmin: false,
      serviceAccount: false,
      emails: [{ email: this.email, verified: this.verified }],
      passwordHash: null,
      createdAt: 0,
    });
    const nameTaken = m.users.some((u) => u.username.toLowerCase() === this.username.toLowerCase());
    const emailTaken = this.verified && m.users.some((u) => u.verifiedEmails.includes(this.email.toLowerCase()));
    const expected = nameTaken ? 'username_taken' : emailTaken ? 'email_taken' : 'ok';
    expect(result.isOk() ? 'ok' : result.error.code).toBe(expected);
    if (result.isOk()) m.users.push({ username: this.username, verifiedEmails: this.verified ? [this.email.toLowerCase()] : [] });
    else expect(await snapshot(r.store)).toStrictEqual(before);
  }
  toString(): string {
    return `createUser(${this.username}, ${this.email}, ${String(this.verified)})`;
  }
}

class CreateToken implements fc.AsyncCommand<Model, Real> {
  readonly userIndex: number;
  readonly digest: string;
  constructor(userIndex: number, digest: string) {
    this.userIndex = userIndex;
    this.digest = digest;
  }
  check(m: Readonly<Model>): boolean {
    return m.users.length > 0;
  }
  async run(m: Model, r: Real): Promise<void> {
    const users = await r.store.listUsers();
    const user = users[this.userIndex % users.length];
    if (user === undefined) throw new Error('model and store disagree');
    const before = await snapshot(r.store);
    const result = await r.store.createAccessToken({ userId: user.id, digest: this.digest, scopes: ['user:all'], note: '', createdAt: 0, expiresAt: null });
    const expected = m.tokens.some((t) => t.digest === this.digest) ? 'duplicate_digest' : 'ok';
    expect(result.isOk() ? 'ok' : result.error.code).toBe(expected);
    if (result.isOk()) m.tokens.push({ id: result.value.id, digest: this.digest });
    else expect(await snapshot(r.store)).toStrictEqual(before);
  }
  toString(): string {
    return `createToken(${this.userIndex}, ${this.digest})`;
  }
}

class DeleteToken implements fc.AsyncCommand<Model, Real> {
  readonly index: number;
  constructor(index: number) {
    this.index = index;
  }
  check(m: Readonly<Model>): boolean {
    return m.tokens.length > 0;
  }
  async run(m: Model, r: Real): Promise<void> {
    const token = m.tokens[this.index % m.tokens.length];
    if (token === undefined) throw new Error('unreachable');
    expect((await r.store.deleteAccessToken(token.id)).isOk()).toBe(true);
    expect(await r.store.findAccessTokenByDigest(token.digest)).toBeNull();
    expect((await r.store.deleteAccessToken(token.id)).isErr()).toBe(true);
    m.tokens = m.tokens.filter((t) => t.id !== token.id);
  }
  toString(): string {
    return `deleteToken(${this.index})`;
  }
}

describe('createMemoryStore (every operation atomic)', () => {
  it('should agree with a simple model, and leave the store unchanged after every failed operation', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands([
          fc.tuple(names, emails, fc.boolean()).map(([n, e, v]) => new CreateUser(n, e, v)),
          fc.tuple(fc.nat(10), digests).map(([i, d]) => new CreateToken(i, d)),
          fc.nat(10).map((i) => new DeleteToken(i)),
        ]),
        async (commands) => {
          await fc.asyncModelRun(() => ({ model: { users: [], tokens: [] }, real: { store: createMemoryStore() } }), commands);
        },
      ),
      { seed: 5, numRuns: 200 },
    );
  });

  it('should refuse a user whose external account is already linked, changing nothing', async () => {
    const store = createMemoryStore();
    const ext = { serviceType: 'hosta', serviceId: 'https://hosta.example/', accountId: '42', createdAt: 0 };
    const base = { origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 0 } as const;
    expect((await store.createUser({ ...base, username: 'one', externalAccount: ext })).isOk()).toBe(true);
    const second = await store.createUser({ ...base, username: 'two', externalAccount: ext });
    expect(second.isErr() && second.error).toStrictEqual({ code: 'external_account_taken', serviceType: 'hosta', accountId: '42' });
    expect((await store.listUsers()).map((u) => u.username)).toStrictEqual(['one']);
  });

  it('should list the newest audit entries first', async () => {
    const store = createMemoryStore();
    for (const action of ['a', 'b', 'c', 'd']) await store.appendAudit(auditInput({ action }));
    expect((await store.listAudit(3)).map((e) => e.action)).toStrictEqual(['d', 'c', 'b']);
    expect((await store.listAudit(1)).map((e) => e.action)).toStrictEqual(['d']);
  });
});

describe('createMemoryStore: account origin', () => {
  it.each(ACCOUNT_ORIGINS)('should keep the origin %s as given, on every lookup', async (origin) => {
    const store = createMemoryStore();
    const input = { username: 'one', origin, siteAdmin: false, serviceAccount: origin === 'service_account', emails: [{ email: 'one@example.com', verified: true }], passwordHash: null, createdAt: 0 };
    const created = (await store.createUser(input))._unsafeUnwrap();
    expect(created.origin).toBe(origin);
    expect([(await store.getUser(created.id))?.origin, (await store.findUserByUsername('ONE'))?.origin, (await store.findUserByVerifiedEmail('one@example.com'))?.origin]).toStrictEqual([origin, origin, origin]);
  });
});

const auditInput = (overrides: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
  timestamp: 0,
  entity: 'e',
  action: 'a',
  reason: null,
  actorUserId: null,
  subjectUserId: null,
  details: {},
  ...overrides,
});

describe('Store.appendAudit / purgeAudit: kept by age, never evicted by count, coalesced by key (§6 rule 1)', () => {
  it('should keep the first of 100,001 entries: appending never evicts an older entry (§6 rule 1)', async () => {
    const store = createMemoryStore();
    const first = await store.appendAudit(auditInput({ action: 'first', timestamp: 1 }));
    for (let i = 0; i < 100_000; i++) await store.appendAudit(auditInput({ action: 'flood', timestamp: 2, details: { n: String(i) } }));
    const all = await store.listAudit(200_000);
    expect(all.length).toBe(100_001);
    expect(all[all.length - 1]).toStrictEqual(first);
  });

  it('should store a new entry with count 1 and firstAt = lastAt = timestamp', async () => {
    const store = createMemoryStore();
    const entry = await store.appendAudit(auditInput({ timestamp: 5, details: { scheme: 'basic' } }));
    expect(entry).toStrictEqual({ ...auditInput({ timestamp: 5, details: { scheme: 'basic' } }), id: '1', count: 1, firstAt: 5, lastAt: 5 });
  });

  it('should count an entry with the coalesceKey of a kept entry in that entry (count, firstAt, lastAt), in place', async () => {
    const store = createMemoryStore();
    await store.appendAudit(auditInput({ action: 'before', timestamp: 1 }));
    const flood = auditInput({ action: 'failed', coalesceKey: 'k' });
    const first = await store.appendAudit({ ...flood, timestamp: 10 });
    await store.appendAudit(auditInput({ action: 'between', timestamp: 11 }));
    for (let t = 12; t < 1012; t++) await store.appendAudit({ ...flood, timestamp: t });
    const other = await store.appendAudit({ ...flood, timestamp: 2000, coalesceKey: 'other' });
    const listed = await store.listAudit(10);
    expect(listed.map((e) => [e.action, e.count, e.firstAt, e.lastAt])).toStrictEqual([
      ['failed', 1, 2000, 2000],
      ['between', 1, 11, 11],
      ['failed', 1001, 10, 1011],
      ['before', 1, 1, 1],
    ]);
    expect(listed[2]?.id).toBe(first.id);
    expect(other.id).not.toBe(first.id);
    // the key is an instruction to the store, not part of the entry
    expect(listed.some((e) => 'coalesceKey' in e)).toBe(false);
  });

  it('should remove only entries whose lastAt is before the cutoff, oldest first, at most limit per call', async () => {
    const store = createMemoryStore();
    for (let t = 0; t < 10; t++) await store.appendAudit(auditInput({ action: String(t), timestamp: t }));
    expect(await store.purgeAudit(5, 3)).toBe(3);
    expect(await store.purgeAudit(5, 3)).toBe(2);
    expect(await store.purgeAudit(5, 3)).toBe(0);
    expect((await store.listAudit(100)).map((e) => e.action)).toStrictEqual(['9', '8', '7', '6', '5']);
  });

  it('should keep a coalesced entry while its last occurrence is within retention, and start a new one after it is purged', async () => {
    const store = createMemoryStore();
    await store.appendAudit(auditInput({ timestamp: 0, coalesceKey: 'k' }));
    await store.appendAudit(auditInput({ timestamp: 50, coalesceKey: 'k' }));
    expect(await store.purgeAudit(40, 10)).toBe(0);
    expect(await store.purgeAudit(51, 10)).toBe(1);
    const fresh = await store.appendAudit(auditInput({ timestamp: 60, coalesceKey: 'k' }));
    expect([fresh.count, fresh.firstAt]).toStrictEqual([1, 60]);
  });

  it('should agree with a model (a plain list) on every sequence of appends and purges', async () => {
    type Op = { kind: 'append'; key: string | null; dt: number } | { kind: 'purge'; age: number; limit: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('append' as const), key: fc.option(fc.constantFrom('a', 'b'), { nil: null }), dt: fc.nat(5) }),
      fc.record({ kind: fc.constant('purge' as const), age: fc.nat(20), limit: fc.integer({ min: 1, max: 4 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const store = createMemoryStore();
        let model: { id: number; key: string | null; count: number; firstAt: number; lastAt: number }[] = [];
        let t = 0;
        let nextId = 1;
        for (const o of ops) {
          if (o.kind === 'append') {
            t += o.dt;
            const open = o.key === null ? undefined : model.find((e) => e.key === o.key);
            if (open !== undefined) {
              open.count++;
              open.lastAt = t;
            } else {
              model.push({ id: nextId++, key: o.key, count: 1, firstAt: t, lastAt: t });
            }
            await store.appendAudit(auditInput({ timestamp: t, ...(o.key === null ? {} : { coalesceKey: o.key }) }));
          } else {
            const before = t - o.age;
            let removed = 0;
            while (removed < o.limit && model[0] !== undefined && model[0].lastAt < before) {
              model = model.slice(1);
              removed++;
            }
            expect(await store.purgeAudit(before, o.limit)).toBe(removed);
          }
        }
        const listed = await store.listAudit(1000);
        expect(listed.map((e) => [Number(e.id), e.count, e.firstAt, e.lastAt])).toStrictEqual(
          [...model].reverse().map((e) => [e.id, e.count, e.firstAt, e.lastAt]),
        );
      }),
      { numRuns: 200 },
    );
  });
});

describe('Store.createSession / purgeExpiredSessions: the session quota and the purge', () => {
  const base = { origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 0 } as const;
  const session = (userId: string, n: number, expiresAt = 1_000_000): SessionRecord => ({ digest: `${userId}-${n}`, userId, createdAt: n, expiresAt });

  it("should keep at most maxSessionsPerUser sessions per account, revoking the account's oldest and no one else's", async () => {
    const store = createMemoryStore();
    const alice = (await store.createUser({ ...base, username: 'alice' }))._unsafeUnwrap();
    const bob = (await store.createUser({ ...base, username: 'bob' }))._unsafeUnwrap();
    expect((await store.createSession(session(bob.id, 0), 50)).isOk()).toBe(true);
    for (let n = 1; n <= 51; n++) expect((await store.createSession(session(alice.id, n), 50)).isOk()).toBe(true);
    expect(await store.findSessionByDigest(`${alice.id}-1`)).toBeNull();
    for (let n = 2; n <= 51; n++) expect(await store.findSessionByDigest(`${alice.id}-${n}`)).not.toBeNull();
    expect(await store.findSessionByDigest(`${bob.id}-0`)).not.toBeNull();
  });

  it('should revoke by createdAt, not by arrival, and count a deleted session as gone', async () => {
    const store = createMemoryStore();
    const alice = (await store.createUser({ ...base, username: 'alice' }))._unsafeUnwrap();
    await store.createSession(session(alice.id, 5), 2);
    await store.createSession(session(alice.id, 3), 2);
    await store.createSession(session(alice.id, 9), 2);
    expect(await store.findSessionByDigest(`${alice.id}-3`)).toBeNull();
    expect(await store.findSessionByDigest(`${alice.id}-5`)).not.toBeNull();
    expect(await store.deleteSession(`${alice.id}-5`)).toBe(true);
    await store.createSession(session(alice.id, 10), 2);
    expect(await store.findSessionByDigest(`${alice.id}-9`)).not.toBeNull();
  });

  it('should purge expired sessions in batches of at most limit, returning fewer only when none remain', async () => {
    const store = createMemoryStore();
    const alice = (await store.createUser({ ...base, username: 'alice' }))._unsafeUnwrap();
    for (let n = 0; n < 7; n++) await store.createSession(session(alice.id, n, n < 5 ? 100 : 1_000), 50);
    expect(await store.purgeExpiredSessions(100, 2)).toBe(2);
    expect(await store.purgeExpiredSessions(100, 2)).toBe(2);
    expect(await store.purgeExpiredSessions(100, 2)).toBe(1);
    expect(await store.purgeExpiredSessions(100, 2)).toBe(0);
    for (let n = 5; n < 7; n++) expect(await store.findSessionByDigest(`${alice.id}-${n}`)).not.toBeNull();
    // a purged session no longer counts against the quota
    for (let n = 7; n < 55; n++) await store.createSession(session(alice.id, n, 1_000), 50);
    expect(await store.findSessionByDigest(`${alice.id}-5`)).not.toBeNull();
  });
});

describe('OAuthStore.purgeAuthorizationCodes', () => {
  const code = (codeHash: string, expiresAt: number, used: boolean): AuthorizationCodeRecord => ({
    codeHash,
    familyId: `f-${codeHash}`,
    clientId: 'gai_c',
    userId: 'u1',
    redirectUri: 'https://app.example/cb',
    redirectUriGiven: true,
    scopes: ['user:all'],
    codeChallenge: 'x'.repeat(43),
    expiresAt,
    used,
  });

  it('should remove used and unused codes expired by the cutoff, at most limit per call, and keep the others', async () => {
    const oauth = createMemoryOAuthStore();
    await oauth.insertAuthorizationCode(code('a', 10, true));
    await oauth.insertAuthorizationCode(code('b', 20, false));
    await oauth.insertAuthorizationCode(code('c', 30, false));
    await oauth.insertAuthorizationCode(code('d', 40, false));
    expect(await oauth.purgeAuthorizationCodes(30, 2)).toBe(2);
    expect(await oauth.purgeAuthorizationCodes(30, 2)).toBe(1);
    expect(await oauth.purgeAuthorizationCodes(30, 2)).toBe(0);
    expect(await oauth.findAuthorizationCode('a')).toBeNull();
    expect(await oauth.findAuthorizationCode('c')).toBeNull();
    expect(await oauth.findAuthorizationCode('d')).toStrictEqual(code('d', 40, false));
  });
});

describe('createMemoryStore: unlinking and provider credentials', () => {
  const base = { origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 0 } as const;
  const ext = (accountId: string) => ({ serviceType: 'hosta', serviceId: 'https://hosta.example', accountId, createdAt: 0 });

  it('should unlink only when the guard, run inside the same step, agrees; changing nothing otherwise', async () => {
    const store = createMemoryStore();
    const user = (await store.createUser({ ...base, username: 'one', externalAccount: ext('1') }))._unsafeUnwrap();
    await store.addExternalAccount({ ...ext('2'), userId: user.id });
    const keepOne = (remaining: readonly unknown[]): boolean => remaining.length >= 1;
    expect((await store.deleteExternalAccount(user.id, 'hosta', 'https://hosta.example', '1', keepOne)).isOk()).toBe(true);
    const refused = await store.deleteExternalAccount(user.id, 'hosta', 'https://hosta.example', '2', keepOne);
    expect(refused.isErr() && refused.error).toStrictEqual({ code: 'guard_refused' });
    expect((await store.listExternalAccounts(user.id)).map((e) => e.accountId)).toStrictEqual(['2']);
    const unknown = await store.deleteExternalAccount(user.id, 'hosta', 'https://hosta.example', '1');
    expect(unknown.isErr() && unknown.error).toStrictEqual({ code: 'unknown_external_account', serviceType: 'hosta', accountId: '1' });
    // another account cannot unlink it
    const other = (await store.createUser({ ...base, username: 'two' }))._unsafeUnwrap();
    expect((await store.deleteExternalAccount(other.id, 'hosta', 'https://hosta.example', '2')).isErr()).toBe(true);
    expect(await store.findExternalAccount('hosta', 'https://hosta.example', '2')).toMatchObject({ userId: user.id });
  });

  it('should keep one credential per account and provider, replace it, list and remove it', async () => {
    const store = createMemoryStore();
    const user = (await store.createUser({ ...base, username: 'one' }))._unsafeUnwrap();
    const record = { userId: user.id, serviceType: 'reviewhost', serviceId: 'https://r.example', accountId: 'a', sealed: 'v1.x', createdAt: 0 };
    expect((await store.putProviderCredential({ ...record, userId: 'nobody' })).isErr()).toBe(true);
    await store.putProviderCredential(record);
    await store.putProviderCredential({ ...record, sealed: 'v1.y' });
    expect(await store.listProviderCredentials(user.id)).toStrictEqual([{ ...record, sealed: 'v1.y' }]);
    expect((await store.deleteProviderCredential(user.id, 'reviewhost', 'https://r.example')).isOk()).toBe(true);
    expect(await store.listProviderCredentials(user.id)).toStrictEqual([]);
    expect((await store.deleteProviderCredential(user.id, 'reviewhost', 'https://r.example')).isErr()).toBe(true);
  });
});

/**
 * Indexed lookups (username, verified email, linked identity, links of one account) against a full scan of the
 * records, after every step of a random sequence of writes, failed ones included.
 */
describe('createMemoryStore: indexed lookups equal a full scan (sign-in performance)', () => {
  type Link = { userId: string; serviceType: string; serviceId: string; accountId: string; createdAt: number };
  interface IndexModel {
    users: { id: string; username: string; verified: string[] }[];
    /** Every link, in link order. */
    links: Link[];
  }
  type IndexReal = { store: Store };

  // ASCII letters fold, nothing else: 'Ärger' and 'ärger' stay different, as in the core.
  const fold = (s: string): string => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
  const USERNAMES = ['ann', 'ANN', 'Ann', 'bob', 'Ärger', 'ärger'] as const;
  const EMAILS = ['a@x.io', 'A@X.IO', 'É@x.io', 'é@x.io', 'b@x.io'] as const;
  const TRIPLES = [
    ['hosta', '', '1'],
    ['hosta', '', '2'],
    ['hosta', 'https://h', '1'],
    ['hostb', '', '1'],
    ['HOSTA', '', '1'],
  ] as const;
  const triple = fc.constantFrom(...TRIPLES);

  async function records(store: Store): Promise<unknown> {
    const users = await store.listUsers();
    return { users, links: await Promise.all(users.map((u) => store.listExternalAccounts(u.id))) };
  }

  /** Every lookup answered by its index, compared with a scan of `listUsers` and the model's links. */
  async function expectIndexesMatchScan(m: Readonly<IndexModel>, store: Store): Promise<void> {
    const users = await store.listUsers();
    expect(users.map((u) => [u.id, u.username])).toStrictEqual(m.users.map((u) => [u.id, u.username]));
    for (const probe of USERNAMES) {
      expect(await store.findUserByUsername(probe)).toStrictEqual(users.find((u) => fold(u.username) === fold(probe)) ?? null);
    }
    for (const probe of EMAILS) {
      const scan = users.find((u) => u.emails.some((e) => e.verified && fold(e.email) === fold(probe))) ?? null;
      expect(await store.findUserByVerifiedEmail(probe)).toStrictEqual(scan);
    }
    for (const [serviceType, serviceId, accountId] of TRIPLES) {
      const link = m.links.find((l) => l.serviceType === serviceType && l.serviceId === serviceId && l.accountId === accountId);
      expect(await store.findExternalAccount(serviceType, serviceId, accountId)).toStrictEqual(link ?? null);
      expect(await store.findUserByExternalAccount(serviceType, serviceId, accountId)).toStrictEqual(
        link === undefined ? null : (users.find((u) => u.id === link.userId) ?? null),
      );
    }
    for (const u of users) expect(await store.listExternalAccounts(u.id)).toStrictEqual(m.links.filter((l) => l.userId === u.id));
  }

  /** Runs one write; on `err` the records must be exactly as before. Then every index is checked. */
  async function step<T>(
    m: IndexModel,
    store: Store,
    write: () => Promise<Result<T, StoreError>>,
    expected: string,
    commit: (value: T) => void,
  ): Promise<void> {
    const before = await records(store);
    const result = await write();
    expect(result.isOk() ? 'ok' : result.error.code).toBe(expected);
    if (result.isOk()) commit(result.value);
    else expect(await records(store)).toStrictEqual(before);
    await expectIndexesMatchScan(m, store);
  }

  const pickUser = (m: Readonly<IndexModel>, pick: number | null): string =>
    pick === null || m.users.length === 0 ? 'nobody' : (m.users[pick % m.users.length]?.id ?? 'nobody');

  class CreateUserCommand implements fc.AsyncCommand<IndexModel, IndexReal> {
    readonly username: string;
    readonly emails: readonly { email: string; verified: boolean }[];
    readonly serviceAccount: boolean;
    readonly link: readonly [string, string, string] | null;
    constructor(
      username: string,
      emails: readonly { email: string; verified: boolean }[],
      serviceAccount: boolean,
      link: readonly [string, string, string] | null,
    ) {
      this.username = username;
      this.emails = emails;
      this.serviceAccount = serviceAccount;
      this.link = link;
    }
    check(): boolean {
      return true;
    }
    async run(m: IndexModel, r: IndexReal): Promise<void> {
      const verified = this.emails.filter((e) => e.verified).map((e) => fold(e.email));
      const link = this.link;
      const expected = m.users.some((u) => fold(u.username) === fold(this.username))
        ? 'username_taken'
        : m.users.some((u) => u.verified.some((e) => verified.includes(e)))
          ? 'email_taken'
          : link !== null && m.links.some((l) => l.serviceType === link[0] && l.serviceId === link[1] && l.accountId === link[2])
            ? 'external_account_taken'
            : 'ok';
      await step<UserRecord>(
        m,
        r.store,
        () =>
          r.store.createUser({
            username: this.username,
            origin: this.serviceAccount ? 'service_account' : 'admin_created',
            siteAdmin: false,
            serviceAccount: this.serviceAccount,
            emails: this.emails,
            passwordHash: null,
            createdAt: 1,
            ...(link === null ? {} : { externalAccount: { serviceType: link[0], serviceId: link[1], accountId: link[2], createdAt: 2 } }),
          }),
        expected,
        (user) => {
          m.users.push({ id: user.id, username: this.username, verified });
          if (link !== null) m.links.push({ serviceType: link[0], serviceId: link[1], accountId: link[2], createdAt: 2, userId: user.id });
        },
      );
    }
    toString(): string {
      return `createUser(${this.username}, ${JSON.stringify(this.emails)}, ${String(this.serviceAccount)}, ${JSON.stringify(this.link)})`;
    }
  }

  class LinkCommand implements fc.AsyncCommand<IndexModel, IndexReal> {
    readonly user: number | null;
    readonly link: readonly [string, string, string];
    constructor(user: number | null, link: readonly [string, string, string]) {
      this.user = user;
      this.link = link;
    }
    check(): boolean {
      return true;
    }
    async run(m: IndexModel, r: IndexReal): Promise<void> {
      const userId = pickUser(m, this.user);
      const [serviceType, serviceId, accountId] = this.link;
      const record: Link = { userId, serviceType, serviceId, accountId, createdAt: 3 };
      const expected = !m.users.some((u) => u.id === userId)
        ? 'unknown_user'
        : m.links.some((l) => l.serviceType === serviceType && l.serviceId === serviceId && l.accountId === accountId)
          ? 'external_account_taken'
          : 'ok';
      await step(m, r.store, () => r.store.addExternalAccount(record), expected, () => m.links.push(record));
    }
    toString(): string {
      return `link(${String(this.user)}, ${JSON.stringify(this.link)})`;
    }
  }

  class UnlinkCommand implements fc.AsyncCommand<IndexModel, IndexReal> {
    readonly user: number | null;
    readonly link: readonly [string, string, string];
    readonly guard: boolean | null;
    constructor(user: number | null, link: readonly [string, string, string], guard: boolean | null) {
      this.user = user;
      this.link = link;
      this.guard = guard;
    }
    check(): boolean {
      return true;
    }
    async run(m: IndexModel, r: IndexReal): Promise<void> {
      const userId = pickUser(m, this.user);
      const [serviceType, serviceId, accountId] = this.link;
      const mine = (l: Link): boolean =>
        l.userId === userId && l.serviceType === serviceType && l.serviceId === serviceId && l.accountId === accountId;
      const remaining = m.links.filter((l) => l.userId === userId && !mine(l));
      const expected = !m.users.some((u) => u.id === userId)
        ? 'unknown_user'
        : !m.links.some(mine)
          ? 'unknown_external_account'
          : this.guard === false
            ? 'guard_refused'
            : 'ok';
      const seen: unknown[] = [];
      const guard = this.guard;
      await step(
        m,
        r.store,
        () =>
          r.store.deleteExternalAccount(
            userId,
            serviceType,
            serviceId,
            accountId,
            ...(guard === null
              ? []
              : [
                  (rest: readonly ExternalAccountRecord[]): boolean => {
                    seen.push(rest);
                    return guard;
                  },
                ]),
          ),
        expected,
        () => {
          m.links = m.links.filter((l) => !mine(l));
        },
      );
      // the guard saw the links that would remain, in link order
      if (guard !== null && (expected === 'ok' || expected === 'guard_refused')) expect(seen).toStrictEqual([remaining]);
    }
    toString(): string {
      return `unlink(${String(this.user)}, ${JSON.stringify(this.link)}, ${String(this.guard)})`;
    }
  }

  class SetSiteAdminCommand implements fc.AsyncCommand<IndexModel, IndexReal> {
    readonly user: number | null;
    constructor(user: number | null) {
      this.user = user;
    }
    check(): boolean {
      return true;
    }
    async run(m: IndexModel, r: IndexReal): Promise<void> {
      const userId = pickUser(m, this.user);
      // the indexes hold ids: lookups must return the updated record
      await step(m, r.store, () => r.store.setSiteAdmin(userId, true), m.users.some((u) => u.id === userId) ? 'ok' : 'unknown_user', () => {});
    }
    toString(): string {
      return `setSiteAdmin(${String(this.user)})`;
    }
  }

  const userPick = fc.option(fc.nat(8), { nil: null, freq: 6 });
  const commands = fc.commands(
    [
      fc
        .tuple(
          fc.constantFrom(...USERNAMES),
          fc.array(fc.record({ email: fc.constantFrom(...EMAILS), verified: fc.boolean() }, { noNullPrototype: true }), { maxLength: 2 }),
          fc.boolean(),
          fc.option(triple, { nil: null }),
        )
        .map(([u, e, s, l]) => new CreateUserCommand(u, e, s, l)),
      fc.tuple(userPick, triple).map(([u, l]) => new LinkCommand(u, l)),
      fc.tuple(userPick, triple, fc.option(fc.boolean(), { nil: null })).map(([u, l, g]) => new UnlinkCommand(u, l, g)),
      userPick.map((u) => new SetSiteAdminCommand(u)),
    ],
    { maxCommands: 40 },
  );

  it('should answer every indexed lookup as a full scan does, after every operation, failed ones included', async () => {
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        await fc.asyncModelRun(() => ({ model: { users: [], links: [] }, real: { store: createMemoryStore() } }), cmds);
      }),
      { seed: 6, numRuns: 150 },
    );
  });

  it.each([
    { ref: 'ASCII case only: Ä and ä differ', lookup: 'ÄRGER', expected: null },
    { ref: 'ASCII case folds', lookup: 'äRGER', expected: 'ärger' },
  ])('should find users by username with the core ASCII rule ($ref)', async ({ lookup, expected }) => {
    const store = createMemoryStore();
    await store.createUser({ username: 'ärger', origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 0 });
    expect((await store.findUserByUsername(lookup))?.username ?? null).toBe(expected);
  });
});
