/**
 * The package's published shape (issue 2 "Foundation", issue 5 `bin`): checked from package.json and the tsup
 * configuration, so that an edit to one without the other fails here rather than in a host's install.
 */
import { readFileSync } from 'node:fs';
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
}

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as PackageJson;
const config = (Array.isArray(tsupConfig) ? tsupConfig[0] : tsupConfig) as { entry: Readonly<Record<string, string>>; format: readonly string[] };

describe('package.json (issue 2 foundation)', () => {
  it('should be gatehouse, an ES module package for Node 20 and later', () => {
    expect([pkg.name, pkg.type, pkg.engines['node']]).toStrictEqual(['gatehouse', 'module', '>=20']);
  });

  it('should have exactly neverthrow and ts-pattern as runtime dependencies, and graphql@16 as a peer', () => {
    expect(Object.keys(pkg.dependencies).sort()).toStrictEqual(['neverthrow', 'ts-pattern']);
    expect(pkg.peerDependencies['graphql']).toMatch(/^\^16\./u);
    expect(pkg.peerDependenciesMeta?.['graphql']?.optional).not.toBe(true);
    expect(pkg.devDependencies['graphql']).toMatch(/^\^16\./u);
  });

  it('should export the core at ".", the adapter and the CLI at subpaths, each as ESM and CJS with its own types', () => {
    // `main` is the server entry (`node dist/main.js`), a program rather than a subpath
    const entries = Object.keys(config.entry).filter((name) => name !== 'main').sort();
    expect(entries).toStrictEqual(['cli', 'http', 'index']);
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
  });

  it('should install the gatehouse command from the ESM build of the CLI (issue 5)', () => {
    expect(pkg.bin).toStrictEqual({ gatehouse: './dist/cli.js' });
  });

  it('should declare every library the adapter imports as an optional peer (installed in development)', () => {
    for (const name of ['graphql-http', 'graphiql', 'react', 'react-dom', 'openid-client', '@node-saml/node-saml', 'pino', 'prom-client']) {
      expect(pkg.peerDependenciesMeta?.[name]?.optional).toBe(true);
      expect(pkg.devDependencies[name]).toBe(pkg.peerDependencies[name]);
    }
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
