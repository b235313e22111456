/**
 * The two packages' published shape: checked from their package.json files, their tsup configurations and the
 * server's imports, so that an edit to one without the other fails here rather than in a host's install; and the
 * `gatehouse-auth/username` entry bundled as tsup bundles it, to show it pulls in neither `graphql` nor anything
 * native. test/package-install.test.ts installs the packed tarballs themselves.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import coreTsup from '../tsup.config.js';
import serverTsup, { program as serverProgramOptions } from '../packages/server/tsup.config.js';
import { readImportGraph } from '../packages/server/test/helpers/import-graph.js';
import { NODE_FLAGS } from '../packages/server/src/run/engine-flags.js';

interface PackageJson {
  readonly name: string;
  readonly version: string;
  readonly type: string;
  readonly engines: Readonly<Record<string, string>>;
  readonly workspaces?: readonly string[];
  readonly bin?: Readonly<Record<string, string>>;
  readonly files: readonly string[];
  readonly exports: Readonly<Record<string, unknown>>;
  readonly scripts: Readonly<Record<string, string>>;
  readonly dependencies: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
  readonly typesVersions: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
}

interface TsupShape {
  readonly entry: Readonly<Record<string, string>>;
  readonly format: readonly string[];
  readonly noExternal: readonly string[];
  readonly dts: { readonly entry?: Readonly<Record<string, string>>; readonly resolve: readonly string[] };
}

const at = (path: string): string => fileURLToPath(new URL(path, import.meta.url));
const readJson = <T>(path: string): T => JSON.parse(readFileSync(at(path), 'utf8')) as T;
const core = readJson<PackageJson>('../package.json');
const server = readJson<PackageJson>('../packages/server/package.json');
const coreConfig = (Array.isArray(coreTsup) ? coreTsup[0] : coreTsup) as TsupShape;
const serverConfig = (Array.isArray(serverTsup) ? serverTsup[0] : serverTsup) as TsupShape;
const root = at('..');
const readManifest = (name: string): Readonly<Record<string, unknown>> => readJson(`../node_modules/${name}/package.json`);

/** The conditional export of a built entry: ESM and CJS, each with its own declarations. */
const builtEntry = (name: string): unknown => ({
  import: { types: `./dist/${name}.d.ts`, default: `./dist/${name}.js` },
  require: { types: `./dist/${name}.d.cts`, default: `./dist/${name}.cjs` },
});

describe('both packages', () => {
  it('should be gatehouse-auth at the root and gatehouse-server in packages/server, npm workspaces, at one version, ES modules for Node 20 and later', () => {
    expect([core.name, server.name]).toStrictEqual(['gatehouse-auth', 'gatehouse-server']);
    expect(core.workspaces).toStrictEqual(['.', 'packages/server']);
    for (const pkg of [core, server]) expect([pkg.version, pkg.type, pkg.engines['node']]).toStrictEqual(['0.2.0', 'module', '>=20']);
  });

  it('should build each with tsup before packing, and build both with npm run build', () => {
    expect([core.scripts['prepack'], server.scripts['prepack'], server.scripts['build']]).toStrictEqual(['tsup', 'tsup', 'tsup']);
    expect(core.scripts['build']).toBe('tsup && npm run build -w gatehouse-server');
  });

  it("should start in development with one node process that receives the signals, on the core's sources", () => {
    // exec: no shell left between npm and node; the condition resolves gatehouse-auth to src/ (docs/architecture.md);
    // the node flags the built bin's shebang gives (packages/server/src/run/engine-flags.ts)
    expect(core.scripts['start']).toBe(`exec node ${NODE_FLAGS.join(' ')} --conditions=gatehouse-source --import tsx packages/server/src/run/main.ts`);
    expect(core.scripts['test']).toBe('npm run typecheck && vitest run');
  });
});

