import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', http: 'src/http/server.ts', cli: 'src/cli/main.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
