/**
 * What `gatehouse serve` starts before it loads the server: whether the command opens the embedded database
 * agrees with the server's own reading of its command line, and the prefetch runs only then.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { opensEmbeddedStore, startServeEarly } from '../../src/run/early-start.js';
import { parseStartArguments } from '../../src/run/serve.js';
import { SERVE_FLAGS } from '../../src/run/serve-usage.js';
import { takePgliteArtifacts } from '../../src/store/postgres/pglite-artifacts.js';

const URL_A = 'postgres://db.example/gatehouse';

describe('opensEmbeddedStore', () => {
  it.each([
    { argv: [], env: {}, embedded: true },
    { argv: ['--data-dir', '/srv/data', '--port', '3080'], env: {}, embedded: true },
    { argv: ['--database-url', URL_A], env: {}, embedded: false },
    { argv: [`--database-url=${URL_A}`], env: {}, embedded: false },
    { argv: [], env: { DATABASE_URL: URL_A }, embedded: false },
    { argv: [], env: { DATABASE_URL: '' }, embedded: true },
    { argv: ['--data-dir', '/srv/data'], env: { DATABASE_URL: URL_A, GATEHOUSE_DATA_DIR: '/x' }, embedded: false },
    // the flag's name as another flag's value is that value, not the flag
    { argv: ['--config', '--database-url', '--port', '1'], env: {}, embedded: true },
    // command lines the server refuses: nothing opens, nothing is prefetched
    { argv: ['--database-url'], env: {}, embedded: false },
    { argv: ['--bogus', 'x'], env: {}, embedded: false },
  ])('should read $argv with $env as embedded=$embedded', ({ argv, env, embedded }) => {
    expect(opensEmbeddedStore(argv, env)).toBe(embedded);
  });

  const flagNames = SERVE_FLAGS.map((f) => f.flag);
  const value = fc.oneof(fc.constantFrom(URL_A, 'postgres://other/db', '/srv/data', '3080', '127.0.0.1:9464', '5', 'a=b'), fc.string({ maxLength: 12 }));
  const argument = fc.tuple(fc.constantFrom(...flagNames), value, fc.boolean()).map(([flag, v, inline]) => (inline ? [`${flag}=${v}`] : [flag, v]));
  const argvArb = fc.array(argument, { maxLength: 5 }).map((parts) => parts.flat());
  const envArb = fc.record({ DATABASE_URL: fc.option(fc.constantFrom(URL_A, ''), { nil: undefined }) }, { requiredKeys: [] });

  test.prop([argvArb, envArb], { numRuns: 500 })('should agree with parseStartArguments on every command line the server accepts', (argv, env) => {
    const parsed = parseStartArguments(argv, env, '/srv');
    if ('error' in parsed) return;
    expect(opensEmbeddedStore(argv, env)).toBe('dataDir' in parsed.store);
  });

  test.prop([fc.array(fc.string(), { maxLength: 6 }), fc.dictionary(fc.string(), fc.string())])('should never throw', (argv, env) => {
    expect(typeof opensEmbeddedStore(argv, env)).toBe('boolean');
  });
});

describe('startServeEarly', () => {
  it('should prefetch nothing for a PostgreSQL server, and the embedded database files (once) otherwise', async () => {
    startServeEarly(['--database-url', URL_A], {});
    expect(await takePgliteArtifacts()).toBeNull();
    startServeEarly([], { DATABASE_URL: URL_A });
    expect(await takePgliteArtifacts()).toBeNull();
    startServeEarly(['--data-dir', '/srv/data'], {});
    const artifacts = await takePgliteArtifacts();
    expect(artifacts?.pgliteWasmModule).toBeInstanceOf(WebAssembly.Module);
    // the module is PGlite's PostgreSQL: it exports the entry points PGlite calls
    const exports = artifacts === null ? [] : WebAssembly.Module.exports(artifacts.pgliteWasmModule).map((e) => e.name);
    expect(exports).toContain('pgl_startPGlite');
    expect(artifacts?.fsBundle.size).toBeGreaterThan(1_000_000);
    // taken once: the next database opened reads its own files
    expect(await takePgliteArtifacts()).toBeNull();
  });
});
