/**
 * `gatehouse admin set-password` applies the site's password rule (`auth.minPasswordLength`,
 * `auth.passwordPolicy`) read from `GATEHOUSE_CONFIG`, as `gatehouse serve` reads it; without the variable, the
 * options' defaults (12 characters); a configuration it cannot read sets nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seedAdministrator } from '../../src/run/administrator.js';
import { runStoreCommand } from '../../src/run/store-commands.js';
import { openStore } from '../../src/store/open.js';

describe('admin set-password and the site password rule', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-rule-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = join(dir, 'state');
  const configFile = join(dir, 'site.jsonc');
  const run = async (stdin: string, env: Record<string, string>) => {
    let stderr = '';
    const status = await runStoreCommand(['admin', 'set-password', 'admin', '--data-dir', dataDir], {
      env,
      cwd: dir,
      stdout: { write: () => undefined },
      stderr: { write: (t: string) => (stderr += t) },
      now: () => 1_700_000_000_000,
      randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)),
      readStdin: async () => stdin,
    });
    return { status, stderr };
  };
  const hash = async (): Promise<string | null> => {
    const opened = (await openStore({ dataDir }))._unsafeUnwrap();
    try {
      return (await opened.store.accounts.findByUsernameKey('admin'))?.passwordHash ?? null;
    } finally {
      await opened.store.close();
    }
  };

  it.each<[string, string | null, string, number, string]>([
    ['the default rule: 11 characters refused', null, 'elevenchars', 1, 'fewer than 12 characters'],
    ['auth.minPasswordLength 20', JSON.stringify({ 'auth.minPasswordLength': 20 }), 'nineteen characters', 1, 'fewer than 20 characters'],
    ['auth.passwordPolicy enabled: no special characters', JSON.stringify({ 'auth.passwordPolicy': { enabled: true } }), 'Abcdefghijk1', 1, 'special characters'],
    ['a configuration with a problem sets nothing', JSON.stringify({ 'auth.minPasswordLength': 'long' }), 'correct horse battery', 1, 'auth.minPasswordLength'],
    ['auth.passwordPolicy enabled: a password that meets it', JSON.stringify({ 'auth.passwordPolicy': { enabled: true } }), 'Correct Horse 1!#', 0, ''],
  ])('%s', async (_name, config, password, status, message) => {
    const opened = (await openStore({ dataDir }))._unsafeUnwrap();
    await seedAdministrator(opened.store, { now: () => 1, randomBytes: (n) => new Uint8Array(n).fill(3) });
    await opened.store.close();
    const before = await hash();
    const env: Record<string, string> = {};
    if (config !== null) {
      writeFileSync(configFile, config);
      env['GATEHOUSE_CONFIG'] = configFile;
    }
    const result = await run(`${password}\n`, env);
    expect(result.status).toBe(status);
    expect(result.stderr).toContain(message);
    if (status === 0) expect(await hash()).not.toBe(before);
    else expect(await hash()).toBe(before);
  });
});
