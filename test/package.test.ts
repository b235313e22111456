/**
 * The package's published shape: checked from package.json and the tsup configuration, so that an edit to one
 * without the other fails here rather than in a host's install; and the `gatehouse-auth/username` entry bundled
 * as tsup bundles it, to show it pulls in neither `graphql` nor anything native.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import tsupConfig from '../tsup.config.js';

interface PackageJson {
  readonly name: string;
  readonly type: string;
  readonly engines: Readonly<Record<string, string>>;
  readonly bin: Readonly<Record<string, string>>;
  readonly exports: Readonly<Record<string, unknown>>;
  readonly dependencies: Readonly<Record<string, string>>;
  readonly peerDependencies: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
  readonly devDependencies: Readonly<Record<string, string>>;
  readonly typesVersions: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
}

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as PackageJson;
const config = (Array.isArray(tsupConfig) ? tsupConfig[0] : tsupConfig) as {
  entry: Readonly<Record<string, string>>;
  format: readonly string[];
  noExternal: readonly string[];
  dts: { resolve: readonly string[] };
};
const root = fileURLToPath(new URL('..', import.meta.url));
const readManifest = (name: string): Readonly<Record<string, unknown>> =>
  JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as Readonly<Record<string, unknown>>;

describe('package.json', () => {
  it('should be gatehouse-auth (the npm name gatehouse is another package), an ES module package for Node 20 and later', () => {
    expect([pkg.name, pkg.type, pkg.engines['node']]).toStrictEqual(['gatehouse-auth', 'module', '>=20']);
  });

  it('should have ts-pattern and the embedded database PGlite as its runtime dependencies, with neverthrow and jsonc-parser bundled (code and types)', () => {
    expect(Object.keys(pkg.dependencies)).toStrictEqual(['@electric-sql/pglite', 'ts-pattern']);
    expect([...config.noExternal].sort()).toStrictEqual(['jsonc-parser', 'neverthrow']);
    expect(config.dts.resolve).toStrictEqual(['neverthrow']);
    expect(pkg.devDependencies['neverthrow']).toMatch(/^\^8\./u);
  });

  it('should install nothing native: no runtime dependency has dependencies, optional dependencies or install scripts of its own (PGlite is WebAssembly)', () => {
    // neverthrow 8.1 and later declare `@rollup/rollup-linux-x64-gnu` as an optional dependency: that is why it is bundled.
    expect(readManifest('neverthrow')['optionalDependencies']).toBeDefined();
    for (const name of Object.keys(pkg.dependencies)) {
      const manifest = readManifest(name);
      const scripts = (manifest['scripts'] ?? {}) as Readonly<Record<string, string>>;
      const installScripts = ['preinstall', 'install', 'postinstall'].filter((script) => script in scripts);
      expect([name, manifest['dependencies'], manifest['optionalDependencies'], installScripts]).toStrictEqual([name, undefined, undefined, []]);
    }
  });

  it('should declare graphql@16 as a peer the core needs, optional so that gatehouse-auth/username installs without it', () => {
    expect(pkg.peerDependencies['graphql']).toMatch(/^\^16\./u);
    expect(pkg.peerDependenciesMeta?.['graphql']?.optional).toBe(true);
    expect(pkg.devDependencies['graphql']).toMatch(/^\^16\./u);
  });

  it('should export the core at ".", the adapter, the CLI and username normalization at subpaths, each as ESM and CJS with its own types', () => {
    // `main` is the server entry (`node dist/main.js`), a program rather than a subpath
    const entries = Object.keys(config.entry).filter((name) => name !== 'main').sort();
    expect(entries).toStrictEqual(['cli', 'http', 'index', 'username']);
    expect(config.entry['main']).toBe('src/http/main.ts');
    expect([...config.format].sort()).toStrictEqual(['cjs', 'esm']);
    for (const name of entries) {
      const subpath = name === 'index' ? '.' : `./${name}`;
      expect(pkg.exports[subpath]).toStrictEqual({
        import: { types: `./dist/${name}.d.ts`, default: `./dist/${name}.js` },
        require: { types: `./dist/${name}.d.cts`, default: `./dist/${name}.cjs` },
      });
    }
    expect(config.entry['index']).toBe('src/index.ts');
    expect(config.entry['http']).toBe('src/http/server.ts');
    expect(config.entry['cli']).toBe('src/cli/main.ts');
    expect(config.entry['username']).toBe('src/username.ts');
    // TypeScript without `exports` support (moduleResolution node10) finds each subpath's types here.
    expect(pkg.typesVersions['*']).toStrictEqual(Object.fromEntries(entries.filter((e) => e !== 'index').map((e) => [e, [`./dist/${e}.d.ts`]])));
  });

  it('should install the gatehouse command from the ESM build of the CLI', () => {
    expect(pkg.bin).toStrictEqual({ gatehouse: './dist/cli.js' });
  });

  it('should declare every library the adapter imports as an optional peer (installed in development)', () => {
    for (const name of ['graphql-http', 'graphiql', 'react', 'react-dom', 'openid-client', '@node-saml/node-saml', 'pino', 'prom-client', 'pg']) {
      expect(pkg.peerDependenciesMeta?.[name]?.optional).toBe(true);
      expect(pkg.devDependencies[name]).toBe(pkg.peerDependencies[name]);
    }
  });
});

describe('gatehouse-auth/username', () => {
  const bundle = async (format: 'esm' | 'cjs') => {
    // As tsup bundles the entry: every dependency and peer external except what tsup.config.ts bundles.
    const external = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)].filter((name) => !config.noExternal.includes(name));
    const result = await build({
      absWorkingDir: root,
      entryPoints: [config.entry['username'] ?? ''],
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

describe('production start scripts', () => {
  const scripts = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts;

  it('should start in development with one node process that receives the signals (exec: no shell left between npm and node)', () => {
    expect(scripts['start']).toBe('exec node --import tsx src/http/main.ts');
  });

  it('should build dist/ before packing, so the tarball always has the server entry', () => {
    expect(scripts['prepack']).toBe('npm run build');
  });
});
