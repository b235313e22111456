import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/http/store.js';
import type { Store } from '../../src/http/store.js';

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

describe('createMemoryStore (issue 5: every operation atomic)', () => {
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
    const base = { siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 0 };
    expect((await store.createUser({ ...base, username: 'one', externalAccount: ext })).isOk()).toBe(true);
    const second = await store.createUser({ ...base, username: 'two', externalAccount: ext });
    expect(second.isErr() && second.error).toStrictEqual({ code: 'external_account_taken', serviceType: 'hosta', accountId: '42' });
    expect((await store.listUsers()).map((u) => u.username)).toStrictEqual(['one']);
  });

  it('should list the newest audit entries first and keep at most maxAuditEntries', async () => {
    const store = createMemoryStore({ maxAuditEntries: 3 });
    for (const action of ['a', 'b', 'c', 'd']) {
      await store.appendAudit({ timestamp: 0, entity: 'e', action, reason: null, actorUserId: null, subjectUserId: null, details: {} });
    }
    expect((await store.listAudit(10)).map((e) => e.action)).toStrictEqual(['d', 'c', 'b']);
    expect((await store.listAudit(1)).map((e) => e.action)).toStrictEqual(['d']);
  });
});

describe('createMemoryStore: unlinking and provider credentials (issue 6)', () => {
  const base = { siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 0 };
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
