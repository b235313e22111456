/**
 * The account site options apply at once on reload, in a real server process with a watched site configuration
 * file: the password rule (`auth.minPasswordLength`), the session lifetime (`auth.sessionExpiry`, read from the new
 * session's cookie), a provider's `noSignIn` (the sign-in page stops offering it) and `email.smtp` (Profile says
 * mail is off once it is removed). Each check fails if the process kept the configuration it started with.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { startGatehouseProcess, type GatehouseProcess } from '../helpers/processes.js';

const OIDC = { type: 'openidconnect', displayName: 'Corp SSO', issuer: 'http://127.0.0.1:9', clientID: 'id', clientSecret: 'secret' };
const MAIL = { 'email.address': 'noreply@gatehouse.test', 'email.smtp': { host: '127.0.0.1', port: 9, authentication: 'none' } };

const config = (extra: Record<string, unknown>, oidc: Record<string, unknown> = OIDC): string =>
  JSON.stringify({ externalURL: 'http://127.0.0.1:9', 'auth.providers': [{ type: 'builtin', allowSignup: true }, oidc], ...MAIL, ...extra });

/** Waits (at most 20 s) until the process has logged `count` reloads. */
async function reloads(server: GatehouseProcess, count: number): Promise<boolean> {
  const seen = (): number => server.output().split('\n').filter((line) => line.includes('"configuration_reloaded"')).length;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && seen() < count) await delay(50);
  return seen() >= count;
}

const reloadCount = (server: GatehouseProcess): number => server.output().split('\n').filter((line) => line.includes('"configuration_reloaded"')).length;

async function signUp(url: string, username: string, password: string): Promise<{ status: number; body: string; setCookie: string }> {
  const res = await fetch(`${url}/.auth/sign-up`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, email: `${username}@example.com`, password }) });
  return { status: res.status, body: await res.text(), setCookie: res.headers.getSetCookie().join('\n') };
}

describe('account options on reload (a real process, the watched file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-options-reload-'));
  const file = join(dir, 'site.jsonc');
  let server: GatehouseProcess | null = null;
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies the password rule, the session lifetime, noSignIn and mail off to the next request', async () => {
    writeFileSync(file, config({ 'auth.sessionExpiry': '24h' }));
    server = await startGatehouseProcess({ args: ['--config', file], env: { GATEHOUSE_DATA_DIR: join(dir, 'data') } });
    const s = server;

    // as started: a 14-character password is accepted; the session lives 24 hours; Corp SSO is offered; mail is on
    const first = await signUp(s.url, 'ann', 'fourteen chars');
    expect(first.status).toBe(201);
    expect(first.setCookie).toMatch(/Max-Age=86400/u);
    expect(await (await fetch(`${s.url}/.auth/sign-in`)).text()).toContain('Sign in with Corp SSO');
    const cookie = first.setCookie.split('\n').map((line) => line.split(';')[0]).join('; ');
    expect(await (await fetch(`${s.url}/settings`, { headers: { cookie } })).text()).not.toContain('Mail is off on this site');

    const before = reloadCount(s);
    writeFileSync(
      file,
      JSON.stringify({ externalURL: 'http://127.0.0.1:9', 'auth.providers': [{ type: 'builtin', allowSignup: true }, { ...OIDC, noSignIn: true }], 'auth.minPasswordLength': 20, 'auth.sessionExpiry': '1h' }),
    );
    expect(await reloads(s, before + 1)).toBe(true);

    // after the reload: the same length is refused with the rule's words; a new session lives an hour
    const refused = await signUp(s.url, 'bea', 'fourteen chars');
    expect(refused.status).toBe(400);
    expect(refused.body).toMatch(/20 characters/u);
    const second = await signUp(s.url, 'cal', 'twenty characters long!');
    expect(second.status).toBe(201);
    expect(second.setCookie).toMatch(/Max-Age=3600/u);
    // a noSignIn provider is not offered for sign-in
    expect(await (await fetch(`${s.url}/.auth/sign-in`)).text()).not.toContain('Sign in with Corp SSO');
    // without email.smtp, Profile says mail is off
    expect(await (await fetch(`${s.url}/settings`, { headers: { cookie } })).text()).toContain('Mail is off on this site');
  }, 120_000);
});
