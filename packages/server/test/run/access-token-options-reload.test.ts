/**
 * `auth.accessTokens` applies at once on reload, in a real server process: the test changes `allow` to `none` in
 * the watched site configuration file, and the next `createAccessToken` is refused; set back, the next one is
 * created again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { graphql, startGatehouseProcess, type GatehouseProcess } from '../helpers/processes.js';

const CREATE = 'mutation($note: String!) { createAccessToken(note: $note, scopes: ["user:all"], expiresInSeconds: 86400) { token } }';
const config = (accessTokens: object): string => JSON.stringify({ 'auth.providers': [{ type: 'builtin' }], 'auth.accessTokens': accessTokens });

/** Waits (at most 20 s, polling every 50 ms) until the process has logged `count` reloads. */
async function reloads(server: GatehouseProcess, count: number): Promise<boolean> {
  const deadline = Date.now() + 20_000;
  const seen = (): number => server.output().split('\n').filter((line) => line.includes('"configuration_reloaded"')).length;
  while (Date.now() < deadline) {
    if (seen() >= count) return true;
    await delay(50);
  }
  return seen() >= count;
}

describe('auth.accessTokens on reload (a real process, the watched file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-token-reload-'));
  const file = join(dir, 'site.jsonc');
  let server: GatehouseProcess | null = null;
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses the next createAccessToken once allow is "none", and creates again once it is not', async () => {
    writeFileSync(file, config({}));
    server = await startGatehouseProcess({ args: ['--config', file], env: { GATEHOUSE_DATA_DIR: join(dir, 'data') } });
    const authorization = `token ${server.adminToken ?? ''}`;
    const created = await graphql(server.url, authorization, CREATE, { note: 'before' });
    expect(created.body).toMatchObject({ data: { createAccessToken: { token: expect.stringMatching(/^gat_/) } } });
    const before = server.output().split('\n').filter((line) => line.includes('"configuration_reloaded"')).length;

    writeFileSync(file, config({ allow: 'none' }));
    expect(await reloads(server, before + 1)).toBe(true);
    const refused = await graphql(server.url, authorization, CREATE, { note: 'after' });
    expect(refused.body).toMatchObject({
      data: null,
      errors: [{ message: 'Access tokens are turned off on this site (auth.accessTokens.allow is "none").', extensions: { code: 'FORBIDDEN', reason: 'access_tokens_disabled' } }],
    });

    writeFileSync(file, config({ allow: 'site-admin-create', expirationOptionDays: [1] }));
    expect(await reloads(server, before + 2)).toBe(true);
    // the administrator may create again, within the new longest lifetime (1 day) only
    expect((await graphql(server.url, authorization, CREATE, { note: 'again' })).body).toMatchObject({ data: { createAccessToken: { token: expect.stringMatching(/^gat_/) } } });
    const tooLong = await graphql(server.url, authorization, CREATE.replace('86400', '86401'), { note: 'too long' });
    expect(tooLong.body).toMatchObject({ errors: [{ extensions: { code: 'BAD_USER_INPUT', reason: 'expiration_too_long', maxDays: 1 } }] });
  }, 120_000);
});
