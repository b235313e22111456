/**
 * The last configuration reload the server refused: when, from which file, and why. The server keeps it until a
 * valid configuration applies, so the Site configuration page can say that the file on disk is not what runs.
 *
 * @module
 */

/**
 * A refused reload.
 *
 * @example
 * ```ts
 * const rejected: RejectedReload = { at: 1_700_000_000_000, file: '/etc/gatehouse/site.jsonc', problems: [{ path: 'externalURL', message: '…' }] };
 * ```
 */
export interface RejectedReload {
  /** When it was refused, milliseconds since the epoch. */
  readonly at: number;
  /** The file it was read from, or `null` when the text came from elsewhere (`gatehouse.reload(text)`). */
  readonly file: string | null;
  /** Every problem, with its JSON path. */
  readonly problems: readonly { readonly path: string; readonly message: string }[];
}
