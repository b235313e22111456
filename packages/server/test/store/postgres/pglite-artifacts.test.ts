/**
 * PGlite's files read and compiled ahead (pglite-artifacts.ts): the database that opens next takes them and runs
 * on them; nothing is held after that, and without a prefetch PGlite reads its own files.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prefetchPgliteArtifacts, takePgliteArtifacts } from '../../../src/store/postgres/pglite-artifacts.js';
import { openPgliteDriver } from '../../../src/store/postgres/pglite.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('takePgliteArtifacts', () => {
  it('should give nothing when nothing was prefetched', async () => {
    expect(await takePgliteArtifacts()).toBeNull();
  });

  it('should hand the prefetched files to the next database, which runs on them, and hold nothing after', async () => {
    prefetchPgliteArtifacts();
    const dir = await mkdtemp(join(tmpdir(), 'gatehouse-artifacts-'));
    dirs.push(dir);
    const driver = await openPgliteDriver({ dataDir: dir });
    try {
      // taken by the open: a second take finds nothing, and a second prefetch in this process starts nothing
      expect(await takePgliteArtifacts()).toBeNull();
      prefetchPgliteArtifacts();
      expect(await takePgliteArtifacts()).toBeNull();
      expect(await driver.query<{ n: number }>('SELECT 1 + 1 AS n')).toStrictEqual([{ n: 2 }]);
      // the file system bundle was unpacked: the extension the store needs is there
      expect(await driver.query<{ name: string }>("SELECT name FROM pg_available_extensions WHERE name = 'pg_trgm'")).toStrictEqual([{ name: 'pg_trgm' }]);
    } finally {
      await driver.close();
    }
  });
});
