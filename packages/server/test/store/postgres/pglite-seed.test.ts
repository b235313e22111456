/**
 * The embedded database's first start from the pre-initialized data directory, and its small settings: a seed
 * written by `writePgliteSeed` fills an empty data directory (no `initdb`), with private modes, and keeps its data
 * across a restart; without a seed the first start runs `initdb` and ends the same; a seed of another PGlite version
 * is never looked for.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteDriver, PGLITE_SETTINGS } from '../../../src/store/postgres/pglite.js';
import { pgliteSeedCandidates, pgliteSeedName, writePgliteSeed } from '../../../src/store/postgres/pglite-seed.js';
import { applyMigrations } from '../../../src/store/postgres/migrate.js';

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

const pgliteVersion = (): string => {
  const manifest: unknown = JSON.parse(readFileSync(join('node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8'));
  return typeof manifest === 'object' && manifest !== null && 'version' in manifest && typeof manifest.version === 'string' ? manifest.version : '';
};

describe('the pre-initialized PGlite data directory', () => {
  let seed: Blob;
  beforeAll(async () => {
    const file = join(work, pgliteSeedName('test'));
    const bytes = await writePgliteSeed(file);
    expect(bytes).toBeGreaterThan(100_000);
    expect(readdirSync(work)).toStrictEqual([pgliteSeedName('test')]); // no partial file left behind
    seed = new Blob([readFileSync(file)]);
  }, 180_000);

  it('should fill an empty data directory from the seed, privately, migrate it and keep it across a restart', async () => {
    const dataDir = join(work, 'seeded');
    const first = await openPgliteDriver({ dataDir }, { seed });
    expect((await applyMigrations(first)).isOk()).toBe(true);
    await first.query("INSERT INTO accounts (username, username_key, origin, site_admin, service_account, created_at) VALUES ('alice', 'alice', 'sign_up', false, false, 1)");
    await first.close();
    expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
    expect(looserThanPrivate(dataDir)).toStrictEqual([]);
    // a restart finds the database and does not unpack the seed again (PGlite refuses to load onto a database)
    const again = await openPgliteDriver({ dataDir }, { seed });
    expect(await again.query('SELECT username FROM accounts')).toStrictEqual([{ username: 'alice' }]);
    await again.close();
  }, 180_000);

  it('should run initdb on an empty data directory when there is no seed, and end the same', async () => {
    const dataDir = join(work, 'initdb');
    const driver = await openPgliteDriver({ dataDir }, { seed: null });
    expect((await applyMigrations(driver)).isOk()).toBe(true);
    expect(await driver.query('SELECT count(*)::int AS n FROM accounts')).toStrictEqual([{ n: 0 }]);
    await driver.close();
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

  it('should look for the seed of the installed PGlite version only: beside the build, then in node_modules/.cache', () => {
    const name = pgliteSeedName(pgliteVersion());
    const candidates = pgliteSeedCandidates();
    expect(candidates).toHaveLength(2);
    expect(candidates.every((c) => c.endsWith(`/${name}`))).toBe(true);
    expect(candidates[1]).toMatch(/node_modules\/\.cache\/gatehouse\/pglite-seed-[^/]+\.tar\.gz$/u);
  });
});
