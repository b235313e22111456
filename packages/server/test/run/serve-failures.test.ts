/**
 * `gatehouse serve` explains its failures: an administrator seeded by a start that then failed (here: the port
 * was taken) gets a fresh token printed by the next start, and a configuration reload the server refused shows on
 * Site admin → Site configuration with its time, file and problems until a valid one applies.
 */
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { serve } from '../../src/run/serve.js';
import { graphql, signUp, startGatehouseProcess, whoAmI } from '../helpers/processes.js';
import { temporaryDirectory } from '../helpers/temporary-directory.js';

/** Waits until `check` holds, polling every 50 ms for at most `ms`. */
async function eventually(check: () => boolean | Promise<boolean>, ms = 20_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await delay(50);
  }
  return check();
}

/** Runs `packages/server/src/run/main.ts` to its exit; resolves its status and everything it printed. */
function runToExit(args: readonly string[]): Promise<{ readonly status: number | null; readonly stdout: string; readonly stderr: string }> {
  const child = spawn(process.execPath, ['--conditions=gatehouse-source', '--import', 'tsx', 'packages/server/src/run/main.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    }),
  );
}

function listenOnFreePort(): Promise<{ readonly server: Server; readonly port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address !== null ? address.port : 0 });
    });
  });
}

describe('the seeded administrator token', () => {
  it('should be printed, fresh, by the next start when the first start failed after seeding (EADDRINUSE), and by no later start', async () => {
    const dataDir = join(temporaryDirectory('gatehouse-seed-'), 'data');
    const taken = await listenOnFreePort();
    let first: Awaited<ReturnType<typeof runToExit>>;
    try {
      first = await runToExit(['--data-dir', dataDir, '--port', String(taken.port)]);
    } finally {
      taken.server.close();
    }
    // the first start seeded the administrator, then could not listen: it says why and printed no token
    expect(first.status).toBe(1);
    expect(first.stderr).toContain('EADDRINUSE');
    expect(first.stdout).not.toContain('Administrator access token');

    const second = await startGatehouseProcess({ args: ['--data-dir', dataDir] });
    try {
      expect(second.adminToken).toMatch(/^gat_/u);
      expect(await whoAmI(second.url, `token ${second.adminToken ?? ''}`)).toBe('admin');
      const scopes = await graphql(second.url, `token ${second.adminToken ?? ''}`, '{ currentUser { accessTokens { scopes note } } }');
      // one token: the unshown one was replaced, not kept beside the new one
      expect(scopes.body).toStrictEqual({
        data: { currentUser: { accessTokens: [{ scopes: ['user:all', 'site-admin:sudo'], note: 'administrator token of the first start (replacing one never shown)' }] } },
      });
    } finally {
      await second.stop();
    }

    const third = await startGatehouseProcess({ args: ['--data-dir', dataDir] });
    try {
      expect(third.adminToken).toBeNull();
      expect(await whoAmI(third.url, `token ${second.adminToken ?? ''}`)).toBe('admin');
    } finally {
      await third.stop();
    }
  }, 180_000);
});

describe('a rejected configuration reload', () => {
  it('should show on Site admin → Site configuration with its time, file and problems until a valid one applies', async () => {
    const dir = temporaryDirectory('gatehouse-reload-');
    const file = join(dir, 'site.jsonc');
    writeFileSync(file, '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }');
    const signals = new EventEmitter();
    const out: string[] = [];
    const logs: Record<string, unknown>[] = [];
    const running = serve(['--config', file, '--port', '0', '--data-dir', join(dir, 'data')], {}, {
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: (t: string) => out.push(t) },
      signals: { on: (signal, listener) => signals.on(signal, listener) },
      log: (entry) => logs.push(entry),
    });
    try {
      expect(await eventually(() => out.some((l) => l.startsWith('Administrator access token: ')))).toBe(true);
      const url = /gatehouse listening on (\S+)/u.exec(out.join(''))?.[1] ?? '';
      const admin = `token ${/Administrator access token: (\S+)/u.exec(out.join(''))?.[1] ?? ''}`;
      // a second site administrator with a browser session
      const sam = await signUp(url, 'sam', 'sam password 1');
      const me = await fetch(`${url}/.api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: sam.cookie ?? '', 'x-requested-with': 'test' },
        body: JSON.stringify({ query: '{ currentUser { id } }' }),
      });
      const id = ((await me.json()) as { data: { currentUser: { id: string } } }).data.currentUser.id;
      expect((await graphql(url, admin, 'mutation($id: ID!) { setUserIsSiteAdmin(userID: $id, siteAdmin: true) { siteAdmin } }', { id })).body).toStrictEqual({
        data: { setUserIsSiteAdmin: { siteAdmin: true } },
      });
      const page = async (): Promise<string> => {
        const res = await fetch(`${url}/site-admin/configuration`, { headers: { cookie: sam.cookie ?? '' } });
        expect(res.status).toBe(200);
        return (await res.text()).replace(/<[^>]+>/gu, ' ').replace(/\s+/gu, ' ');
      };
      expect(await page()).toContain('No problems found.');

      writeFileSync(file, '{ "auth.providers": [{ "type": "builtin", "allowSingup": true }], "rateLimits": { "graphQLMaxDepth": "deep" } }');
      const before = Date.now();
      signals.emit('SIGHUP');
      expect(await eventually(() => logs.some((e) => e['event'] === 'configuration_rejected'))).toBe(true);
      const rejected = await page();
      expect(rejected).not.toContain('No problems found.');
      expect(rejected).toContain(`The last reload was rejected: the site configuration ${file} was refused at ${new Date(before).toISOString().slice(0, 10)}`);
      expect(rejected).toMatch(/rejected auth\.providers\[0\]\.allowSingup : .*did you mean &quot;allowSignup&quot;\?/u);
      expect(rejected).toMatch(/rejected rateLimits\.graphQLMaxDepth : /u);

      writeFileSync(file, '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }');
      signals.emit('SIGHUP');
      expect(await eventually(() => logs.filter((e) => e['event'] === 'configuration_reloaded').length > 0)).toBe(true);
      const fixed = await page();
      expect(fixed).toContain('No problems found.');
      expect(fixed).not.toContain('The last reload was rejected');
    } finally {
      signals.emit('SIGTERM');
      expect(await running).toBe(0);
    }
  }, 120_000);
});
