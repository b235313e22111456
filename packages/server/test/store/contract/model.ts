/**
 * Model-based sequences (fast-check `fc.commands`): random sequences of account, link, token and deletion writes,
 * failed ones included, against a deliberately simple model (lists of plain records); after every step each
 * indexed lookup must answer what a full scan of the model answers, and a refused write must change nothing.
 */
import fc from 'fast-check';
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { emailMatchKey, externalAccountKey, usernameKey } from '../../../../../src/core/store-keys.js';

import { accountSnapshot, newAccount, newToken, withStore } from './fixtures.js';
import type { OpenStore } from './fixtures.js';
import type { Store } from '../../../src/store/types.js';

type Link = { userId: string; serviceType: string; serviceId: string; accountId: string; createdAt: number };
interface Model {
  users: { id: string; username: string; verified: string[] }[];
  /** Every link, in link order. */
  links: Link[];
  tokens: { id: string; digest: string; userId: string }[];
}
type Real = { store: Store };
type Cmd = fc.AsyncCommand<Model, Real>;

// ASCII letters fold, nothing else: 'Ärger' and 'ärger' stay different, as in the core (§5.5, §5.4 rule 2).
const fold = (s: string): string => s.replace(/[A-Z]/gu, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
const USERNAMES = ['ann', 'ANN', 'Ann', 'bob', 'Ärger', 'ärger'] as const;
const EMAILS = ['a@x.io', 'A@X.IO', 'É@x.io', 'é@x.io', 'b@x.io'] as const;
const DIGESTS = ['d1', 'd2', 'd3'] as const;
const TRIPLES = [
  ['hosta', '', '1'],
  ['hosta', '', '2'],
  ['hosta', 'https://h', '1'],
  ['hostb', '', '1'],
  ['HOSTA', '', '1'],
] as const;
type Triple = (typeof TRIPLES)[number];
const sameLink = (l: Link, [serviceType, serviceId, accountId]: Triple): boolean =>
  l.serviceType === serviceType && l.serviceId === serviceId && l.accountId === accountId;

/** Every lookup answered by its index, compared with a scan of the model. */
async function expectLookupsMatchScan(m: Readonly<Model>, store: Store): Promise<void> {
  const users = await store.accounts.list({ first: 1000 });
  expect(users.map((u) => [u.id, u.username])).toStrictEqual(m.users.map((u) => [u.id, u.username]));
  expect(await store.accounts.count()).toBe(m.users.length);
  for (const probe of USERNAMES) {
    const scan = users.find((u) => fold(u.username) === fold(probe)) ?? null;
    expect(await store.accounts.findByUsernameKey(usernameKey(probe))).toStrictEqual(scan);
  }
  for (const probe of EMAILS) {
    const scan = users.find((u) => u.emails.some((e) => e.verified && fold(e.email) === fold(probe))) ?? null;
    expect(await store.accounts.findByVerifiedEmailKey(emailMatchKey(probe))).toStrictEqual(scan);
  }
  for (const triple of TRIPLES) {
    const link = m.links.find((l) => sameLink(l, triple));
    const found = await store.accounts.findByExternalAccountKey(externalAccountKey(triple[0], triple[1], triple[2]));
    expect(found?.id ?? null).toBe(link?.userId ?? null);
  }
  for (const u of users) {
    expect(await store.accounts.links(u.id)).toStrictEqual(m.links.filter((l) => l.userId === u.id));
    expect((await store.accessTokens.list(u.id)).map((t) => t.digest)).toStrictEqual(m.tokens.filter((t) => t.userId === u.id).map((t) => t.digest));
  }
  for (const digest of DIGESTS) {
    expect((await store.accessTokens.findByDigest(digest))?.id ?? null).toBe(m.tokens.find((t) => t.digest === digest)?.id ?? null);
  }
}

/** Runs one write; on `err` the records must be exactly as before. Then every lookup is checked. */
async function step<T>(m: Model, store: Store, write: () => Promise<Result<T, { readonly code: string }>>, expected: string, commit: (value: T) => void): Promise<void> {
  const before = await accountSnapshot(store);
  const result = await write();
  expect(result.isOk() ? 'ok' : result.error.code).toBe(expected);
  if (result.isOk()) commit(result.value);
  else expect(await accountSnapshot(store)).toStrictEqual(before);
  await expectLookupsMatchScan(m, store);
}

const pickUser = (m: Readonly<Model>, pick: number | null): string =>
  pick === null || m.users.length === 0 ? '999999' : (m.users[pick % m.users.length]?.id ?? '999999');

/** A command from a name and a run function (the model and the real store checked inside). */
const command = (name: string, run: (m: Model, r: Real) => Promise<void>): Cmd => ({
  check: () => true,
  run,
  toString: () => name,
});

const createUser = (usernames: readonly string[], emails: readonly { email: string; verified: boolean }[], link: Triple | null): Cmd =>
  command(`create(${JSON.stringify(usernames)}, ${JSON.stringify(emails)}, ${JSON.stringify(link)})`, async (m, r) => {
    const verified = emails.filter((e) => e.verified).map((e) => fold(e.email));
    const username = usernames.find((name) => !m.users.some((u) => fold(u.username) === fold(name)));
    const expected =
      username === undefined
        ? 'username_taken'
        : m.users.some((u) => u.verified.some((e) => verified.includes(e)))
          ? 'email_taken'
          : link !== null && m.links.some((l) => sameLink(l, link))
            ? 'external_account_taken'
            : 'ok';
    const externalAccount = link === null ? {} : { externalAccount: { serviceType: link[0], serviceId: link[1], accountId: link[2], createdAt: 2 } };
    await step(m, r.store, () => r.store.accounts.create(newAccount({ usernames, emails, ...externalAccount })), expected, (user) => {
      expect(user.username).toBe(username);
      m.users.push({ id: user.id, username: user.username, verified });
      if (link !== null) m.links.push({ serviceType: link[0], serviceId: link[1], accountId: link[2], createdAt: 2, userId: user.id });
    });
  });

const linkUser = (pick: number | null, triple: Triple): Cmd =>
  command(`link(${String(pick)}, ${JSON.stringify(triple)})`, async (m, r) => {
    const userId = pickUser(m, pick);
    const record: Link = { userId, serviceType: triple[0], serviceId: triple[1], accountId: triple[2], createdAt: 3 };
    const expected = !m.users.some((u) => u.id === userId) ? 'unknown_user' : m.links.some((l) => sameLink(l, triple)) ? 'external_account_taken' : 'ok';
    await step(m, r.store, () => r.store.accounts.link(record), expected, () => m.links.push(record));
  });

/** Unlinks; with a guard, inside a transaction that unlinks first and then refuses (undone) or keeps it. */
const unlinkUser = (pick: number | null, triple: Triple, guard: boolean | null): Cmd =>
  command(`unlink(${String(pick)}, ${JSON.stringify(triple)}, ${String(guard)})`, async (m, r) => {
    const userId = pickUser(m, pick);
    const mine = (l: Link): boolean => l.userId === userId && sameLink(l, triple);
    const expected = !m.users.some((u) => u.id === userId) ? 'unknown_user' : !m.links.some(mine) ? 'unknown_external_account' : guard === false ? 'guard_refused' : 'ok';
    const ref = { serviceType: triple[0], serviceId: triple[1], accountId: triple[2] };
    const write = (): Promise<Result<unknown, { readonly code: string }>> =>
      guard === null
        ? r.store.accounts.unlink(userId, ref)
        : r.store.transaction(async (tx) => {
            const unlinked = await tx.accounts.unlink(userId, ref);
            if (unlinked.isErr()) return err(unlinked.error);
            return guard ? ok(unlinked.value) : err({ code: 'guard_refused' });
          });
    await step(m, r.store, write, expected, () => {
      m.links = m.links.filter((l) => !mine(l));
    });
  });

const setSiteAdmin = (pick: number | null): Cmd =>
  command(`setSiteAdmin(${String(pick)})`, async (m, r) => {
    const userId = pickUser(m, pick);
    // the indexes must return the updated record
    await step(m, r.store, () => r.store.accounts.setSiteAdmin(userId, true), m.users.some((u) => u.id === userId) ? 'ok' : 'unknown_user', () => {});
  });

const createToken = (pick: number | null, digest: string): Cmd =>
  command(`createToken(${String(pick)}, ${digest})`, async (m, r) => {
    const userId = pickUser(m, pick);
    const expected = !m.users.some((u) => u.id === userId) ? 'unknown_user' : m.tokens.some((t) => t.digest === digest) ? 'duplicate_digest' : 'ok';
    await step(m, r.store, () => r.store.accessTokens.create(newToken(userId, digest)), expected, (t) => m.tokens.push({ id: t.id, digest, userId }));
  });

const deleteToken = (index: number): Cmd =>
  command(`deleteToken(${index})`, async (m, r) => {
    const token = m.tokens[index % Math.max(m.tokens.length, 1)];
    const id = token?.id ?? '999999';
    await step(m, r.store, () => r.store.accessTokens.delete(id), token === undefined ? 'unknown_access_token' : 'ok', () => {
      m.tokens = m.tokens.filter((t) => t.id !== id);
    });
  });

const deleteUser = (pick: number | null): Cmd =>
  command(`deleteUser(${String(pick)})`, async (m, r) => {
    const userId = pickUser(m, pick);
    await step(m, r.store, () => r.store.accounts.delete(userId), m.users.some((u) => u.id === userId) ? 'ok' : 'unknown_user', () => {
      m.users = m.users.filter((u) => u.id !== userId);
      m.links = m.links.filter((l) => l.userId !== userId);
      m.tokens = m.tokens.filter((t) => t.userId !== userId);
    });
  });

const userPick = fc.option(fc.nat(8), { nil: null, freq: 6 });
const triple = fc.constantFrom(...TRIPLES);
const commands = fc.commands(
  [
    fc
      .tuple(
        fc.array(fc.constantFrom(...USERNAMES), { minLength: 1, maxLength: 2 }),
        fc.array(fc.record({ email: fc.constantFrom(...EMAILS), verified: fc.boolean() }, { noNullPrototype: true }), { maxLength: 2 }),
        fc.option(triple, { nil: null }),
      )
      .map(([u, e, l]) => createUser(u, e, l)),
    fc.tuple(userPick, triple).map(([u, l]) => linkUser(u, l)),
    fc.tuple(userPick, triple, fc.option(fc.boolean(), { nil: null })).map(([u, l, g]) => unlinkUser(u, l, g)),
    userPick.map((u) => setSiteAdmin(u)),
    fc.tuple(userPick, fc.constantFrom(...DIGESTS)).map(([u, d]) => createToken(u, d)),
    fc.nat(10).map((i) => deleteToken(i)),
    userPick.map((u) => deleteUser(u)),
  ],
  { maxCommands: 25 },
);

/** Registers the model-based account sequences. */
export function describeAccountModel(open: OpenStore, numRuns: number): void {
  describe('model-based sequences: accounts, links and tokens', () => {
    it('should answer every indexed lookup as a scan of the model does, after every operation, failed ones included', async () => {
      await fc.assert(
        fc.asyncProperty(commands, async (cmds) => {
          await withStore(open, (store) => fc.asyncModelRun(() => ({ model: { users: [], links: [], tokens: [] }, real: { store } }), cmds));
        }),
        { numRuns },
      );
    });
  });
}
