/**
 * Who may sign in in a browser (spec §1, §5.2): a service account only ever authenticates with access tokens, so
 * it never signs in with a password or starts a browser session, whatever password hash it holds.
 *
 * @module
 */

/**
 * The facts of an account the browser rule reads.
 *
 * @example
 * ```ts
 * const account: BrowserSignInAccount = { serviceAccount: false, passwordHash: 'scrypt$…' };
 * ```
 */
export interface BrowserSignInAccount {
  /** Whether the account is a service account. */
  readonly serviceAccount: boolean;
  /** The built-in password hash, or `null` when the account has none. */
  readonly passwordHash: string | null;
}

/**
 * Whether an account may sign in with the built-in password: it has one and is not a service account.
 *
 * @param account - The account.
 * @returns `true` when a matching password signs it in.
 *
 * @example
 * ```ts
 * mayUsePassword({ serviceAccount: true, passwordHash: 'scrypt$…' }); // false
 * ```
 */
export function mayUsePassword(account: BrowserSignInAccount): boolean {
  return account.passwordHash !== null && !account.serviceAccount;
}
