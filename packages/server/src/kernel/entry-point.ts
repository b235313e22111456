/**
 * Whether a module is the program Node was asked to run, rather than a module imported by another.
 *
 * @module
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Whether the module at `moduleUrl` is the script Node runs (`process.argv[1]`), also when it is reached through a
 * symbolic link such as npm's bin link.
 *
 * @param moduleUrl - The module's `import.meta.url`.
 * @returns `true` for the program's own entry module.
 * @example
 * ```ts
 * if (isEntryPoint(import.meta.url)) void serve(process.argv.slice(2), process.env);
 * ```
 */
export function isEntryPoint(moduleUrl: string | undefined): boolean {
  const script = process.argv[1];
  if (script === undefined || typeof moduleUrl !== 'string') return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}
