import type { Options } from 'tsup';

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
};

export default options;
