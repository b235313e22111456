/**
 * `gatehouse admin set-password USERNAME`: the password on standard input, the rule of §5.3 "Built-in", run as a
 * function against an embedded data directory; the seeded administrator then signs in with it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { err, ok } from 'neverthrow';
import { afterAll, describe, expect, it } from 'vitest';
import { parseStoreCommand } from '../../src/cli/args.js';
import { runStoreCommand } from '../../src/run/store-commands.js';
import { seedAdministrator } from '../../src/run/administrator.js';
import { createSessions, verifyPassword } from '../../src/session/sessions.js';
import { openStore } from '../../src/store/open.js';

describe('parseStoreCommand: admin set-password', () => {
  it.each([
    { ref: 'a username', argv: ['admin', 'set-password', 'admin'], expected: ok({ kind: 'set_password', username: 'admin', databaseUrl: null, dataDir: null }) },
    { ref: 'with --data-dir', argv: ['admin', 'set-password', 'root', '--data-dir=/d'], expected: ok({ kind: 'set_password', username: 'root', databaseUrl: null, dataDir: '/d' }) },
    { ref: 'no username', argv: ['admin', 'set-password'], expected: err({ code: 'missing_username' }) },
    { ref: 'two usernames', argv: ['admin', 'set-password', 'a', 'b'], expected: err({ code: 'unexpected_argument', argument: 'b' }) },
  ])('should read $ref', ({ argv, expected }) => {
    expect(parseStoreCommand(argv)).toStrictEqual(expected);
  });
});

describe('runStoreCommand: admin set-password', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-password-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = join(dir, 'state');
  const run = async (argv: readonly string[], stdin: string) => {
    let stdout = '';
    let stderr = '';
    const status = await runStoreCommand([...argv, '--data-dir', dataDir], {
      env: {},
      cwd: dir,
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
      now: () => 1_700_000_000_000,
      randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)),
      readStdin: async () => stdin,
    });
    return { status, stdout, stderr };
  };

  it('should set the seeded administrator password, end its sessions, audit it, and refuse bad input without a change', async () => {
    const opened = (await openStore({ dataDir }))._unsafeUnwrap();
    const seeded = (await seedAdministrator(opened.store, { now: () => 1, randomBytes: (n) => new Uint8Array(n).fill(3) }))._unsafeUnwrap();
    const adminId = seeded.kind === 'seeded' ? seeded.user.id : '';
    const sessions = createSessions({ store: opened.store, now: () => 5, randomBytes: (n) => new Uint8Array(n).fill(9), secureCookies: false, sessionTtlSeconds: 9e6 });
    expect(await sessions.startCookie({ headers: {} }, adminId)).not.toBeNull();
    await opened.store.accounts.create({ usernames: ['robot'], origin: 'service_account', siteAdmin: false, serviceAccount: true, emails: [], passwordHash: null, createdAt: 2 });
    await opened.store.close();

    expect(await run(['admin', 'set-password', 'admin'], 'short\n')).toMatchObject({ status: 1, stdout: '' });
    expect((await run(['admin', 'set-password', 'nobody'], 'long enough pass\n')).stderr).toContain('no account is named "nobody"');
    expect((await run(['admin', 'set-password', 'robot'], 'long enough pass\n')).stderr).toContain('robot is a service account');
    const done = await run(['admin', 'set-password', 'ADMIN'], 'correct horse battery\n');
    expect(done).toMatchObject({ status: 0, stdout: 'password set for ADMIN; 1 session ended\n' });

    const again = (await openStore({ dataDir }))._unsafeUnwrap();
    try {
      const admin = await again.store.accounts.get(adminId);
      expect(await verifyPassword('correct horse battery', admin?.passwordHash ?? '')).toBe(true);
      expect(await verifyPassword('correct horse battery\n', admin?.passwordHash ?? '')).toBe(false);
      expect(await again.store.sessions.list(adminId)).toEqual([]);
      const robot = await again.store.accounts.findByUsernameKey('robot');
      expect(robot?.passwordHash).toBeNull();
      const [entry] = await again.store.audit.list(1, { entity: 'user.password' });
      expect(entry).toMatchObject({ action: 'reset', subjectUserId: adminId, actorUserId: null, details: { sessionsEnded: '1' } });
    } finally {
      await again.store.close();
    }
  }, 120_000);
});
