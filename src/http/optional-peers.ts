/**
 * The adapter's optional peer packages: `openid-client` (an `openidconnect` provider), `@node-saml/node-saml`
 * (a `saml` provider), `pg` (a store on a PostgreSQL server, `DATABASE_URL`), and `graphiql`, `react`, `react-dom`
 * (the debug console's browser assets, spec §1). Each
 * is loaded only when the configuration needs it, so a host without them can import `gatehouse/http`; and
 * {@link checkOptionalPeers} says at start which one is missing and how to install it, rather than a sign-in
 * failing later or the console staying a blank page.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as NodeSaml from '@node-saml/node-saml';
import type * as OpenIdClient from 'openid-client';
import type { SiteConfiguration } from '../core/site-configuration.js';

/**
 * A peer package the configuration needs but the installation lacks.
 *
 * @example
 * ```ts
 * const problem: OptionalPeerProblem = {
 *   code: 'missing_peer', package: 'openid-client', neededFor: 'openidconnect', fatal: true,
 *   message: 'openid-client is not installed, and the site configuration has an openidconnect provider: npm install openid-client@^6.8.9',
 * };
 * ```
 */
export interface OptionalPeerProblem {
  /** Always `missing_peer`. */
  readonly code: 'missing_peer';
  /** The npm package to install. */
  readonly package: string;
  /** What needs it: a provider type of `auth.providers`, or the debug console. */
  readonly neededFor: 'openidconnect' | 'saml' | 'console';
  /**
   * Whether the server cannot serve its configuration without it (a provider's sign-in); the console is not
   * fatal: the API works without it and `/debug/console` says what to install.
   */
  readonly fatal: boolean;
  /** One line for the administrator, naming the package and the `npm install` command. */
  readonly message: string;
}

/**
 * How {@link checkOptionalPeers} finds packages; both default to Node's own resolution from this module.
 *
 * @example
 * ```ts
 * // a test pretending openid-client is not installed
 * const options: OptionalPeerCheckOptions = {
 *   load: (name) => (name === 'openid-client' ? Promise.reject(new Error('Cannot find package')) : import(name)),
 * };
 * ```
 */
export interface OptionalPeerCheckOptions {
  /** Loads a package by name (default: dynamic `import()`). */
  readonly load?: (specifier: string) => Promise<unknown>;
  /** The absolute path of `file` inside package `name`, or `null` when it is not installed (default: Node's resolution). */
  readonly resolveFile?: (name: string, file: string) => string | null;
}

/** The versions of the optional peers, as `package.json` declares them. */
const PEER_RANGES: Readonly<Record<string, string>> = {
  'openid-client': '^6.8.9',
  '@node-saml/node-saml': '^5.1.0',
  graphiql: '^3.8.3',
  react: '^18.3.1',
  'react-dom': '^18.3.1',
  pg: '^8.23.1',
};

/**
 * The command that installs an optional peer at the version `package.json` declares.
 *
 * @param name - The package.
 * @returns `npm install <name>@<range>`.
 *
 * @example
 * ```ts
 * peerInstallCommand('pg'); // 'npm install pg@^8.23.1'
 * ```
 */
export function peerInstallCommand(name: string): string {
  return `npm install ${name}@${PEER_RANGES[name] ?? 'latest'}`;
}

/**
 * The files of the debug console's browser assets (GraphiQL 3 and the UMD builds of React 18, which React 19
 * no longer ships), by package.
 *
 * @example
 * ```ts
 * CONSOLE_ASSET_FILES.map((a) => a.package); // ['react', 'react-dom', 'graphiql', 'graphiql']
 * ```
 */
export const CONSOLE_ASSET_FILES: readonly { readonly name: string; readonly package: string; readonly file: string; readonly type: string }[] = [
  { name: 'react.production.min.js', package: 'react', file: 'umd/react.production.min.js', type: 'text/javascript; charset=utf-8' },
  { name: 'react-dom.production.min.js', package: 'react-dom', file: 'umd/react-dom.production.min.js', type: 'text/javascript; charset=utf-8' },
  { name: 'graphiql.min.js', package: 'graphiql', file: 'graphiql.min.js', type: 'text/javascript; charset=utf-8' },
  { name: 'graphiql.min.css', package: 'graphiql', file: 'graphiql.min.css', type: 'text/css; charset=utf-8' },
];

// In the CommonJS build `import.meta.url` is empty; `__filename` is defined there instead.
const moduleLocation: string =
  typeof import.meta.url === 'string' && import.meta.url !== ''
    ? import.meta.url
    : typeof __filename === 'string'
      ? __filename
      : join(process.cwd(), 'index.js');
const requireHere = createRequire(moduleLocation);

