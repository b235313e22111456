import { rm } from 'node:fs/promises';
import type { Options } from 'tsup';
import { ensurePgliteSeed } from './src/store/postgres/pglite-seed.js';

const options: Options = {
  entry: { index: 'src/index.ts', cli: 'src/cli/main.ts', bin: 'src/run/bin.ts' },
  format: ['esm', 'cjs'],
  // neverthrow's types are inlined, as in gatehouse-auth, so the published declarations need no `neverthrow`.
  dts: { entry: { index: 'src/index.ts', cli: 'src/cli/main.ts' }, resolve: ['neverthrow'] },
  clean: true,
  sourcemap: true,
  target: 'node20',
  // neverthrow is bundled for the reason gatehouse-auth bundles it (its optional native rollup binary).
  noExternal: ['neverthrow'],
  // The bin is ESM only (`bin.gatehouse` is ./dist/bin.js, and it reads import.meta.url); tsup builds every entry in
  // every format, so its CommonJS copy is removed rather than shipped. `outDir` (dist) is relative to this package.
  // The pre-initialized embedded database (src/store/postgres/pglite-seed.ts) is written beside the bundles, where a
  // first start looks for it.
  onSuccess: async () => {
    await Promise.all(['dist/bin.cjs', 'dist/bin.cjs.map'].map((file) => rm(file, { force: true })));
    await ensurePgliteSeed('dist');
  },
};

export default options;
