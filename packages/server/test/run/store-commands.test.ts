/**
 * `gatehouse migrate` and `gatehouse admin create-token`, run as functions against an embedded data directory.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { err, ok } from 'neverthrow';
import { afterAll, describe, expect, it } from 'vitest';
import { parseStoreCommand } from '../../src/cli/args.js';
import { runStoreCommand } from '../../src/run/store-commands.js';
import { seedAdministrator } from '../../src/run/administrator.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations/list.js';

const CODE_VERSION = MIGRATIONS.at(-1)?.version ?? 0;
/**
 * What `gatehouse migrate` prints on an empty data directory: every migration applied (no seed, so `initdb`), or
 * nothing to apply (filled from the seed already migrated to this schema, store/postgres/pglite-seed.ts).
 */
const FIRST_MIGRATE_OUTPUTS: readonly string[] = [
  `${MIGRATIONS.map((m) => `applied migration ${m.version} (${m.name})\n`).join('')}schema version ${CODE_VERSION}\n`,
  `nothing to apply: the schema is current\nschema version ${CODE_VERSION}\n`,
];
import { openStore } from '../../src/store/open.js';

describe('parseStoreCommand', () => {
  it.each([
    { ref: 'migrate, store from the environment', argv: ['migrate'], expected: ok({ kind: 'migrate', databaseUrl: null, dataDir: null }) },
    { ref: 'migrate --data-dir', argv: ['migrate', '--data-dir', '/d'], expected: ok({ kind: 'migrate', databaseUrl: null, dataDir: '/d' }) },
    { ref: 'create-token --database-url=', argv: ['admin', 'create-token', 'root', '--database-url=postgres://h/db'], expected: ok({ kind: 'create_token', username: 'root', databaseUrl: 'postgres://h/db', dataDir: null }) },
    { ref: 'create-token without a username', argv: ['admin', 'create-token'], expected: err({ code: 'missing_username' }) },
    { ref: 'admin without create-token', argv: ['admin', 'delete'], expected: err({ code: 'unknown_command', command: 'admin delete' }) },
    { ref: 'an unknown flag', argv: ['migrate', '--port', '1'], expected: err({ code: 'unknown_flag', flag: 'port' }) },
    { ref: 'a flag without value', argv: ['migrate', '--data-dir'], expected: err({ code: 'missing_flag_value', flag: 'data-dir' }) },
    { ref: 'two usernames', argv: ['admin', 'create-token', 'a', 'b'], expected: err({ code: 'unexpected_argument', argument: 'b' }) },
  ])('should read $ref', ({ argv, expected }) => {
    expect(parseStoreCommand(argv)).toStrictEqual(expected);
  });
});

describe('runStoreCommand', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = async (argv: readonly string[], env: Record<string, string> = {}) => {
    let stdout = '';
    let stderr = '';
    const status = await runStoreCommand(argv, {
      env,
      cwd: dir,
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
      now: () => 1_700_000_000_000,
      randomBytes: (n) => new Uint8Array(n).fill(7),
    });
    return { status, stdout, stderr };
  };

  it('should apply the migrations to the default data directory once, then find nothing to apply', async () => {
    const first = await run(['migrate']);
    expect(first.status).toBe(0);
    expect(FIRST_MIGRATE_OUTPUTS).toContain(first.stdout);
    const again = await run(['migrate']);
    expect(again).toMatchObject({ status: 0, stdout: `nothing to apply: the schema is current\nschema version ${CODE_VERSION}\n` });
    expect(again.stderr).toContain(join(dir, '.gatehouse', 'data'));
  }, 120_000);

  it('should print a fresh sudo token for an existing administrator of GATEHOUSE_DATA_DIR, storing only its digest', async () => {
    const dataDir = join(dir, 'state');
    const opened = (await openStore({ dataDir }))._unsafeUnwrap();
    const seeded = (await seedAdministrator(opened.store, { now: () => 1, randomBytes: (n) => new Uint8Array(n).fill(1) }))._unsafeUnwrap();
    await opened.store.accounts.create({ usernames: ['bob'], origin: 'password_signup', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 2 });
    await opened.store.close();
    expect(seeded.kind).toBe('seeded');

    const minted = await run(['admin', 'create-token', 'ADMIN'], { GATEHOUSE_DATA_DIR: dataDir });
    expect(minted.status).toBe(0);
    const secret = minted.stdout.trim();
    expect(secret).toMatch(/^gat_/u);
    expect(await run(['admin', 'create-token', 'bob'], { GATEHOUSE_DATA_DIR: dataDir })).toMatchObject({ status: 1, stdout: '' });
    expect((await run(['admin', 'create-token', 'nobody', '--data-dir', dataDir])).stderr).toContain('no account is named "nobody"');

    const reopened = (await openStore({ dataDir }))._unsafeUnwrap();
    const stored = await reopened.store.accessTokens.findByDigest(createHash('sha256').update(secret).digest('hex'));
    expect(stored).toMatchObject({ scopes: ['user:all', 'site-admin:sudo'], expiresAt: null });
    expect(await reopened.store.accessTokens.list(stored?.userId ?? '')).toHaveLength(2);
    await reopened.store.close();
  }, 120_000);

  it('should refuse a bad command line with status 2', async () => {
    expect(await run(['admin', 'create-token'])).toStrictEqual({
      status: 2,
      stdout: '',
      stderr: 'gatehouse: admin create-token and admin set-password need the username of an existing account\n',
    });
  });
});

describe('gatehouse migrate (the installed command)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-migrate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should reach the store commands from the gatehouse entry point', () => {
    const stdout = execFileSync(process.execPath, ['--conditions=gatehouse-source', '--import', 'tsx', 'packages/server/src/run/bin.ts', 'migrate', '--data-dir', join(dir, 'data')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(FIRST_MIGRATE_OUTPUTS).toContain(stdout);
  }, 120_000);
});
