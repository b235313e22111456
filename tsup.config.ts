import type { Options } from 'tsup';

const options: Options = {
  entry: { index: 'src/index.ts', http: 'src/http/server.ts', cli: 'src/cli/main.ts', main: 'src/http/main.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // The core's only third-party code besides neverthrow and ts-pattern: bundled, so `gatehouse` installs with
  // exactly those two runtime dependencies.
  noExternal: ['jsonc-parser'],
};

export default options;
