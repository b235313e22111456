/**
 * The dependency rules of docs/architecture.md, checked on the import graph of both packages (read with the
 * TypeScript compiler's parser): each folder imports only what its row allows, leaves aside; no runtime import
 * cycle; the core imports nothing of Node and nothing of the server. A fixture tree with deliberate violations
 * shows the check failing on each kind.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkDependencyRules, readDependencyRules, readImportGraph } from './helpers/import-graph.js';

const at = (path: string): string => fileURLToPath(new URL(path, import.meta.url));
const rules = readDependencyRules(readFileSync(at('../../../docs/architecture.md'), 'utf8'));

describe('the dependency rules of docs/architecture.md', () => {
  it('should name every folder of gatehouse-server', () => {
    expect([...rules.keys()].sort()).toStrictEqual(
      [
        '(root)/index.ts',
        '(root)/routes.ts',
        '(root)/server.ts',
        '(root)/site.ts',
        '(root)/types.ts',
        'api',
        'cli',
        'console',
        'kernel',
        'mail',
        'oauth-server',
        'operations',
        'pages',
        'providers',
        'run',
        'session',
        'settings',
        'sign-in',
        'site-admin',
        'store',
      ].sort(),
    );
  });

  it('should hold for gatehouse-server: no import the table forbids, no folder without a row, no runtime cycle', () => {
    expect(checkDependencyRules(readImportGraph(at('../src')), rules)).toStrictEqual([]);
  });

  it('should leave at the server root only the public entry, the server, the wiring, the route table and the types', () => {
    const rootFiles = [...new Set(readImportGraph(at('../src')).map((e) => e.from))].filter((f) => !f.includes('/')).sort();
    expect(rootFiles).toStrictEqual(['index.ts', 'routes.ts', 'server.ts', 'site.ts', 'types.ts']);
  });

  it('should import graphql only in api/: operations return Result values, and only the API makes GraphQLErrors', () => {
    const outside = readImportGraph(at('../src')).filter((e) => (e.to === 'graphql' || e.to === 'graphql-http') && !e.from.startsWith('api/'));
    expect(outside).toStrictEqual([]);
  });

  it('should load the packages a start does not need only when used: nodemailer, pg, openid-client, node-saml', () => {
    // each costs a start tens of milliseconds of loading; a static value import anywhere in src loads it with the server
    const lazy = new Set(['nodemailer', 'pg', 'openid-client', '@node-saml/node-saml']);
    const edges = readImportGraph(at('../src')).filter((e) => lazy.has(e.to));
    expect(edges.filter((e) => !e.typeOnly && !e.dynamic)).toStrictEqual([]);
    // the check sees them: each is imported somewhere, lazily
    expect(new Set(edges.filter((e) => e.dynamic).map((e) => e.to))).toStrictEqual(lazy);
  });

  it("should load, before the program's command is known, only node built-ins and the modules of its early start (run/bin.ts)", () => {
    // `gatehouse serve` starts the embedded database's early work (early-start.ts) before it loads anything else; a
    // static import of the API client or of a package here would delay it by that module's loading time
    const edges = readImportGraph(at('../src')).filter((e) => !e.typeOnly && !e.dynamic);
    const loaded = new Set<string>();
    const visit = (file: string): void => {
      if (loaded.has(file)) return;
      loaded.add(file);
      for (const e of edges) if (e.from === file) visit(e.to);
    };
    visit('run/bin.ts');
    expect([...loaded].filter((m) => !m.startsWith('node:')).sort()).toStrictEqual(
      ['cli/exit-status.ts', 'kernel/entry-point.ts', 'run/bin.ts', 'run/early-start.ts', 'run/engine-flags.ts', 'run/serve-usage.ts', 'store/postgres/pglite-artifacts.ts'].sort(),
    );
    // each command's own modules are loaded by a dynamic import, the API client's too
    const commands = readImportGraph(at('../src')).filter((e) => e.from === 'run/bin.ts' && e.dynamic);
    expect(commands.map((e) => e.to).sort()).toStrictEqual(['cli/doctor.ts', 'cli/main.ts', 'run/serve.ts', 'run/store-commands.ts']);
  });

  it('should find each kind of violation in the fixture tree, and nothing else', () => {
    const violations = checkDependencyRules(readImportGraph(at('./fixtures/architecture/src')), rules);
    expect(violations).toStrictEqual([
      { rule: 'unknown_folder', detail: 'extra has no row in the dependency rules' },
      { rule: 'folder', detail: 'kernel/log.ts imports api/handler.ts: kernel may not import api' },
      { rule: 'folder', detail: 'settings/page.ts imports api/handler.ts (types): settings may not import api' },
      { rule: 'cycle', detail: 'api/cycle-a.ts → api/cycle-b.ts' },
    ]);
  });
});

describe('the core (gatehouse-auth)', () => {
  const core = readImportGraph(at('../../../src'));
  const PACKAGES = ['graphql', 'jsonc-parser', 'neverthrow', 'ts-pattern'];

  it('should import only the core and its four packages: nothing of node:*, nothing of the server', () => {
    const outside = core.filter((e) => !(e.to.endsWith('.ts') && !e.to.startsWith('..')) && !PACKAGES.includes(e.to));
    expect(outside).toStrictEqual([]);
  });

  it('should have no runtime import cycle', () => {
    const everything = new Map([['*', ['*']]]);
    expect(checkDependencyRules(core, everything).filter((v) => v.rule === 'cycle')).toStrictEqual([]);
  });
});
