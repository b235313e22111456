/**
 * The exit status every `gatehouse` command gives when it failed, in a module of its own so that the program's entry
 * (run/bin.ts) can exit with it without loading the API client.
 *
 * @module
 */

/**
 * The exit status of a command that failed (src-cli's).
 *
 * @example
 * ```ts
 * process.exitCode = EXIT_FAILED; // 1
 * ```
 */
export const EXIT_FAILED = 1;
