/**
 * The debug console's browser assets (spec §1): GraphiQL and React's UMD builds, served from the installed
 * `graphiql`, `react` and `react-dom` packages (dependencies of gatehouse-server), found by Node's resolution.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The console's asset files: the name served under `/debug/console/assets/`, the package and file it comes from,
 * and its media type.
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
 * The absolute path of `file` inside the installed package `name`, or `null` when it is not there.
 *
 * @param name - The package.
 * @param file - The file's path inside the package.
 * @returns The path, or `null`.
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
 * The packages whose console asset files cannot be found: empty on a whole installation; a broken one (a
 * package removed by hand, a bundler that dropped the files) lists what is missing, so the console can say so.
 *
 * @param resolveFile - How a package's file is found (default: {@link resolvePackageFile}).
 * @returns The missing packages, each once.
 * @example
 * ```ts
 * missingConsolePackages(); // []
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
 * The command that restores the console's packages: they are dependencies of gatehouse-server, so reinstalling
 * it brings them back.
 *
 * @returns The command.
 * @example
 * ```ts
 * consoleInstallCommand(); // 'npm install gatehouse-server'
 * ```
 */
export function consoleInstallCommand(): string {
  return 'npm install gatehouse-server';
}
