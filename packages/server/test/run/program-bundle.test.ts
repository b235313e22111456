/**
 * What the build of the `gatehouse` program bundles: every package but the few it imports from the installation,
 * which are exactly the packages loaded only when used, PGlite and pino, with every subpath of each.
 */
import { fileURLToPath } from 'node:url';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { PROGRAM_BUNDLED, PROGRAM_DEFINE, PROGRAM_EXTERNAL_PACKAGES } from '../../src/run/program-bundle.js';
import { readImportGraph } from '../helpers/import-graph.js';
import library, { program } from '../../tsup.config.js';

const src = fileURLToPath(new URL('../../src', import.meta.url));

describe('PROGRAM_BUNDLED', () => {
  it.each([
    ['graphql', true],
    ['graphql-http', true],
    ['react', true],
    ['react/jsx-runtime', true],
    ['react-dom/server', true],
    ['prom-client', true],
    ['ts-pattern', true],
    ['gatehouse-auth', true],
    ['neverthrow', true],
    // a package whose name starts with an external one's is another package
    ['pg-protocol', true],
    ['pino-pretty', true],
    ['@electric-sql/pglite-utils', true],
    ['pg', false],
    ['pg/lib/client', false],
    ['pino', false],
    ['nodemailer', false],
    ['nodemailer/lib/smtp-transport/index.js', false],
    ['openid-client', false],
    ['@node-saml/node-saml', false],
    ['@electric-sql/pglite', false],
    ['@electric-sql/pglite/nodefs', false],
    ['@electric-sql/pglite/contrib/pg_trgm', false],
  ])('should bundle %s: %s', (specifier, bundled) => {
    expect(PROGRAM_BUNDLED.test(specifier)).toBe(bundled);
  });

  test.prop([fc.constantFrom(...PROGRAM_EXTERNAL_PACKAGES), fc.array(fc.stringMatching(/^[a-z0-9_.-]{1,12}$/u), { maxLength: 3 })])(
    'should import every subpath of an external package from the installation',
    (name, parts) => {
      expect(PROGRAM_BUNDLED.test([name, ...parts].join('/'))).toBe(false);
    },
  );

  test.prop([fc.stringMatching(/^(@[a-z0-9-]{1,10}\/)?[a-z0-9][a-z0-9._-]{0,20}$/u)])('should bundle every other package (an oracle: its name is not in the list)', (name) => {
    expect(PROGRAM_BUNDLED.test(name)).toBe(!PROGRAM_EXTERNAL_PACKAGES.includes(name));
  });

  it('should keep external every package the server loads only when used (the lazy imports of src)', () => {
    const lazy = readImportGraph(src).filter((e) => e.dynamic && !e.to.includes('.ts'));
    expect(lazy.length).toBeGreaterThan(0);
    for (const edge of lazy) expect(PROGRAM_BUNDLED.test(edge.to)).toBe(false);
  });

  it("should be what the program's build gives tsup (packages/server/tsup.config.ts), and the library's build bundles neither", () => {
    expect(program.noExternal).toStrictEqual([PROGRAM_BUNDLED]);
    expect(library.noExternal).toStrictEqual(['neverthrow']);
  });

  it("should build the program for production, and leave the library's NODE_ENV to the program embedding it", () => {
    expect(program.define).toStrictEqual({ 'process.env.NODE_ENV': '"production"' });
    expect(program.define).toBe(PROGRAM_DEFINE);
    expect(library.define).toBeUndefined();
  });
});
