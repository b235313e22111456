import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // graphql 16 has no `exports` map: Node loads `graphql` as its CommonJS `index.js`, while Vite would pick the
    // `module` field (`index.mjs`), a second copy whose classes fail graphql-js' realm checks against the copy that
    // graphql-http (loaded by Node) uses. Resolve it as Node does, so tests run the module graph hosts run.
    alias: [{ find: /^graphql$/u, replacement: fileURLToPath(new URL('node_modules/graphql/index.js', import.meta.url)) }],
  },
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
