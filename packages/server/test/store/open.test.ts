/**
 * Opening the store: where it is (flags over environment, a server URL over a data directory), that the embedded
 * data directory keeps everything across a restart, and that a newer schema is refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeStoreLocation, openStore, openStoreErrorMessage, resolveStoreLocation } from '../../src/store/open.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations/list.js';

const CODE_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

describe('resolveStoreLocation', () => {
  it.each([
    { ref: 'default: .gatehouse/data under the working directory', flags: {}, env: {}, expected: { dataDir: '/srv/.gatehouse/data' } },
    { ref: 'GATEHOUSE_DATA_DIR, relative', flags: {}, env: { GATEHOUSE_DATA_DIR: 'state' }, expected: { dataDir: '/srv/state' } },
    { ref: '--data-dir over GATEHOUSE_DATA_DIR', flags: { dataDir: '/var/gh' }, env: { GATEHOUSE_DATA_DIR: 'state' }, expected: { dataDir: '/var/gh' } },
    { ref: 'DATABASE_URL over a data directory', flags: { dataDir: '/var/gh' }, env: { DATABASE_URL: 'postgres://db/g' }, expected: { databaseUrl: 'postgres://db/g' } },
    { ref: '--database-url over DATABASE_URL', flags: { databaseUrl: 'postgres://a/b' }, env: { DATABASE_URL: 'postgres://db/g' }, expected: { databaseUrl: 'postgres://a/b' } },
    { ref: 'an empty DATABASE_URL counts as absent', flags: {}, env: { DATABASE_URL: '' }, expected: { dataDir: '/srv/.gatehouse/data' } },
  ])('should choose $ref', ({ flags, env, expected }) => {
    expect(resolveStoreLocation(flags, env, '/srv')).toStrictEqual(expected);
  });
});

describe('describeStoreLocation', () => {
  it('should never show the password of a database URL', () => {
    expect(describeStoreLocation({ databaseUrl: 'postgres://gh:s3cret@db:5432/gatehouse' })).toBe('postgres://gh:***@db:5432/gatehouse');
    expect(describeStoreLocation({ dataDir: '/var/gh' })).toBe('/var/gh');
  });
});

describe('openStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-open-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should keep accounts in the data directory across a restart, migrating only the first time', async () => {
    const dataDir = join(dir, 'data');
    const first = (await openStore({ dataDir }))._unsafeUnwrap();
    expect([first.driver, first.migrations.applied.map((m) => m.version)]).toStrictEqual(['pglite', MIGRATIONS.map((m) => m.version)]);
    await first.store.accounts.create({ usernames: ['alice'], origin: 'admin_created', siteAdmin: true, serviceAccount: false, emails: [], passwordHash: null, createdAt: 1 });
    await first.store.close();
    const second = (await openStore({ dataDir }))._unsafeUnwrap();
    expect(second.migrations.applied).toStrictEqual([]);
    expect((await second.store.accounts.findByUsernameKey('alice'))?.siteAdmin).toBe(true);
    await second.store.close();
  }, 120_000);

  it('should refuse a data directory whose schema is newer than the code, naming both versions', async () => {
    const dataDir = join(dir, 'future');
    const opened = (await openStore({ dataDir }))._unsafeUnwrap();
    await opened.store.close();
    const { openPgliteDriver } = await import('../../src/store/postgres/pglite.js');
    const raw = await openPgliteDriver({ dataDir });
    await raw.query("INSERT INTO gatehouse_migrations (version, name) VALUES (99, 'future')");
    await raw.close();
    const refused = await openStore({ dataDir });
    expect(refused.isErr() && refused.error).toStrictEqual({ code: 'schema_too_new', databaseVersion: 99, codeVersion: CODE_VERSION });
    expect(refused.isErr() && openStoreErrorMessage(refused.error)).toMatch(new RegExp(`version 99, newer than version ${CODE_VERSION}\\b`, 'u'));
  }, 120_000);

  it('should refuse a data directory another running process holds, and take over the lock of one that died', async () => {
    const dataDir = join(dir, 'locked');
    writeFileSync(`${dataDir}.lock`, String(process.ppid));
    await expect(openStore({ dataDir })).rejects.toThrow(`the data directory ${dataDir} is in use by process ${process.ppid}`);
    // no process runs with a pid above the kernel's pid_max (at most 2^22)
    writeFileSync(`${dataDir}.lock`, String(2 ** 22 + 1));
    const opened = (await openStore({ dataDir }))._unsafeUnwrap();
    await expect(openStore({ dataDir })).rejects.toThrow(`in use by process ${process.pid}`);
    await opened.store.close();
    await (await openStore({ dataDir }))._unsafeUnwrap().store.close();
  }, 120_000);

  it('should open an in-memory store for tests', async () => {
    const opened = (await openStore({ memory: true }))._unsafeUnwrap();
    expect(await opened.store.accounts.count()).toBe(0);
    await opened.store.close();
  }, 60_000);
});
