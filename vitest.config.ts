import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // gatehouse-server imports gatehouse-auth by its package name; in this repository that resolves, through the
    // workspace link and the `gatehouse-source` export condition, to the core's sources rather than its build.
    conditions: ['gatehouse-source', 'module', 'node', 'development|production'],
    // graphql 16 has no `exports` map: Node loads `graphql` as its CommonJS `index.js`, while Vite would pick the
    // `module` field (`index.mjs`), a second copy whose classes fail graphql-js' realm checks against the copy that
    // graphql-http (loaded by Node) uses. Resolve it as Node does, so tests run the module graph hosts run.
    alias: [{ find: /^graphql$/u, replacement: fileURLToPath(new URL('node_modules/graphql/index.js', import.meta.url)) }],
  },
  ssr: { resolve: { conditions: ['gatehouse-source', 'node', 'development|production'] } },
  test: {
    // Both packages' tests: the core's (`test/`) and gatehouse-server's (`packages/server/test/`).
    include: ['test/**/*.test.{ts,tsx}', 'packages/server/test/**/*.test.{ts,tsx}'],
    // Removes the directories each test file made with `temporaryDirectory` once its tests are done. After-hooks run
    // in reverse order of registration ('stack'), so the setup file's runs after the test file's own.
    setupFiles: ['packages/server/test/helpers/remove-temporary-directories.ts'],
    sequence: { hooks: 'stack' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
