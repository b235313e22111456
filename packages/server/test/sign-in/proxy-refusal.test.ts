/**
 * Why the authentication proxy's person was refused (§5.3 `http-header`), as functions over the memory store and
 * PostgreSQL (PGlite): `proxySignIn` with `createProxyRefusals` gives each refusal kind a reason, a reference code
 * and an audit entry holding that code and the trace; one refused identity gets one code and one coalesced entry
 * per window, whatever number of requests the proxy sends, and identities past the bound share one entry.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { HttpHeaderProvider } from '../../../../src/core/auth-providers.js';
import { SIGN_IN_DENIAL_MESSAGES } from '../../../../src/core/sign-in/plan.js';
import { SUFFIX_RANDOM_BYTES, usernameCandidates } from '../../../../src/core/username.js';
import { ACCOUNT_SUSPENDED_MESSAGE, runSignIn } from '../../src/sign-in/flow.js';
import { proxySignIn, type ProxySignInDeps } from '../../src/sign-in/proxy.js';
import { createProxyRefusals, type ProxyRefusals } from '../../src/sign-in/proxy-refusal.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import { openPgliteDriver } from '../../src/store/postgres/pglite.js';
import type { AccountOrigin } from '../../../../src/core/account-directory.js';
import type { AuditEntry, Store } from '../../src/store/types.js';
import type { ProxyVerdict } from '../../src/session/sessions.js';
import { reusingOpener } from '../helpers/postgres-store.js';
import { flatStoreOf } from '../helpers/flat-store.js';

const START = 1_700_000_000_000;
const REFERENCE = /^[0-9A-HJKMNP-TV-Z]{8}$/u;
const proxy = (allowSignup: boolean, displayName?: string): HttpHeaderProvider => ({
  type: 'http-header',
  usernameHeader: 'X-Forwarded-User',
  emailHeader: 'X-Forwarded-Email',
  allowSignup,
  ...(displayName === undefined ? {} : { displayName }),
});

/** A CSPRNG, as the server's: two reference codes agree by chance once in 2^40. */
function secureBytes(): (n: number) => Uint8Array {
  return (n) => new Uint8Array(randomBytes(n));
}

let pglite: Promise<{ driver: Awaited<ReturnType<typeof openPgliteDriver>>; open: () => Promise<{ store: Store; close: () => Promise<void> }> }> | undefined;
afterAll(async () => {
  if (pglite !== undefined) await (await pglite).driver.close();
});

const stores: readonly (readonly [string, () => Promise<{ store: Store; close: () => Promise<void> }>])[] = [
  ['memory', async () => ({ store: createMemoryStore(), close: async () => undefined })],
  [
    'PGlite',
    async () => {
      pglite ??= openPgliteDriver({ memory: true }).then(async (driver) => ({ driver, open: await reusingOpener(driver) }));
      return (await pglite).open();
    },
  ],
];

interface Seed {
  readonly username: string;
  readonly origin?: AccountOrigin;
  readonly email?: string;
  readonly suspended?: boolean;
}

interface Harness {
  readonly store: Store;
  readonly clock: { now: number };
  readonly refusals: ProxyRefusals;
  /** One request with these headers (a fresh headers object). */
  ask(headers: Record<string, string>): Promise<ProxyVerdict>;
  /** The request whose headers are this very object (asked twice: the same request). */
  askRequest(headers: Record<string, string>): Promise<ProxyVerdict>;
  failures(): Promise<readonly AuditEntry[]>;
}

