import { build } from 'tsup';
import type { Options } from 'tsup';
import { ensurePgliteSeeds } from './src/store/postgres/pglite-seed-build.js';
import { PROGRAM_BUNDLED, PROGRAM_DEFINE } from './src/run/program-bundle.js';

/** What both builds share. */
const common = { target: 'node20', outDir: 'dist' } as const satisfies Options;

/**
 * The program (`bin.gatehouse`, ./dist/bin.js, ESM only) with the packages it loads at every start bundled in:
 * graphql, react, prom-client, gatehouse-auth and the rest are read from a few files instead of hundreds, which
 * spares a start of `gatehouse serve` about 0.1 s of Node's module resolution and loading. The packages of
 * PROGRAM_EXTERNAL_PACKAGES stay imports of the installed packages (program-bundle.ts says why). The CommonJS packages bundled into ES modules call `require` for Node's built-ins: each chunk
 * gets one, made from its own URL.
 */
export const program: Options = {
  ...common,
  entry: { bin: 'src/run/bin.ts' },
  format: ['esm'],
  splitting: true,
  clean: false,
  config: false,
  noExternal: [PROGRAM_BUNDLED],
  // The program is what administrators run: the bundled packages take their production paths (React's production
  // server renderer, graphql's plain instanceof checks), and their development builds are left out of the bundle.
  define: PROGRAM_DEFINE,
  banner: { js: "import { createRequire as __gatehouseCreateRequire } from 'node:module';\nconst require = __gatehouseCreateRequire(import.meta.url);" },
};

const options: Options = {
  ...common,
  entry: { index: 'src/index.ts', cli: 'src/cli/main.ts' },
  format: ['esm', 'cjs'],
  // neverthrow's types are inlined, as in gatehouse-auth, so the published declarations need no `neverthrow`.
  dts: { entry: { index: 'src/index.ts', cli: 'src/cli/main.ts' }, resolve: ['neverthrow'] },
  clean: true,
  sourcemap: true,
  // neverthrow is bundled for the reason gatehouse-auth bundles it (its optional native rollup binary).
  noExternal: ['neverthrow'],
  // The library (index, cli) keeps its packages as imports, so an embedding program shares one graphql with it. The
  // program is built after it, into the same dist/ (a second tsup build here, not a second configuration: tsup runs
  // those at once, and this one's `clean` would race the other's output). The pre-initialized embedded database
  // (src/store/postgres/pglite-seed.ts) is written beside the bundles, where a first start looks for it.
  onSuccess: async () => {
    await build(program);
    await ensurePgliteSeeds('dist');
  },
};

export default options;