/**
 * Node's resolution of a file inside an installed package, or `null` when the package or the file is absent.
 *
 * @param name - The package.
 * @param file - A path inside it.
 * @returns The absolute path, or `null`.
 *
 * @example
 * ```ts
 * resolvePackageFile('graphiql', 'graphiql.min.js'); // '/…/node_modules/graphiql/graphiql.min.js'
 * ```
 */
export function resolvePackageFile(name: string, file: string): string | null {
  try {
    const path = join(dirname(requireHere.resolve(`${name}/package.json`)), file);
    return existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

/**
 * The console's missing asset packages (empty when the console can be served).
 *
 * @param resolveFile - How files are found (default {@link resolvePackageFile}).
 * @returns The names of the packages whose asset file is missing, each once.
 *
 * @example
 * ```ts
 * missingConsolePackages(); // [] when graphiql, react@18 and react-dom@18 are installed
 * ```
 */
export function missingConsolePackages(resolveFile: (name: string, file: string) => string | null = resolvePackageFile): readonly string[] {
  const missing: string[] = [];
  for (const asset of CONSOLE_ASSET_FILES) {
    if (!missing.includes(asset.package) && resolveFile(asset.package, asset.file) === null) missing.push(asset.package);
  }
  return missing;
}

/**
 * The command that installs the console's packages.
 *
 * @returns `npm install graphiql@… react@… react-dom@…`.
 *
 * @example
 * ```ts
 * consoleInstallCommand(); // 'npm install graphiql@^3.8.3 react@^18.3.1 react-dom@^18.3.1'
 * ```
 */
export function consoleInstallCommand(): string {
  return `npm install ${['graphiql', 'react', 'react-dom'].map((p) => `${p}@${PEER_RANGES[p] ?? 'latest'}`).join(' ')}`;
}

/**
 * Checks that every optional peer the configuration needs is installed: `openid-client` for an `openidconnect`
 * provider and `@node-saml/node-saml` for a `saml` provider (each loaded, as sign-in will load it), and the
 * debug console's asset files. Packages the configuration does not need are not touched.
 *
 * @param configuration - The parsed site configuration.
 * @param options - How packages are loaded and files found (for tests; Node's own by default).
 * @returns Every missing peer (empty when all are there).
 *
 * @example
 * ```ts
 * const problems = await checkOptionalPeers(configuration);
 * for (const p of problems) console.error(p.message);
 * if (problems.some((p) => p.fatal)) process.exit(2);
 * ```
 */
export async function checkOptionalPeers(
  configuration: SiteConfiguration,
  options: OptionalPeerCheckOptions = {},
): Promise<readonly OptionalPeerProblem[]> {
  const load = options.load ?? ((specifier: string): Promise<unknown> => import(specifier));
  const problems: OptionalPeerProblem[] = [];
  const needs: readonly { readonly type: 'openidconnect' | 'saml'; readonly package: string }[] = [
    { type: 'openidconnect', package: 'openid-client' },
    { type: 'saml', package: '@node-saml/node-saml' },
  ];
  for (const need of needs) {
    if (!configuration.authProviders.some((p) => p.type === need.type)) continue;
    const loaded = await load(need.package).then(
      () => true,
      () => false,
    );
    if (!loaded) {
      problems.push({
        code: 'missing_peer',
        package: need.package,
        neededFor: need.type,
        fatal: true,
        message: `${need.package} is not installed, and the site configuration has ${need.type === 'openidconnect' ? 'an' : 'a'} ${need.type} provider: npm install ${need.package}@${PEER_RANGES[need.package] ?? 'latest'}`,
      });
    }
  }
  for (const name of missingConsolePackages(options.resolveFile)) {
    problems.push({
      code: 'missing_peer',
      package: name,
      neededFor: 'console',
      fatal: false,
      message: `the debug console needs ${name}${name === 'graphiql' ? '' : '@18 (its UMD build)'}, which is not installed; /debug/console says so until it is: ${consoleInstallCommand()}`,
    });
  }
  return problems;
}

let openIdClient: Promise<typeof OpenIdClient> | null = null;
let nodeSaml: Promise<typeof NodeSaml> | null = null;

/**
 * Loads `openid-client` on first use (an `openidconnect` provider's first sign-in), once.
 *
 * @returns The module; rejects when it is not installed.
 *
 * @example
 * ```ts
 * const client = await loadOpenIdClient();
 * ```
 */
export function loadOpenIdClient(): Promise<typeof OpenIdClient> {
  openIdClient ??= import('openid-client');
  return openIdClient;
}

/**
 * Loads `@node-saml/node-saml` on first use (a `saml` provider's first sign-in), once.
 *
 * @returns The module; rejects when it is not installed.
 *
 * @example
 * ```ts
 * const { SAML } = await loadNodeSaml();
 * ```
 */
export function loadNodeSaml(): Promise<typeof NodeSaml> {
  nodeSaml ??= import('@node-saml/node-saml');
  return nodeSaml;
}
