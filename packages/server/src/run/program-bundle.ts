/**
 * What the build of the `gatehouse` program (./dist/bin.js, tsup.config.ts) bundles. A start of `gatehouse serve`
 * loads graphql, graphql-http, react, react-dom, prom-client, ts-pattern, gatehouse-auth and the server's own modules:
 * as installed packages that is several hundred files, each resolved, read and wrapped by Node's module loader,
 * about a third of the main thread's work before the server listens. Bundled, they are a few files, and a restart
 * on the embedded database answers about 0.1 s sooner (bench/embedded.bench.ts).
 *
 * The library entries (`gatehouse-server`, `gatehouse-server/cli`) are not bundled: a program embedding the server
 * shares its graphql with it.
 *
 * @module
 */

/**
 * The packages the program imports from the installation rather than bundling: those loaded only when used (a
 * PostgreSQL server, mail, OpenID Connect, SAML), PGlite (whose WebAssembly and data files are read from beside its
 * modules), and pino (whose transports load files of their own by path).
 *
 * @example
 * ```ts
 * PROGRAM_EXTERNAL_PACKAGES.includes('pg'); // true
 * ```
 */
export const PROGRAM_EXTERNAL_PACKAGES: readonly string[] = Object.freeze([
  '@electric-sql/pglite',
  '@node-saml/node-saml',
  'nodemailer',
  'openid-client',
  'pg',
  'pino',
]);

/**
 * The imports the program's build bundles, as the pattern tsup's `noExternal` takes: every package but
 * {@link PROGRAM_EXTERNAL_PACKAGES} and their subpaths (Node's built-ins are never bundled).
 *
 * @example
 * ```ts
 * PROGRAM_BUNDLED.test('react-dom/server'); // true
 * PROGRAM_BUNDLED.test('@electric-sql/pglite/nodefs'); // false
 * ```
 */
export const PROGRAM_BUNDLED: RegExp = new RegExp(`^(?!(?:${PROGRAM_EXTERNAL_PACKAGES.map((p) => p.replace(/[/.]/gu, '\\$&')).join('|')})(?:/|$))`, 'u');

/**
 * What the program's build replaces in the bundled code (tsup's `define`): `process.env.NODE_ENV` is
 * `"production"`, so React runs its production build and graphql its production code paths whatever the environment
 * of the process that runs `gatehouse serve`, and React's development builds are not in the bundle at all. The
 * library entries keep the embedding program's choice.
 *
 * @example
 * ```ts
 * PROGRAM_DEFINE['process.env.NODE_ENV']; // '"production"'
 * ```
 */
export const PROGRAM_DEFINE: Readonly<Record<string, string>> = Object.freeze({ 'process.env.NODE_ENV': '"production"' });
