/**
 * The crash check shared by the embedded and the PostgreSQL-server runs: a load of sign-ups, token creations and
 * refreshes, `kill -9` in the middle of it, a restart on the same data, and then every answer the server gave
 * with a 2xx is checked against what the restarted server knows.
 */
import { expect } from 'vitest';
import type { Store } from '../../src/store/types.js';
import { createToken, oauthPair, refresh, signIn, signUp, whoAmI } from './processes.js';
import type { GatehouseProcess } from './processes.js';

/** What the load got a 2xx answer for. */
interface Answered {
  readonly accounts: string[];
  readonly tokens: string[];
  /** The access token of the last refresh answered 200. */
  lastAccessToken: string | null;
}

/** Bounds of the load: it stops at whichever comes first. */
const MAX_OPERATIONS = 400;
const MAX_LOAD_MS = 15_000;
/** The crash comes once this many operations were answered. */
const CRASH_AFTER = 60;

/**
 * Runs the load against `first`, crashes it, starts `restart()`, and checks every 2xx answer; then `inspect`
 * (called with the restarted server stopped, or running for a server database) checks that no account exists
 * without its email and without a way to sign in.
 */
export async function crashUnderLoadAndCheck(
  first: GatehouseProcess,
  restart: () => Promise<GatehouseProcess>,
  inspect: () => Promise<{ store: Store; close(): Promise<void> }>,
  runId: string,
): Promise<void> {
  const admin = first.adminToken ?? '';
  expect(admin).toMatch(/^gat_/);
  const owner = await signUp(first.url, `${runId}-owner`, 'owner password 1');
  expect(owner.status).toBe(201);
  let pair = await oauthPair(first.url, admin, owner.cookie ?? '');
  const answered: Answered = { accounts: [], tokens: [], lastAccessToken: null };
  let crashed = false;
  let operations = 0;
  const started = Date.now();
  const more = (): boolean => !crashed && operations < MAX_OPERATIONS && Date.now() - started < MAX_LOAD_MS;

  const signUps = async (worker: number): Promise<void> => {
    for (let i = 0; more(); i++) {
      operations++;
      const name = `${runId}-w${worker}-${i}`;
      const result = await signUp(first.url, name, `password of ${name}`).catch(() => null);
      if (result?.status === 201) answered.accounts.push(name);
    }
  };
  const tokens = async (): Promise<void> => {
    for (let i = 0; more(); i++) {
      operations++;
      const token = await createToken(first.url, `token ${admin}`, `crash ${i}`).catch(() => null);
      if (token !== null) answered.tokens.push(token);
    }
  };
  // One refresh at a time: a refresh token is single use, so the chain follows the last answered pair.
  const refreshes = async (): Promise<void> => {
    while (more()) {
      operations++;
      const result = await refresh(first.url, pair).catch(() => null);
      if (result === null || result.tokens === null) continue;
      pair = { ...pair, ...result.tokens };
      answered.lastAccessToken = result.tokens.accessToken;
    }
  };
  const crash = (async () => {
    while (!crashed && answered.accounts.length + answered.tokens.length < CRASH_AFTER && Date.now() - started < MAX_LOAD_MS) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    crashed = true;
    await first.crash();
  })();
  await Promise.all([signUps(1), signUps(2), tokens(), refreshes(), crash]);

  expect(answered.accounts.length + answered.tokens.length).toBeGreaterThan(0);
  const second = await restart();
  try {
    for (const name of answered.accounts) {
      expect({ name, status: (await signIn(second.url, name, `password of ${name}`)).status }).toStrictEqual({ name, status: 200 });
    }
    for (const token of answered.tokens) expect(await whoAmI(second.url, `token ${token}`)).toBe('admin');
    if (answered.lastAccessToken !== null) expect(await whoAmI(second.url, `Bearer ${answered.lastAccessToken}`)).toBe(`${runId}-owner`);
  } finally {
    await second.stop();
  }

  const { store, close } = await inspect();
  try {
    const incomplete: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await store.accounts.list(after === undefined ? { first: 500 } : { first: 500, after });
      for (const account of page) {
        if (account.origin !== 'password_signup') continue;
        const links = await store.accounts.links(account.id);
        if (account.emails.length === 0 || (account.passwordHash === null && links.length === 0)) incomplete.push(account.username);
      }
      const last = page.at(-1);
      if (last === undefined || page.length < 500) break;
      after = last.id;
    }
    expect(incomplete).toStrictEqual([]);
  } finally {
    await close();
  }
}
