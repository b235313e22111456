/**
 * What the Users and Service accounts pages share: the sidebar, the text and status of a refused account
 * operation, the "no such account" page, and how ids are read from a query string or a form.
 *
 * @module
 */
import { match, P } from 'ts-pattern';
import { USERNAME_MAX_LENGTH } from 'gatehouse-auth';
import type { UsernameError } from 'gatehouse-auth';
import type { AdminOperationError } from '../operations/accounts.js';
import { SITE_ADMIN_NAV } from '../pages/layout.js';
import { notFoundPage } from '../pages/not-found.js';
import type { PageContent, PageContext } from '../pages/page-routes.js';
import type { RouteResponse } from '../kernel/route.js';
import type { StoreError } from '../store/types.js';

/**
 * The site administration sidebar with `current` marked.
 *
 * @param current - The path of the sidebar entry to mark.
 * @returns The page's `nav`.
 *
 * @example
 * ```ts
 * adminNav('/site-admin/users').items === SITE_ADMIN_NAV; // true
 * ```
 */
export function adminNav(current: string): NonNullable<PageContent['nav']> {
  return { title: 'Site admin', items: SITE_ADMIN_NAV, current };
}

/** The longest id read from a query string or a form: longer ones name no record. */
const MAX_ID_LENGTH = 256;

/**
 * A non-empty id of at most 256 characters from a query string or a form, or `null`.
 *
 * @param params - The query string or the form.
 * @param name - The field.
 * @returns The id, or `null` when absent, empty or too long.
 *
 * @example
 * ```ts
 * idParam(new URLSearchParams('id=7'), 'id'); // '7'
 * ```
 */
export function idParam(params: URLSearchParams, name: string): string | null {
  const value = params.get(name);
  return value === null || value === '' || value.length > MAX_ID_LENGTH ? null : value;
}

/** What a person reads when a username breaks spec §5.5 (rule 7). */
function usernameProblemText(problem: UsernameError): string {
  return match(problem)
    .returnType<string>()
    .with({ code: 'empty_username' }, () => 'Enter a username.')
    .with({ code: 'too_long' }, () => `A username is at most ${USERNAME_MAX_LENGTH} characters long.`)
    .with({ code: 'invalid_username', reason: 'contains_at' }, () => 'A username cannot contain "@".')
    .with(
      { code: 'invalid_username', reason: 'invalid_character' },
      () => 'A username may contain only letters, digits, "-", "." and "_".',
    )
    .with({ code: 'invalid_username', reason: 'leading_separator' }, () => 'A username cannot start with "." or "-".')
    .with({ code: 'invalid_username', reason: 'consecutive_separators' }, () => 'A username cannot have "." or "-" twice in a row.')
    .with({ code: 'invalid_username', reason: 'trailing_dot' }, () => 'A username cannot end with ".".')
    .with({ code: P.union('not_a_string', 'not_a_byte_array', 'insufficient_random_bytes') }, () => 'That username is not allowed.')
    .exhaustive();
}

/** The status and text of a store refusal. */
function storeRefusal(error: StoreError): { readonly status: number; readonly text: string } {
  return match(error)
    .returnType<{ readonly status: number; readonly text: string }>()
    .with({ code: 'username_taken' }, (e) => ({ status: 409, text: `The username "${e.username}" is taken.` }))
    .with({ code: 'email_taken' }, () => ({ status: 409, text: 'That email address is verified on another account.' }))
    .with({ code: 'unknown_user' }, () => ({ status: 404, text: 'No such user: it may have been deleted.' }))
    .with({ code: P.union('unknown_access_token', 'unknown_external_account', 'unknown_oauth_app', 'unknown_oauth_consent') }, () => ({
      status: 404,
      text: 'It no longer exists: reload the page.',
    }))
    .with({ code: P.union('external_account_taken', 'duplicate_digest', 'client_id_taken') }, () => ({ status: 409, text: 'Could not save that; try again.' }))
    .exhaustive();
}

/**
 * The status and text of a refused account operation: bad input is 400, a conflict with stored state 409, a
 * missing record 404.
 *
 * @param error - Why the operation was refused.
 * @returns The status and the text a person reads.
 *
 * @example
 * ```ts
 * operationRefusal({ code: 'last_site_admin' }); // { status: 409, text: 'This is the only site administrator…' }
 * ```
 */
export function operationRefusal(error: AdminOperationError): { readonly status: number; readonly text: string } {
  return match(error)
    .returnType<{ readonly status: number; readonly text: string }>()
    .with({ code: 'invalid_username' }, (e) => ({ status: 400, text: usernameProblemText(e.problem) }))
    .with({ code: 'invalid_email' }, () => ({ status: 400, text: 'Enter an email address of the form name@example.com (at most 254 characters), or leave it empty.' }))
    .with({ code: 'last_site_admin' }, () => ({
      status: 409,
      text: 'This is the only site administrator: the site must keep one. Make another account a site administrator first.',
    }))
    .with({ code: 'undecided' }, () => ({ status: 409, text: 'The accounts changed while this was decided. Reload the page and try again.' }))
    .with({ code: 'store_refused' }, (e) => storeRefusal(e.cause))
    .exhaustive();
}

/**
 * A 404 page in the site administration shell: what was not found and a link back.
 *
 * @param ctx - The page context.
 * @param nav - The sidebar entry to mark.
 * @param text - What was not found.
 * @param back - Where the link goes and what it says.
 * @returns The response.
 *
 * @example
 * ```ts
 * return missingPage(ctx, '/site-admin/users', 'No such user.', { href: '/site-admin/users', label: 'Back to users' });
 * ```
 */
export function missingPage(
  ctx: PageContext,
  nav: string,
  text: string,
  back: { readonly href: string; readonly label: string },
): RouteResponse {
  return notFoundPage(ctx, { title: 'Not found', nav: adminNav(nav), text, back });
}
