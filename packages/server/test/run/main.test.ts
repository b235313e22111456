import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStartArguments } from '../../src/run/main.js';
import { startMainProcess } from '../helpers/server.js';
import { temporaryDirectory } from '../helpers/temporary-directory.js';

/** The serve options these rows do not set. */
const SERVE_DEFAULTS = {
  drainTimeoutMs: 10_000,
  metricsAddress: null,
  publicCodeHostURLs: { hosta: 'https://hosta.example.com', hostccloud: 'https://hostccloud.example.com' },
  store: { dataDir: join(process.cwd(), '.gatehouse', 'data') },
  credentialsKey: null,
  mailKey: null,
};

describe('parseStartArguments (npm start)', () => {
  const rows: readonly { ref: string; argv: string[]; env: Record<string, string>; expected: unknown }[] = [
    { ref: 'defaults', argv: [], env: {}, expected: { configPath: null, searchDirectory: null, port: 3080, host: '127.0.0.1', ...SERVE_DEFAULTS } },
    { ref: 'PORT', argv: [], env: { PORT: '8080' }, expected: { configPath: null, searchDirectory: null, port: 8080, host: '127.0.0.1', ...SERVE_DEFAULTS } },
    { ref: 'GATEHOUSE_CONFIG', argv: [], env: { GATEHOUSE_CONFIG: 'a.jsonc' }, expected: { configPath: 'a.jsonc', searchDirectory: null, port: 3080, host: '127.0.0.1', ...SERVE_DEFAULTS } },
    { ref: '--config wins over GATEHOUSE_CONFIG', argv: ['--config', 'b.jsonc'], env: { GATEHOUSE_CONFIG: 'a.jsonc' }, expected: { configPath: 'b.jsonc', searchDirectory: null, port: 3080, host: '127.0.0.1', ...SERVE_DEFAULTS } },
    { ref: '--config=FILE and --search-dir', argv: ['--config=c.jsonc', '--search-dir', 'src'], env: {}, expected: { configPath: 'c.jsonc', searchDirectory: 'src', port: 3080, host: '127.0.0.1', ...SERVE_DEFAULTS } },
    { ref: 'HOST', argv: [], env: { HOST: '0.0.0.0' }, expected: { configPath: null, searchDirectory: null, port: 3080, host: '0.0.0.0', ...SERVE_DEFAULTS } },
    { ref: 'bad PORT', argv: [], env: { PORT: '70000' }, expected: { error: 'PORT must be a port number, not "70000"' } },
    { ref: '--config without a value', argv: ['--config'], env: {}, expected: { error: '--config needs a value' } },
    { ref: 'unknown argument', argv: ['--verbose'], env: {}, expected: { error: 'unknown argument: --verbose' } },
  ];
  it.each(rows)('$ref', ({ argv, env, expected }) => {
    expect(parseStartArguments(argv, env)).toStrictEqual(expected);
  });
});

describe('npm start', () => {
  it('should print its URL and a one-time administrator token with site-admin:sudo that works', async () => {
    const started = await startMainProcess(['--search-dir', 'packages/server/src']);
    try {
      const { url, token } = started;
      const ask = async (authorization: string, query: string): Promise<unknown> => {
        const res = await fetch(`${url}/.api/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization },
          body: JSON.stringify({ query }),
        });
        return res.json();
      };
      expect(await ask(`token ${token}`, '{ currentUser { username siteAdmin } }')).toStrictEqual({
        data: { currentUser: { username: 'admin', siteAdmin: true } },
      });
      // the token holds site-admin:sudo: create a user, then act as them
      await ask(`token ${token}`, 'mutation { createUser(username: "someone") { id } }');
      expect(await ask(`token-sudo user="someone",token="${token}"`, '{ currentUser { username } }')).toStrictEqual({
        data: { currentUser: { username: 'someone' } },
      });
      // --search-dir: the default search counts literal matches in that directory
      const search = (await ask(`token ${token}`, '{ search(query: "Administrator access token: ") { results { matchCount } } }')) as {
        data: { search: { results: { matchCount: number } } };
      };
      expect(search.data.search.results.matchCount).toBeGreaterThanOrEqual(1);
    } finally {
      await started.stop();
    }
  });
});

describe('npm start -- --config FILE', () => {
  it('should mount the sign-in routes of the providers in the file, without extra code', async () => {
    const dir = temporaryDirectory('gatehouse-main-config-');
    const file = join(dir, 'site.jsonc');
    writeFileSync(
      file,
      `{ "externalURL": "https://gatehouse.example", "auth.providers": [
        { "type": "builtin" },
        { "type": "hostb", "displayName": "Host B", "url": "https://hostb.example", "clientID": "id", "clientSecret": "s" } ] }`,
    );
    const started = await startMainProcess(['--config', file]);
    try {
      const { url } = started;
      const page = await (await fetch(`${url}/.auth/sign-in`)).text();
      expect(page).toContain('Sign in with Host B');
      const login = await fetch(`${url}/.auth/hostb/login`, { redirect: 'manual' });
      expect(login.status).toBe(303);
      const location = new URL(login.headers.get('location') ?? '');
      expect(`${location.origin}${location.pathname}`).toBe('https://hostb.example/oauth/authorize');
      expect(location.searchParams.get('redirect_uri')).toBe('https://gatehouse.example/.auth/hostb/callback');
      expect(location.searchParams.get('scope')).toBe('read_user api');
    } finally {
      await started.stop();
    }
  });
});
