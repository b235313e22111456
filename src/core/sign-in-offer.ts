/**
 * Which providers the sign-in page offers, in which order: the `auth.providers` entries' `order`, `hidden` and
 * `noSignIn` (as in the service the spec describes). A `hidden` provider is left off the sign-in page but still
 * signs people in by its direct address; a `noSignIn` provider is left off and refuses sign-in, but can still be
 * linked to an account from Account security.
 *
 * @module
 */
import type { AuthProvider } from './auth-providers.js';

/**
 * The presentation fields every `auth.providers` entry may have.
 *
 * @example
 * ```ts
 * const fields: ProviderSignInFields = { order: 1, hidden: false, noSignIn: false };
 * ```
 */
export interface ProviderSignInFields {
  /** Left off the sign-in page; signing in by the provider's address still works. Default `false`. */
  readonly hidden?: boolean;
  /** The place on the sign-in page, ascending; entries without one follow, in configuration order. */
  readonly order?: number;
  /** Not offered for sign-in and refusing it; the provider only links identities to signed-in accounts. Default `false`. */
  readonly noSignIn?: boolean;
}

/**
 * One provider offered on the sign-in page, with its index in `auth.providers`.
 *
 * @example
 * ```ts
 * const offered: OfferedProvider = { index: 0, provider: { type: 'builtin', allowSignup: false } };
 * ```
 */
export interface OfferedProvider {
  /** The entry's index in `auth.providers`. */
  readonly index: number;
  /** The entry. */
  readonly provider: AuthProvider;
}

/**
 * The providers the sign-in page offers: every entry that is neither `hidden` nor `noSignIn`, sorted by `order`
 * ascending (entries without `order` after those with one; ties keep configuration order). Never throws.
 *
 * @param providers - The parsed `auth.providers`.
 * @returns The entries to show, in order.
 *
 * @example
 * ```ts
 * signInOffer([{ type: 'builtin', allowSignup: false, order: 2 }, { type: 'hostb', …, order: 1 }]).map((o) => o.index); // [1, 0]
 * ```
 */
export function signInOffer(providers: readonly AuthProvider[]): readonly OfferedProvider[] {
  const shown = providers.map((provider, index) => ({ index, provider })).filter(({ provider }) => provider.hidden !== true && provider.noSignIn !== true);
  const rank = (o: OfferedProvider): number => (typeof o.provider.order === 'number' && Number.isFinite(o.provider.order) ? o.provider.order : Number.POSITIVE_INFINITY);
  return shown.sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    return ra === rb ? a.index - b.index : ra < rb ? -1 : 1;
  });
}

/**
 * Whether a provider may sign people in (not `noSignIn`). `hidden` does not matter: it only leaves the sign-in
 * page.
 *
 * @param provider - One parsed entry.
 * @returns `false` for a `noSignIn` provider.
 *
 * @example
 * ```ts
 * providerSignsIn({ type: 'builtin', allowSignup: false, noSignIn: true }); // false
 * ```
 */
export function providerSignsIn(provider: AuthProvider): boolean {
  return provider.noSignIn !== true;
}
