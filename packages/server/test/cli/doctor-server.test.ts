/**
 * `gatehouse doctor -endpoint URL` without `-config`: a real gatehouse process (under tsx, as `npm start` runs it)
 * whose site configuration has an `openidconnect` provider served by a real OpenID provider (`oidc-provider`) on
 * 127.0.0.1, read back through `effectiveSiteConfiguration` with the administrator token the process printed. The
 * provider answering at the configured issuer can be swapped for one naming another issuer, so the same running
 * configuration is clean, then has the finding. Tokens that are not a site administrator's are refused with the
 * server's own words, exit 2.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/cli/doctor.js';
import { listen } from '../fakes/http.js';
import type { Listening } from '../fakes/http.js';
import { createOpenIdProvider, OIDC_CLIENT } from '../fakes/openid-provider.js';
import { createToken, freePort, signUp, startGatehouseProcess } from '../helpers/processes.js';
import type { GatehouseProcess } from '../helpers/processes.js';
import { temporaryDirectory } from '../helpers/temporary-directory.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** An empty home directory, so that no `~/src-config.json` of the machine is read. */
const HOME = temporaryDirectory('gatehouse-doctor-home-');

/** `gatehouse doctor` as a real program: its exit status and output. */
async function doctorProgram(argv: readonly string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = promisify(execFile);
  return run(process.execPath, ['--conditions=gatehouse-source', '--import', 'tsx', 'packages/server/src/run/bin.ts', 'doctor', ...argv], {
    encoding: 'utf8',
    timeout: 90_000,
    env: { PATH: process.env['PATH'] ?? '', HOME, ...env },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
  );
}

/** `runDoctor` in this process, with the environment given. */
async function doctor(argv: readonly string[], env: Record<string, string>): Promise<{ status: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const status = await runDoctor(argv, {
    env,
    stdout: { write: (chunk: string) => (out.stdout += chunk) },
    stderr: { write: (chunk: string) => (out.stderr += chunk) },
    readFile: (path) => readFile(path, 'utf8'),
    now: Date.now,
    homedir: () => HOME,
  });
  return { status, ...out };
}

describe('gatehouse doctor against a running server', () => {
  let op: Listening;
  let serveGood: Handler;
  let serveWrong: Handler;
  let handle: Handler | null = null;
  let server: GatehouseProcess;
  let adminToken: string;
  let memberToken: string;

  beforeAll(async () => {
    op = await listen((req, res) => handle?.(req, res));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    serveGood = createOpenIdProvider(op.url, `${url}/.auth/callback`, {}).callback();
    // the same address, but the provider there names another issuer
    serveWrong = createOpenIdProvider(`${op.url}/realm`, `${url}/.auth/callback`, {}).callback();
    handle = serveGood;
    const dir = temporaryDirectory('gatehouse-doctor-server-');
    const file = join(dir, 'site.json');
    writeFileSync(
      file,
      JSON.stringify({
        externalURL: url,
        'auth.providers': [
          { type: 'builtin', allowSignup: true },
          { type: 'openidconnect', issuer: op.url, clientID: OIDC_CLIENT.id, clientSecret: OIDC_CLIENT.secret },
        ],
        'email.smtp': { host: '127.0.0.1', port: 2525, authentication: 'PLAIN', username: 'mailer', password: 'smtp-password-not-shown' },
        'email.address': 'gatehouse@example.com',
      }),
    );
    server = await startGatehouseProcess({ args: ['--config', file], env: { PORT: String(port), GATEHOUSE_DATA_DIR: join(dir, 'data') }, timeoutMs: 120_000 });
    expect(server.url).toBe(url);
    expect(server.adminToken).not.toBeNull();
    adminToken = server.adminToken ?? '';
    expect((await signUp(url, 'bob', 'bob password 123')).status).toBeLessThan(400);
    // a token of bob's (not a site administrator), made by the administrator acting as bob
    memberToken = (await createToken(url, `token-sudo user="bob",token="${adminToken}"`, 'doctor test')) ?? '';
    expect(memberToken).not.toBe('');
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    await op?.close();
  });

  it('should read the running configuration and exit 0 when clean (masked secrets make no finding)', async () => {
    handle = serveGood;
    const result = await doctorProgram(['-endpoint', server.url], { SRC_ACCESS_TOKEN: adminToken });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`note auth.providers[1]: redirect URI ${server.url}/.auth/callback (register it at ${op.url})\nNo finding.\n`);
    expect(result.code).toBe(0);
  }, 120_000);

  it('should report the issuer mismatch of the running configuration and exit 1 (SRC_ENDPOINT)', async () => {
    handle = serveWrong;
    try {
      const result = await doctorProgram([], { SRC_ENDPOINT: server.url, SRC_ACCESS_TOKEN: adminToken });
      expect(result.stdout.split('\n').filter((l) => l !== '' && !l.startsWith('note '))).toEqual([
        `auth.providers[1].issuer: the discovery document names the issuer "${op.url}/realm", not "${op.url}": set "issuer" to exactly the provider's issuer, or sign-in fails on the ID token's iss.`,
        '1 finding.',
      ]);
      expect(result.code).toBe(1);
    } finally {
      handle = serveGood;
    }
  }, 120_000);

  it('should refuse a token that is not a site administrator\'s with the server\'s words, exit 2', async () => {
    const member = await doctor(['-endpoint', server.url], { SRC_ACCESS_TOKEN: memberToken });
    expect(member.stdout).toBe('');
    expect(member.stderr).toBe(
      `gatehouse doctor: the server at ${server.url} refused to show its configuration: Only site administrators may do this. (SRC_ACCESS_TOKEN must be a site administrator's token)\n`,
    );
    expect(member.status).toBe(2);
    const anonymous = await doctor(['-endpoint', server.url], {});
    expect(anonymous.stderr).toContain(`gatehouse doctor: the server at ${server.url} refused to show its configuration: `);
    expect(anonymous.status).toBe(2);
  });

  it('should keep reading the file when -config is given with -endpoint (the file, plus the endpoint checks)', async () => {
    const dir = temporaryDirectory('gatehouse-doctor-file-');
    const file = join(dir, 'site.json');
    writeFileSync(file, JSON.stringify({ externalURL: 'https://gh.example.com', 'auth.providers': [{ type: 'builtin' }] }));
    const result = await doctor(['-config', file, '-endpoint', server.url], { SRC_ACCESS_TOKEN: adminToken });
    expect(result.stdout).toContain(`externalURL: externalURL is https://gh.example.com but the server is reached at ${server.url}`);
    expect(result.stdout).not.toContain('auth.providers[1]');
    expect(result.status).toBe(1);
  });

  it('should say what to give, exit 2, with neither -config nor an endpoint', async () => {
    const result = await doctor([], { SRC_ACCESS_TOKEN: adminToken });
    expect(result.stderr).toMatch(/^gatehouse doctor: no configuration: pass -config FILE, or -endpoint URL \(or SRC_ENDPOINT\) with SRC_ACCESS_TOKEN/u);
    expect(result.status).toBe(2);
  });

  it('should exit 1 with the reason when the server does not answer', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const result = await doctor(['-endpoint', closed], { SRC_ACCESS_TOKEN: adminToken });
    expect(result.stderr).toMatch(/^gatehouse doctor: request to http:\/\/127\.0\.0\.1:\d+\/\.api\/graphql failed/u);
    expect(result.status).toBe(1);
  });

  it('should give up on a server that never answers after -timeout, not gatehouse api\'s 120 s', async () => {
    // a server that accepts the request and never answers: without -timeout applied, this test's own limit ends it
    const silent = await listen(() => undefined);
    try {
      const result = await doctor(['-endpoint', silent.url, '-timeout', '1'], { SRC_ACCESS_TOKEN: adminToken });
      expect(result.stderr).toMatch(/^gatehouse doctor: request to http:\/\/127\.0\.0\.1:\d+\/\.api\/graphql failed \(.*(timeout|aborted)/iu);
      expect(result.status).toBe(1);
    } finally {
      await silent.close();
    }
  }, 20_000);
});
