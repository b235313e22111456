/**
 * The embedded database's first start from the pre-initialized data directory, and its small settings: a seed
 * written by `writePgliteSeed` fills an empty data directory (no `initdb`), with private modes, and keeps its data
 * across a restart; without a seed the first start runs `initdb` and ends the same; a seed of another PGlite version
 * is never looked for. `initdb` makes write-ahead log segments of 1 MB, and the seeds keep no template database.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gunzipSync, gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { ok } from 'neverthrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteDriver, PGLITE_SETTINGS } from '../../../src/store/postgres/pglite.js';
import { pgliteSeedCandidates, pgliteSeedName, unpackPgliteSeed } from '../../../src/store/postgres/pglite-seed.js';
import { ensurePgliteSeeds } from '../../../src/store/postgres/pglite-seed-build.js';
import { MIGRATIONS } from '../../../src/store/postgres/migrations/list.js';
import { applyMigrations } from '../../../src/store/postgres/migrate.js';

const gunzipped = (bytes: Uint8Array): Buffer => gunzipSync(bytes);

const work = mkdtempSync(join(tmpdir(), 'gatehouse-seed-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every path below `dir` whose mode lets the group or others in. */
function looserThanPrivate(dir: string): readonly string[] {
  const found: string[] = [];
  const visit = (path: string): void => {
    const info = statSync(path);
    if ((info.mode & 0o077) !== 0) found.push(`${path} ${(info.mode & 0o777).toString(8)}`);
    if (info.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return found;
}

/** The distinct sizes of the write-ahead log segments in a data directory (`pg_wal/` names of 24 hex digits). */
function walSegmentSizes(dataDir: string): readonly number[] {
  const segments = readdirSync(join(dataDir, 'pg_wal')).filter((name) => /^[0-9A-F]{24}$/u.test(name));
  return [...new Set(segments.map((name) => statSync(join(dataDir, 'pg_wal', name)).size))];
}

/** A gzipped ustar archive of regular files (type `0`) or entries of another type. */
function archive(entries: readonly { readonly path: string; readonly type?: string; readonly content?: string }[]): Uint8Array {
  const blocks: Buffer[] = [];
  for (const { path, type = '0', content = '' } of entries) {
    const header = Buffer.alloc(512);
    header.write(path, 0, 100, 'utf8');
    header.write('0000600\0', 100, 'ascii');
    header.write(`${Buffer.byteLength(content).toString(8).padStart(11, '0')}\0`, 124, 'ascii');
    header.write(type, 156, 'ascii');
    header.write('ustar\0', 257, 'ascii');
    const body = Buffer.alloc(Math.ceil(Buffer.byteLength(content) / 512) * 512);
    body.write(content, 0, 'utf8');
    blocks.push(header, body);
  }
  blocks.push(Buffer.alloc(1024));
  return new Uint8Array(gzipSync(Buffer.concat(blocks)));
}

const pgliteVersion = (): string => {
  const manifest: unknown = JSON.parse(readFileSync(join('node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8'));
  return typeof manifest === 'object' && manifest !== null && 'version' in manifest && typeof manifest.version === 'string' ? manifest.version : '';
};

describe('the pre-initialized PGlite data directory', () => {
  let seed: Uint8Array;
  let migratedSeed: Uint8Array;
  beforeAll(async () => {
    const files = await ensurePgliteSeeds(join(work, 'seeds'));
    if (files === null) throw new Error('PGlite not found');
    // no partial file left behind
    expect(readdirSync(join(work, 'seeds')).sort()).toStrictEqual([pgliteSeedName(pgliteVersion(), 'initialized'), pgliteSeedName(pgliteVersion(), 'migrated')].sort());
    seed = new Uint8Array(readFileSync(files.initialized));
    migratedSeed = new Uint8Array(readFileSync(files.migrated));
    expect(seed.length).toBeGreaterThan(100_000);
  }, 300_000);

  it('should fill an empty data directory from the seed, privately, migrate it and keep it across a restart', async () => {
    const dataDir = join(work, 'seeded');
    const first = await openPgliteDriver({ dataDir }, { seed });
    expect((await applyMigrations(first)).map((m) => m.applied.length)).toStrictEqual(ok(MIGRATIONS.length));
    await first.query("INSERT INTO accounts (username, username_key, origin, site_admin, service_account, created_at) VALUES ('alice', 'alice', 'sign_up', false, false, 1)");
    // the initialized seed keeps no template database either (pglite-seed-build.ts)
    expect(await first.query('SELECT datname FROM pg_database')).toStrictEqual([{ datname: 'postgres' }]);
    await first.close();
    expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
    expect(looserThanPrivate(dataDir)).toStrictEqual([]);
    // a restart finds the database and does not unpack the seed again
    const again = await openPgliteDriver({ dataDir }, { seed });
    expect(await again.query('SELECT username FROM accounts')).toStrictEqual([{ username: 'alice' }]);
    await again.close();
  }, 180_000);

  it('should fill an empty data directory from the migrated seed with nothing left to migrate', async () => {
    const dataDir = join(work, 'migrated');
    const driver = await openPgliteDriver({ dataDir }, { seed: migratedSeed });
    expect((await applyMigrations(driver)).map((m) => m.applied)).toStrictEqual(ok([]));
    expect(await driver.query('SELECT version FROM gatehouse_migrations ORDER BY version')).toStrictEqual(MIGRATIONS.map((m) => ({ version: m.version })));
    // initdb made the seed with write-ahead log segments of 1 MB (PGLITE_INITDB_PARAMETERS), not 16 MB
    expect(await driver.query('SHOW wal_segment_size')).toStrictEqual([{ wal_segment_size: '1MB' }]);
    // and without the template databases (pglite-seed-build.ts): one database, one directory of it under base/
    expect(await driver.query('SELECT datname FROM pg_database')).toStrictEqual([{ datname: 'postgres' }]);
    await driver.close();
    expect(readdirSync(join(dataDir, 'base'))).toHaveLength(1);
    expect(walSegmentSizes(dataDir)).toStrictEqual([1024 * 1024]);
    expect(looserThanPrivate(dataDir)).toStrictEqual([]);
  }, 180_000);

  it('should run initdb on an empty data directory when there is no seed, and end the same', async () => {
    const dataDir = join(work, 'initdb');
    const driver = await openPgliteDriver({ dataDir }, { seed: null });
    expect((await applyMigrations(driver)).isOk()).toBe(true);
    expect(await driver.query('SELECT count(*)::int AS n FROM accounts')).toStrictEqual([{ n: 0 }]);
    expect(await driver.query('SHOW wal_segment_size')).toStrictEqual([{ wal_segment_size: '1MB' }]);
    await driver.close();
    expect(walSegmentSizes(dataDir)).toStrictEqual([1024 * 1024]);
    expect(looserThanPrivate(dataDir)).toStrictEqual([]);
  }, 180_000);

  it('should start with the small settings, in a data directory and in memory', async () => {
    for (const driver of [await openPgliteDriver({ dataDir: join(work, 'seeded') }), await openPgliteDriver({ memory: true }, { seed })]) {
      const rows = await driver.query<{ name: string; setting: string; unit: string | null }>(
        "SELECT name, setting, unit FROM pg_settings WHERE name IN ('shared_buffers', 'temp_buffers', 'work_mem', 'maintenance_work_mem') ORDER BY name",
      );
      await driver.close();
      // pg_settings counts shared and temp buffers in 8 kB blocks and the memories in kB
      const kilobytes = Object.fromEntries(rows.map((r) => [r.name, Number(r.setting) * (r.unit === '8kB' ? 8 : 1)]));
      const wanted = Object.fromEntries(
        PGLITE_SETTINGS.map((line) => {
          const [name = '', value = ''] = line.split('=').map((part) => part.trim());
          return [name, Number.parseInt(value, 10) * 1024];
        }),
      );
      expect(kilobytes).toStrictEqual(wanted);
    }
  }, 180_000);

  it.each([
    ['a path that leaves the directory', [{ path: 'base/1', content: 'x' }, { path: '../escaped', content: 'x' }]],
    ['a symbolic link', [{ path: 'base/1', content: 'x' }, { path: 'link', type: '2' }]],
    ['an archive cut short', [{ path: 'PG_VERSION', content: 'x'.repeat(2000) }]],
  ] as const)('should refuse a seed holding %s and leave the data directory empty', async (name, entries) => {
    const dataDir = join(work, `refused-${name.replaceAll(' ', '-')}`);
    mkdirSync(dataDir, { mode: 0o700 });
    const whole = archive(entries);
    const bytes = name === 'an archive cut short' ? new Uint8Array(gzipSync(Buffer.from(gunzipped(whole).subarray(0, 1024)))) : whole;
    await expect(unpackPgliteSeed(bytes, dataDir)).rejects.toThrow(/PGlite seed/u);
    expect(readdirSync(dataDir)).toStrictEqual([]);
    expect(existsSync(join(work, 'escaped'))).toBe(false);
    expect(readdirSync(work).filter((n) => n.includes('.unpacking-'))).toStrictEqual([]);
  });

  it('should look for the seeds of the installed PGlite version only (the migrated one of these migrations only): beside the build, then in node_modules/.cache', () => {
    for (const kind of ['initialized', 'migrated'] as const) {
      const name = pgliteSeedName(pgliteVersion(), kind);
      const candidates = pgliteSeedCandidates(kind);
      expect(candidates).toHaveLength(2);
      expect(candidates.every((c) => c.endsWith(`/${name}`))).toBe(true);
      expect(candidates[1]).toMatch(/node_modules\/\.cache\/gatehouse\/pglite-seed-[^/]+\.tar\.gz$/u);
    }
    expect(pgliteSeedName('1.2.3', 'migrated')).toMatch(/^pglite-seed-1\.2\.3-schema-[0-9a-f]{12}\.tar\.gz$/u);
  });
});
