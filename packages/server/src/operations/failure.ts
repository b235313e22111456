/**
 * How an operation's refusal is told: a sentence for the person, a stable code for clients, and the facts a
 * client may read. The GraphQL API turns one into a `GraphQLError` (extensions `code` and the facts); a page shows
 * the sentence with the HTTP status {@link failureStatus} gives.
 *
 * @module
 */
import { match } from 'ts-pattern';
import type { StoreError } from '../store/types.js';

/**
 * A refusal to report.
 *
 * @example
 * ```ts
 * const failure: OperationFailure = { message: 'No such user.', code: 'NOT_FOUND' };
 * ```
 */
export interface OperationFailure {
  /** One sentence for the person. */
  readonly message: string;
  /** The stable code clients match on (the API's `extensions.code`). */
  readonly code: string;
  /** Facts a client may read (the API's other `extensions`). */
  readonly facts?: Readonly<Record<string, string | number>>;
}

/**
 * The failure of a store refusal (a unique key taken, a row gone).
 *
 * @param error - The store's refusal.
 * @returns The failure to report.
 * @example
 * ```ts
 * storeFailure({ code: 'unknown_user' }); // { message: 'No such user.', code: 'NOT_FOUND' }
 * ```
 */
export function storeFailure(error: StoreError): OperationFailure {
  return match(error)
    .returnType<OperationFailure>()
    .with({ code: 'username_taken' }, (e) => ({ message: `The username "${e.username}" is taken.`, code: 'USERNAME_TAKEN' }))
    .with({ code: 'email_taken' }, () => ({ message: 'That email is verified on another account.', code: 'EMAIL_TAKEN' }))
    .with({ code: 'unknown_user' }, () => ({ message: 'No such user.', code: 'NOT_FOUND' }))
    .with({ code: 'unknown_access_token' }, () => ({ message: 'No such access token.', code: 'NOT_FOUND' }))
    .with({ code: 'external_account_taken' }, () => ({ message: 'That identity is linked to another account.', code: 'EXTERNAL_ACCOUNT_TAKEN' }))
    .with({ code: 'duplicate_digest' }, () => ({ message: 'Could not store the secret; try again.', code: 'INTERNAL' }))
    .with({ code: 'unknown_external_account' }, () => ({ message: 'No such linked identity.', code: 'NOT_FOUND' }))
    .with({ code: 'client_id_taken' }, () => ({ message: 'Could not store the secret; try again.', code: 'INTERNAL' }))
    .with({ code: 'unknown_oauth_app' }, () => ({ message: 'No such OAuth app.', code: 'NOT_FOUND' }))
    .with({ code: 'unknown_oauth_consent' }, () => ({ message: 'No such OAuth app approval.', code: 'NOT_FOUND' }))
    .exhaustive();
}

/**
 * The HTTP status a page answers a failure with: 403 for a refusal, 404 for what does not exist, 409 for a quota
 * or a taken name, 500 for the server's own failure, else 400.
 *
 * @param failure - The failure.
 * @returns The status.
 * @example
 * ```ts
 * failureStatus({ message: 'Only site administrators may …', code: 'FORBIDDEN' }); // 403
 * ```
 */
export function failureStatus(failure: OperationFailure): number {
  return match(failure.code)
    .returnType<number>()
    .with('FORBIDDEN', () => 403)
    .with('NOT_FOUND', () => 404)
    .with('QUOTA_EXCEEDED', 'USERNAME_TAKEN', 'EMAIL_TAKEN', 'EXTERNAL_ACCOUNT_TAKEN', () => 409)
    .with('INTERNAL', () => 500)
    .otherwise(() => 400);
}