describe('gatehouse-auth (the core)', () => {
  it("should export the core at '.' and username normalization at './username', the sources first in the repository", () => {
    expect(Object.keys(core.exports)).toStrictEqual(['.', './username', './package.json']);
    for (const [subpath, name, source] of [['.', 'index', './src/index.ts'], ['./username', 'username', './src/username.ts']] as const) {
      const entry = core.exports[subpath] as Readonly<Record<string, unknown>>;
      // Node picks the first condition it knows: `gatehouse-source` must come before import and require
      expect(Object.keys(entry)).toStrictEqual(['gatehouse-source', 'import', 'require']);
      expect(entry).toStrictEqual({ 'gatehouse-source': source, ...(builtEntry(name) as object) });
      expect(coreConfig.entry[name]).toBe(source.slice(2));
    }
    expect(Object.keys(coreConfig.entry).sort()).toStrictEqual(['index', 'username']);
    expect([...coreConfig.format].sort()).toStrictEqual(['cjs', 'esm']);
    // TypeScript without `exports` support (moduleResolution node10) finds the subpath's types here.
    expect(core.typesVersions['*']).toStrictEqual({ username: ['./dist/username.d.ts'] });
    expect(core.files).toStrictEqual(['dist', 'README.md']);
  });

  it('should have ts-pattern as its one runtime dependency, with neverthrow and jsonc-parser bundled (code and types)', () => {
    expect(core.dependencies).toStrictEqual({ 'ts-pattern': expect.stringMatching(/^\^5\./u) as unknown });
    expect([...coreConfig.noExternal].sort()).toStrictEqual(['jsonc-parser', 'neverthrow']);
    expect(coreConfig.dts.resolve).toStrictEqual(['neverthrow']);
    expect(core.devDependencies?.['neverthrow']).toMatch(/^\^8\./u);
  });

  it('should declare graphql@16 as its one peer, optional so that gatehouse-auth/username installs without it', () => {
    expect(core.peerDependencies).toStrictEqual({ graphql: expect.stringMatching(/^\^16\./u) as unknown });
    expect(core.peerDependenciesMeta).toStrictEqual({ graphql: { optional: true } });
    expect(core.devDependencies?.['graphql']).toMatch(/^\^16\./u);
  });

  it('should import, from its sources, only its dependency, its peer and what it bundles', () => {
    const imported = new Set(readImportGraph(at('../src')).filter((e) => !e.to.endsWith('.ts')).map((e) => e.to));
    expect([...imported].sort()).toStrictEqual(['graphql', 'jsonc-parser', 'neverthrow', 'ts-pattern']);
  });

  it('should install nothing native: its dependency has no dependencies, optional dependencies or install scripts of its own', () => {
    // neverthrow 8.1 and later declare `@rollup/rollup-linux-x64-gnu` as an optional dependency: that is why it is bundled.
    expect(readManifest('neverthrow')['optionalDependencies']).toBeDefined();
    for (const name of Object.keys(core.dependencies)) {
      const manifest = readManifest(name);
      const scripts = (manifest['scripts'] ?? {}) as Readonly<Record<string, string>>;
      const installScripts = ['preinstall', 'install', 'postinstall'].filter((script) => script in scripts);
      expect([name, manifest['dependencies'], manifest['optionalDependencies'], installScripts]).toStrictEqual([name, undefined, undefined, []]);
    }
  });
});

