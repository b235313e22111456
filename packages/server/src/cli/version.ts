/**
 * The version `gatehouse --version` prints and `User-Agent` carries: the package's own (a test keeps the two equal).
 *
 * @module
 */

/**
 * The package version.
 *
 * @example
 * ```ts
 * `gatehouse/${CLI_VERSION}`; // 'gatehouse/0.2.0'
 * ```
 */
export const CLI_VERSION: string = '0.2.0';