describe.each(stores)('http-header refusals on the %s store', (_name, open) => {
  const opened: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of opened) await close();
  });

  async function harness(provider: HttpHeaderProvider, seeds: readonly Seed[] = [], options: { randomBytes?: (n: number) => Uint8Array; maxIdentities?: number } = {}): Promise<Harness> {
    const { store, close } = await open();
    opened.push(close);
    for (const seed of seeds) {
      const origin = seed.origin ?? 'admin_created';
      const emails = seed.email === undefined ? [] : [{ email: seed.email, verified: true }];
      const user = (await store.accounts.create({ usernames: [seed.username], origin, siteAdmin: false, serviceAccount: false, emails, passwordHash: null, createdAt: 0 }))._unsafeUnwrap();
      if (seed.suspended === true) (await store.accounts.setSuspended(user.id, 1))._unsafeUnwrap();
    }
    const clock = { now: START };
    const random = options.randomBytes ?? secureBytes();
    const audit: ProxySignInDeps['audit'] = async (event, into) => void (await into.audit.append({ ...event, timestamp: clock.now }));
    const refusals = createProxyRefusals({ store, now: () => clock.now, randomBytes: random, audit, ...(options.maxIdentities === undefined ? {} : { maxIdentities: options.maxIdentities }) });
    const deps: ProxySignInDeps = {
      providers: [provider],
      store,
      signIn: (input, into) => runSignIn({ store: into, now: () => clock.now, randomBytes: random }, input),
      audit,
      refusals,
    };
    return {
      store,
      clock,
      refusals,
      ask: (headers) => proxySignIn(deps, { ...headers }),
      askRequest: (headers) => proxySignIn(deps, headers),
      failures: () => store.audit.list(100, { entity: 'auth.session', action: 'failed' }),
    };
  }

  const zeros = (n: number): Uint8Array => new Uint8Array(n);
  const aliceSuffixed = usernameCandidates('alice', [zeros(SUFFIX_RANDOM_BYTES)])._unsafeUnwrap()[1] ?? '';

  it.each([
    {
      ref: '§5.3 http-header, §7 rule 3: allowSignup false and no account has the email',
      provider: proxy(false),
      seeds: [],
      headers: { 'x-forwarded-user': 'nobody', 'x-forwarded-email': 'nobody@corp.example' },
      denial: 'signup_not_allowed',
      message: SIGN_IN_DENIAL_MESSAGES.signup_not_allowed,
      reason: 'No account here has a verified email matching your account at the authentication proxy, and sign-up through the authentication proxy is off. Ask an administrator to create your account.',
      rules: ['§5.3 http-header', '§5.4 rule 4', '§5.4 rule 2', '§5.4 rule 2', '§7 rule 3'],
    },
    {
      ref: '§5.3 http-header rule 3, §5.4 rule 2: a username header that normalizes to nothing, no email',
      provider: proxy(true, 'Corp SSO'),
      seeds: [],
      headers: { 'x-forwarded-user': '---' },
      denial: 'username_missing',
      message: SIGN_IN_DENIAL_MESSAGES.username_missing,
      reason: 'Your account at Corp SSO gives neither a username nor an email address to name a new account.',
      rules: ['§5.3 http-header', '§5.4 rule 4', '§5.4 rule 2', '§5.4 rule 2', '§5.4 rule 2', '§5.4 rule 2'],
    },
    {
      ref: '§5.3 http-header rule 3, §5.5 rule 8: the name and every suffixed name taken',
      provider: proxy(true),
      seeds: [{ username: 'alice', origin: 'password_signup' as const }, { username: aliceSuffixed, origin: 'password_signup' as const }],
      headers: { 'x-forwarded-user': 'alice' },
      denial: 'username_unavailable',
      message: SIGN_IN_DENIAL_MESSAGES.username_unavailable,
      reason: 'No free username could be found for your new account. Try again.',
      rules: ['§5.3 http-header', '§5.4 rule 4', '§5.4 rule 2', '§5.3 http-header rule 3', '§5.4 rule 2', '§5.5 rule 1', '§5.5 rule 8', '§5.5 rule 8'],
      randomBytes: zeros,
    },
    {
      ref: '§5.3 http-header: the account the email finds is suspended',
      provider: proxy(false),
      seeds: [{ username: 'dora', email: 'dora@corp.example', suspended: true }],
      headers: { 'x-forwarded-user': 'dora', 'x-forwarded-email': 'dora@corp.example' },
      denial: 'account_suspended',
      message: ACCOUNT_SUSPENDED_MESSAGE,
      // the sign-in rules admit the identity: the suspension, not a rule, refused it, and the message says so
      reason: null,
      rules: ['§5.3 http-header', '§5.4 rule 4', '§5.4 rule 2', '§5.4 rule 2'],
    },
  ])('should refuse with a reason, a reference code and an audited trace ($ref)', async ({ provider, seeds, headers, denial, message, reason, rules, randomBytes }) => {
    const h = await harness(provider, seeds, randomBytes === undefined ? {} : { randomBytes });
    const verdict = await h.ask(headers);
    const reference = verdict.kind === 'denied' ? (verdict.refusal?.reference ?? '') : '';
    expect(reference).toMatch(randomBytes === undefined ? REFERENCE : /^0{8}$/u);
    expect(verdict).toStrictEqual({ kind: 'denied', message, refusal: { reference, reason } });
    const [entry, ...more] = await h.failures();
    expect(more).toStrictEqual([]);
    expect({ reason: entry?.reason, provider: entry?.details['provider'], reference: entry?.details['reference'], count: entry?.count }).toStrictEqual({
      reason: denial,
      provider: 'http-header',
      reference,
      count: 1,
    });
    const trace = JSON.parse(entry?.details['trace'] ?? '[]') as { rule: string; outcome: string }[];
    expect(trace.map((s) => s.rule)).toStrictEqual(rules);
    // the step of the http-header rules says what the proxy's provider is; a refused decision ends in `deny`
    expect(trace[0]).toMatchObject({ rule: '§5.3 http-header', outcome: 'no_membership_rule' });
    if (reason !== null) expect(trace.at(-1)?.outcome).toBe('deny');
    // nothing was written but the audit entry
    expect((await flatStoreOf(h.store).listUsers()).map((u) => u.username)).toStrictEqual(seeds.map((seed) => seed.username));
  });

  it('should write no audit entry and give no reference for unusable headers (they name nobody)', async () => {
    const h = await harness(proxy(true));
    const verdict = await h.ask({ 'x-forwarded-email': 'a@corp.example, b@corp.example' });
    expect(verdict.kind === 'denied' ? verdict.refusal : 'not denied').toBeUndefined();
    expect(await h.failures()).toStrictEqual([]);
  });

  it('should give one refused identity one code and one entry per window, counting each request once, whatever the flood', async () => {
    const h = await harness(proxy(false));
    const nobody = { 'x-forwarded-user': 'nobody', 'x-forwarded-email': 'nobody@corp.example' };
    const other = { 'x-forwarded-user': 'other', 'x-forwarded-email': 'other@corp.example' };
    const codes = new Set<string>();
    // 200 requests of one person in one window, 20 of them concurrent
    for (let round = 0; round < 10; round++) {
      const verdicts = await Promise.all(Array.from({ length: 20 }, () => h.ask(nobody)));
      for (const v of verdicts) codes.add(v.kind === 'denied' ? (v.refusal?.reference ?? '') : '');
      h.clock.now += 1_000;
    }
    expect(codes.size).toBe(1);
    const [first] = codes;
    // the same request asked twice (the sign-in page, then the viewer of the page) counts once
    const one = { ...nobody };
    const refusedOnce = await h.ask(other);
    const reference = refusedOnce.kind === 'denied' ? (refusedOnce.refusal?.reference ?? '') : '';
    expect(reference).not.toBe(first);
    expect(reference).toMatch(REFERENCE);
    await h.askRequest(one);
    await h.askRequest(one);
    const entries = await h.failures();
    expect(entries.map((e) => [e.details['reference'], e.count])).toStrictEqual([
      [reference, 1],
      [first, 201],
    ]);
    // the next window: a new code and a new entry
    h.clock.now = START + 60_000;
    const later = await h.ask(nobody);
    const next = later.kind === 'denied' ? (later.refusal?.reference ?? '') : '';
    expect(next).not.toBe(first);
    expect((await h.failures()).map((e) => [e.details['reference'], e.count])[0]).toStrictEqual([next, 1]);
  });

  it('should bound the entries of one window: past maxIdentities, refused identities share one entry per denial reason without a trace', async () => {
    const h = await harness(proxy(false), [], { maxIdentities: 2 });
    const verdicts: ProxyVerdict[] = [];
    for (let i = 0; i < 12; i++) verdicts.push(await h.ask({ 'x-forwarded-user': `p${i}`, 'x-forwarded-email': `p${i}@corp.example` }));
    expect(h.refusals.size).toBe(2);
    const references = verdicts.map((v) => (v.kind === 'denied' ? (v.refusal?.reference ?? '') : ''));
    expect(new Set(references).size).toBe(3);
    const entries = await h.failures();
    expect(entries.map((e) => [e.details['reference'], e.count, e.details['trace'] === undefined, e.details['overflow'] ?? null])).toStrictEqual([
      [references[2], 10, true, 'true'],
      [references[1], 1, false, null],
      [references[0], 1, false, null],
    ]);
    // the shared code still leaves each person the message of their refusal
    expect(verdicts[11]).toMatchObject({ kind: 'denied', message: SIGN_IN_DENIAL_MESSAGES.signup_not_allowed, refusal: { reason: null } });
  });
});
