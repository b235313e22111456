/**
 * `gatehouse serve` opens its store before it listens: a database whose schema is newer than the code is refused
 * with a message naming both versions, and the server does not start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serve } from '../../src/run/serve.js';
import { openPgliteDriver } from '../../src/store/postgres/pglite.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations/list.js';
import { applyMigrations } from '../../src/store/postgres/migrate.js';

describe('serve and its store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-serve-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should refuse to start on a data directory whose schema is newer than the code, naming both versions (exit 1)', async () => {
    const dataDir = join(dir, 'data');
    const driver = await openPgliteDriver({ dataDir });
    await applyMigrations(driver);
    await driver.query("INSERT INTO gatehouse_migrations (version, name) VALUES (42, 'from_a_newer_gatehouse')");
    await driver.close();
    const out: string[] = [];
    const status = await serve(['--port', '0', '--data-dir', dataDir], {}, {
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: (t: string) => out.push(t) },
      signals: { on: () => undefined },
      log: () => undefined,
    });
    expect(status).toBe(1);
    expect(out.join('')).toMatch(new RegExp(`the database schema is at version 42, newer than version ${MIGRATIONS.at(-1)?.version ?? 0} that this gatehouse knows`, 'u'));
    expect(out.join('')).not.toContain('gatehouse listening on');
  }, 120_000);
});
