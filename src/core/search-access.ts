/**
 * Who may run `search` (spec §2.2) and how many `search` fields one operation may hold.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { match } from 'ts-pattern';

/**
 * The default most `search` fields one GraphQL operation may select (aliases and fragment spreads included).
 * Each one walks the searched corpus, so one request of 500 aliased searches would do 500 searches.
 *
 * @example
 * ```ts
 * DEFAULT_MAX_SEARCH_FIELDS; // 5
 * ```
 */
export const DEFAULT_MAX_SEARCH_FIELDS = 5;

/** Input of {@link authorizeSearch}. */
export interface SearchAccessInput {
  /** Whether the request is from a signed-in viewer (any credential) or anonymous. */
  readonly viewer: 'user' | 'anonymous';
  /** The site configuration's `auth.public`: anonymous requests may search. */
  readonly authPublic: boolean;
}

/** The policy outcome of {@link authorizeSearch}. */
export type SearchAccessDecision =
  /** Run the search. */
  | { readonly kind: 'allow' }
  /** Refuse it: the request is anonymous and the site is not public. */
  | { readonly kind: 'deny'; readonly reason: 'sign_in_required' };

/** Why {@link authorizeSearch} could not decide. */
export type SearchAccessError =
  /** A field is missing or of the wrong type at run time. */
  { readonly code: 'invalid_input'; readonly field: 'input' | 'viewer' | 'authPublic' };

/**
 * Decides whether a request may run `search`: a signed-in viewer always may; an anonymous one only when the site
 * configuration sets `"auth.public": true`. Search results reveal what the searched code contains (a match count
 * answers "does this text occur?"), so they are for the site's users unless the administrator opts in.
 *
 * @param input - Who asks, and the site's `auth.public`.
 * @returns `ok({ kind: 'allow' })`, `ok({ kind: 'deny', reason: 'sign_in_required' })`, or `err` for malformed input.
 *
 * @example
 * ```ts
 * authorizeSearch({ viewer: 'anonymous', authPublic: false }); // ok({ kind: 'deny', reason: 'sign_in_required' })
 * authorizeSearch({ viewer: 'anonymous', authPublic: true });  // ok({ kind: 'allow' })
 * authorizeSearch({ viewer: 'user', authPublic: false });      // ok({ kind: 'allow' })
 * ```
 */
export function authorizeSearch(input: SearchAccessInput): Result<SearchAccessDecision, SearchAccessError> {
  const raw: unknown = input;
  if (typeof raw !== 'object' || raw === null) return err({ code: 'invalid_input', field: 'input' });
  const viewer: unknown = Object.getOwnPropertyDescriptor(raw, 'viewer')?.value;
  if (viewer !== 'user' && viewer !== 'anonymous') return err({ code: 'invalid_input', field: 'viewer' });
  const authPublic: unknown = Object.getOwnPropertyDescriptor(raw, 'authPublic')?.value;
  if (typeof authPublic !== 'boolean') return err({ code: 'invalid_input', field: 'authPublic' });
  return ok(
    match([viewer, authPublic] as const)
      .returnType<SearchAccessDecision>()
      .with(['user', true], ['user', false], ['anonymous', true], () => ({ kind: 'allow' }))
      .with(['anonymous', false], () => ({ kind: 'deny', reason: 'sign_in_required' }))
      .exhaustive(),
  );
}
