/**
 * The debug console's path (spec §1: `{base_url}/debug/console`), apart from the console module so that the
 * pages' sidebar can link it without loading the console.
 *
 * @module
 */

/**
 * Path of the console page.
 *
 * @example
 * ```ts
 * fetch(`${base}${CONSOLE_PATH}`);
 * ```
 */
export const CONSOLE_PATH = '/debug/console';
