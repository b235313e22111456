import type { Options } from 'tsup';

const options: Options = {
  entry: { index: 'src/index.ts', username: 'src/username.ts' },
  format: ['esm', 'cjs'],
  // neverthrow's types are inlined too, so the published declarations need no `neverthrow` package.
  dts: { resolve: ['neverthrow'] },
  clean: true,
  // No source maps: they would double what `npm install gatehouse-auth` puts in node_modules (kept under 3 MB,
  // test/package-install.test.ts), and the core's sources are short, readable modules.
  sourcemap: false,
  target: 'node20',
  // The core's third-party code besides ts-pattern, bundled: jsonc-parser, and neverthrow, whose releases with
  // iterable results (8.1 and later, which `yield*` in `safeTry` needs) declare a native rollup binary as an
  // optional dependency that npm would otherwise install with `gatehouse-auth`.
  noExternal: ['jsonc-parser', 'neverthrow'],
};

export default options;