describe('gatehouse-server', () => {
  /** Every package gatehouse-server's sources import (types included: its declarations name them), by package name. */
  const imported = (): readonly string[] => {
    const packageOf = (specifier: string): string => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
    const bare = readImportGraph(at('../packages/server/src'))
      .map((e) => e.to)
      .filter((to) => !to.endsWith('.ts') && !to.endsWith('.tsx') && !to.startsWith('node:') && !to.startsWith('.'));
    return [...new Set(bare.map(packageOf))].sort();
  };

  it("should export the embedder's API at '.' and the command line client at './cli', and install the gatehouse command", () => {
    expect(Object.keys(server.exports)).toStrictEqual(['.', './cli', './package.json']);
    expect([server.exports['.'], server.exports['./cli']]).toStrictEqual([builtEntry('index'), builtEntry('cli')]);
    expect(serverConfig.entry).toStrictEqual({ index: 'src/index.ts', cli: 'src/cli/main.ts' });
    // the program is a second build, ESM only, with the packages it loads at every start bundled (program-bundle.ts)
    expect([serverProgramOptions.entry, serverProgramOptions.format]).toStrictEqual([{ bin: 'src/run/bin.ts' }, ['esm']]);
    expect(serverConfig.dts.entry).toStrictEqual({ index: 'src/index.ts', cli: 'src/cli/main.ts' });
    expect(serverConfig.format).toContain('esm');
    expect(server.bin).toStrictEqual({ gatehouse: './dist/bin.js' });
    expect(server.typesVersions['*']).toStrictEqual({ cli: ['./dist/cli.d.ts'] });
  });

  it('should pack its build, the default site configuration of gatehouse serve, the deployment recipe and its README', () => {
    expect(server.files).toStrictEqual(['dist', 'examples', 'README.md']);
    for (const file of ['site-config.jsonc', 'gatehouse.service', 'nginx.conf']) expect(existsSync(at(`../packages/server/examples/${file}`)), file).toBe(true);
    expect(readFileSync(at('../packages/server/examples/site-config.jsonc'), 'utf8')).toContain('auth.providers');
    expect(readFileSync(at('../packages/server/README.md'), 'utf8')).toContain('npm install gatehouse-server');
  });

  it('should depend on gatehouse-auth at its exact version, and declare no peers', () => {
    expect(server.dependencies['gatehouse-auth']).toBe(core.version);
    expect([server.peerDependencies, server.peerDependenciesMeta]).toStrictEqual([undefined, undefined]);
  });

  it('should depend on every package its sources import (neverthrow bundled) and the console serves, and on nothing else', async () => {
    const { CONSOLE_ASSET_FILES } = await import('../packages/server/src/console/assets.js');
    // JSX compiles to imports of react/jsx-runtime; the console's assets are read from the installed packages
    const needed = new Set([...imported().filter((name) => !serverConfig.noExternal.includes(name)), 'react', ...CONSOLE_ASSET_FILES.map((a) => a.package)]);
    expect(serverConfig.noExternal).toStrictEqual(['neverthrow']);
    expect(Object.keys(server.dependencies).sort()).toStrictEqual([...needed].sort());
    // what the check reads: the imports of the stores, the API, the providers and the core
    expect(imported()).toEqual(expect.arrayContaining(['@electric-sql/pglite', 'pg', 'graphql', 'graphql-http', 'gatehouse-auth', 'neverthrow', 'pino', 'prom-client']));
  });

  it('should name the declared version of pg in its install command', async () => {
    const { PG_INSTALL_COMMAND } = await import('../packages/server/src/store/open.js');
    expect(PG_INSTALL_COMMAND).toBe(`npm install pg@${server.dependencies['pg'] ?? ''}`);
  });
});

describe('gatehouse-auth/username', () => {
  const bundle = async (format: 'esm' | 'cjs') => {
    // As tsup bundles the entry: every dependency and peer external except what tsup.config.ts bundles.
    const external = [...Object.keys(core.dependencies), ...Object.keys(core.peerDependencies ?? {})].filter((name) => !coreConfig.noExternal.includes(name));
    const result = await build({
      absWorkingDir: root,
      entryPoints: [coreConfig.entry['username'] ?? ''],
      bundle: true,
      write: false,
      metafile: true,
      format,
      platform: 'node',
      target: 'node20',
      external,
      logLevel: 'silent',
    });
    return { inputs: Object.keys(result.metafile.inputs), outputs: Object.values(result.metafile.outputs), text: result.outputFiles.map((f) => f.text).join('\n') };
  };

  it.each(['esm', 'cjs'] as const)('should import neither graphql nor ts-pattern nor any node: module or native addon (%s build)', async (format) => {
    const { inputs, outputs, text } = await bundle(format);
    expect(outputs.flatMap((o) => o.imports)).toStrictEqual([]);
    expect(inputs.filter((path) => path.includes('node_modules/')).every((path) => path.startsWith('node_modules/neverthrow/'))).toBe(true);
    expect(inputs.some((path) => path.endsWith('.node'))).toBe(false);
    expect(text).not.toMatch(/require\(["']graphql|from ["']graphql|import\(["']graphql/u);
  });

  it('should bundle into a file that normalizes a username (spec §5.5 rule 2)', async () => {
    const { text } = await bundle('cjs');
    const module = { exports: {} as Record<string, unknown> };
    new Function('module', 'exports', text)(module, module.exports);
    const normalize = module.exports['normalizeUsername'] as (name: string) => { isOk(): boolean; value: string };
    expect(normalize('alice@example.com').value).toBe('alice');
  });
});
