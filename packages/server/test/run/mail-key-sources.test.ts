/**
 * Where the key sealing queued mail comes from (`run/mail-key.ts`): `GATEHOUSE_MAIL_KEY` (64 hex digits or base64
 * of 32 bytes; anything else stops the start with a message that never shows the value), else the embedded store's
 * `mail.key`, else a key of this process, which `gatehouse serve` warns of (one `warn` log line and one `WARNING:`
 * line) when mail is on. A mail queued before a restart of a server on the embedded store arrives after it.
 */
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../src/kernel/logging.js';
import { parseMailKey } from '../../src/run/mail-key.js';
import { parseStartArguments, serve } from '../../src/run/serve.js';
import { openStore } from '../../src/store/open.js';
import { postgresServerAvailability, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { smtpAvailability, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';
import { temporaryDirectory } from '../helpers/temporary-directory.js';

const KEY = Buffer.alloc(32);
for (let i = 0; i < 32; i++) KEY[i] = (i * 37 + 11) & 0xff;
const REFUSED = {
  error: 'GATEHOUSE_MAIL_KEY must be 32 random bytes as 64 hex digits or in base64 (for example: openssl rand -hex 32), the same on every instance',
};

describe('parseMailKey', () => {
  it.each([
    ['64 lower-case hex digits', KEY.toString('hex')],
    ['64 upper-case hex digits', KEY.toString('hex').toUpperCase()],
    ['base64 with padding', KEY.toString('base64')],
    ['base64 without padding', KEY.toString('base64').replace(/=+$/u, '')],
    ['base64url', KEY.toString('base64url')],
  ])('should read %s as the 32 bytes', (_name, text) => {
    const parsed = parseMailKey(text);
    expect(parsed instanceof Uint8Array ? Buffer.from(parsed).equals(KEY) : parsed).toBe(true);
  });

  it.each([
    ['a word', 'not-a-key'],
    ['63 hex digits', KEY.toString('hex').slice(1)],
    ['65 hex digits', `${KEY.toString('hex')}0`],
    ['16 bytes in base64', KEY.subarray(0, 16).toString('base64')],
    ['48 bytes in base64', Buffer.concat([KEY, KEY.subarray(0, 16)]).toString('base64')],
    ['base64 with a space', ` ${KEY.toString('base64')}`],
    ['base64 with a non-canonical last character', `${KEY.toString('base64').slice(0, 42)}B=`],
    ['base64 mixing both alphabets', `+-${KEY.toString('base64').slice(2)}`],
    ['hex with a line break', `${KEY.toString('hex')}\n`],
  ])('should refuse %s, without showing the value', (_name, text) => {
    const parsed = parseMailKey(text);
    expect(parsed).toStrictEqual(REFUSED);
    if (text.trim() !== '') expect(JSON.stringify(parsed)).not.toContain(text.trim().slice(0, 12));
  });
});

describe('parseStartArguments: GATEHOUSE_MAIL_KEY', () => {
  it('should pass the key on, take an unset or empty variable as none, and refuse a malformed one with the message', () => {
    const parsed = parseStartArguments([], { GATEHOUSE_MAIL_KEY: KEY.toString('hex') }, '/srv');
    expect('error' in parsed ? parsed : Buffer.from(parsed.mailKey ?? []).equals(KEY)).toBe(true);
    expect(parseStartArguments([], {}, '/srv')).toMatchObject({ mailKey: null });
    expect(parseStartArguments([], { GATEHOUSE_MAIL_KEY: '' }, '/srv')).toMatchObject({ mailKey: null });
    expect(parseStartArguments([], { GATEHOUSE_MAIL_KEY: 'abc123' }, '/srv')).toStrictEqual(REFUSED);
  });

  it('should stop gatehouse serve with exit status 2 and the message on standard error, before opening any store', async () => {
    const dataDir = join(temporaryDirectory('gatehouse-mail-key-'), 'data');
    const child = spawn(process.execPath, ['--conditions=gatehouse-source', '--import', 'tsx', 'packages/server/src/run/bin.ts', 'serve', '--port', '0'], {
      env: { ...process.env, GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_MAIL_KEY: 'hunter2-not-a-key' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    // a server that took the value and started is stopped rather than left running
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(timer);
    expect([code, stderr.split('\n')[0]]).toStrictEqual([2, `gatehouse: ${REFUSED.error}`]);
    expect(stderr).not.toContain('hunter2');
    expect(existsSync(dataDir)).toBe(false);
  }, 60_000);
});

/** Polls `check` every 50 ms until it holds, at most `ms`. */
async function eventually(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await delay(50);
  }
  return check();
}

function siteConfig(smtpPort: number): string {
  const file = join(temporaryDirectory('gatehouse-mail-key-'), 'site.jsonc');
  writeFileSync(
    file,
    JSON.stringify({
      'auth.providers': [{ type: 'builtin' }],
      'email.address': 'noreply@gatehouse.test',
      'email.smtp': { host: '127.0.0.1', port: smtpPort, authentication: 'none', noVerifyTLS: true },
    }),
  );
  return file;
}

interface Served {
  readonly out: string[];
  readonly logs: LogEntry[];
  readonly url: string;
  readonly token: string;
  stop(): Promise<number>;
}

/** Runs `gatehouse serve` in this process until its token line; `stop` sends SIGTERM and resolves its exit status. */
async function serveInProcess(config: string, env: Record<string, string>): Promise<Served> {
  const signals = new EventEmitter();
  const out: string[] = [];
  const logs: LogEntry[] = [];
  const running = serve(['--config', config, '--port', '0'], env, {
    stdout: { write: (t: string) => out.push(t) },
    stderr: { write: (t: string) => out.push(t) },
    signals: { on: (signal, listener) => signals.on(signal, listener) },
    log: (entry) => logs.push(entry),
  });
  let code: number | null = null;
  void running.then((c) => (code = c));
  // a first start creates the embedded database: allow a loaded machine its time
  expect(await eventually(() => code !== null || out.some((l) => l.startsWith('gatehouse listening on')), 60_000)).toBe(true);
  expect(code, out.join('')).toBeNull();
  // on a database already seeded no token is shown
  await eventually(() => out.some((l) => l.startsWith('Data: ')), 10_000);
  const url = /http:\/\/127\.0\.0\.1:\d+/u.exec(out.find((l) => l.startsWith('gatehouse listening on')) ?? '')?.[0] ?? '';
  const token = out.find((l) => l.startsWith('Administrator access token: '))?.slice('Administrator access token: '.length).trim() ?? '';
  return {
    out,
    logs,
    url,
    token,
    stop: async () => {
      signals.emit('SIGTERM');
      return running;
    },
  };
}

const warningsOf = (served: Served): { readonly logs: readonly LogEntry[]; readonly lines: readonly string[] } => ({
  logs: served.logs.filter((e) => e.event === 'mail_key_ephemeral'),
  lines: served.out.filter((l) => l.startsWith('WARNING: queued mail is sealed with a key of this process only')),
});

describe('gatehouse serve on the embedded store', () => {
  it('should use GATEHOUSE_MAIL_KEY when set: no mail.key is made and nothing is warned', async () => {
    const dataDir = join(temporaryDirectory('gatehouse-mail-key-'), 'data');
    const served = await serveInProcess(siteConfig(2525), { GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_MAIL_KEY: KEY.toString('base64') });
    expect(await served.stop()).toBe(0);
    expect(existsSync(join(dataDir, 'mail.key'))).toBe(false);
    expect(warningsOf(served)).toStrictEqual({ logs: [], lines: [] });
  }, 90_000);

  const smtp = smtpAvailability();
  if (!smtp.run) console.log(`skipping the mail across a restart test: ${smtp.reason}`);
  it.runIf(smtp.run)('should send after a restart a mail queued before it, sealed under mail.key: the outbox row never holds the token', async () => {
    const server: TestSmtpServer = await startSmtpServer({ authentication: 'none' });
    try {
      const dataDir = join(temporaryDirectory('gatehouse-mail-key-'), 'data');
      const config = siteConfig(server.port);
      // the relay refuses for now: the mail stays queued for a later attempt
      server.refuse(451);
      const first = await serveInProcess(config, { GATEHOUSE_DATA_DIR: dataDir });
      const gql = async (query: string): Promise<Record<string, unknown>> => {
        const response = await fetch(`${first.url}/.api/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `token ${first.token}` },
          body: JSON.stringify({ query }),
        });
        return (await response.json()) as Record<string, unknown>;
      };
      const created = (await gql('mutation { createUser(username: "erin", email: "erin@example.com") { id } }')) as { data?: { createUser?: { id?: string } } };
      const erin = created.data?.createUser?.id ?? '';
      expect(erin).not.toBe('');
      const made = (await gql(`mutation { createPasswordResetLink(user: "${erin}") { url emailSent } }`)) as { data?: { createPasswordResetLink?: { url: string; emailSent: boolean } } };
      const link = made.data?.createPasswordResetLink;
      expect(link?.emailSent).toBe(true);
      const token = new URL(link?.url ?? 'http://x').searchParams.get('token') ?? '';
      expect(token.length).toBeGreaterThan(16);
      expect(await eventually(() => server.refusals() > 0, 20_000)).toBe(true);
      expect(await first.stop()).toBe(0);

      // between the two starts: the queued row holds no token; it is made due now (rather than waiting out the backoff)
      const opened = await openStore({ dataDir });
      const store = opened._unsafeUnwrap().store;
      const rows = await store.outbox.list(10);
      expect(rows.map((r) => r.to)).toStrictEqual(['erin@example.com']);
      expect(JSON.stringify(rows)).not.toContain(token);
      await store.outbox.release(rows[0]?.id ?? '', 0, 'due now');
      await store.close();

      server.refuse(null);
      const second = await serveInProcess(config, { GATEHOUSE_DATA_DIR: dataDir });
      try {
        // any mail queued wakes the sender, which claims every due mail
        const again = await fetch(`${second.url}/.api/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `token ${first.token}` },
          body: JSON.stringify({ query: `mutation { createPasswordResetLink(user: "${erin}") { emailSent } }` }),
        });
        expect(again.status).toBe(200);
        const mail = await server.waitForMail((m) => (m.parsed.text ?? '').includes(token), 30_000);
        expect(mail.envelopeTo).toStrictEqual(['erin@example.com']);
        expect(second.logs.filter((e) => e.event === 'mail_dropped')).toStrictEqual([]);
      } finally {
        expect(await second.stop()).toBe(0);
      }
    } finally {
      await server.stop();
    }
  }, 180_000);
});

const postgres = postgresServerAvailability();
if (!postgres.run) console.log(`skipping the PostgreSQL server mail key warning test: ${postgres.reason}`);

describe.runIf(postgres.run)('gatehouse serve on a PostgreSQL server', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 120_000);
  afterAll(async () => {
    await cluster.stop();
  });

  it.each([
    ['without a key: one warn log line and one WARNING line, naming GATEHOUSE_MAIL_KEY', 'warned_plain', {}, 1],
    ['with GATEHOUSE_MAIL_KEY: no warning', 'warned_mail_key', { GATEHOUSE_MAIL_KEY: KEY.toString('hex') }, 0],
  ] as const)('should start with email.smtp set %s', async (_name, database, env, count) => {
    const databaseUrl = await cluster.createDatabase(database);
    const served = await serveInProcess(siteConfig(2525), { DATABASE_URL: databaseUrl, ...env });
    expect(await served.stop()).toBe(0);
    const { logs, lines } = warningsOf(served);
    expect([logs.length, lines.length]).toStrictEqual([count, count]);
    for (const entry of logs) {
      expect(entry.level).toBe('warn');
      expect(entry['message']).toContain('set GATEHOUSE_MAIL_KEY');
      expect(entry['message']).toContain('restart of this instance');
    }
    expect(served.out.join('')).not.toContain(KEY.toString('hex'));
  }, 120_000);
});
