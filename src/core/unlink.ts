/**
 * "Never unlink the last way to sign in" (spec §5.4 rule 4): a person may remove a linked identity from their
 * account only while another way to sign in remains.
 *
 * @module
 */
import { ok, type Result } from 'neverthrow';
import { match } from 'ts-pattern';

/** A linked identity by its coordinates (provider type, which provider, account id at the provider). */
export interface LinkedIdentity {
  /** The provider type, such as `hosta`. */
  readonly serviceType: string;
  /** Which provider of that type. */
  readonly serviceId: string;
  /** The identity's id at the provider. */
  readonly accountId: string;
}

/** What {@link countSignInMethods} and {@link decideUnlink} know of the account and the site. */
export interface SignInMethodsInput {
  /** The account's linked identities. */
  readonly links: readonly LinkedIdentity[];
  /** Whether the account has a built-in password. */
  readonly hasPassword: boolean;
  /** The types of the configured providers (`auth.providers[].type`). */
  readonly providerTypes: readonly string[];
}

/**
 * How many ways to sign in an account has: its password (when the `builtin` provider is configured) plus each
 * linked identity of a configured sign-in provider type. A `reviewhost` link is not a way to sign in (it only
 * adds credentials, §5.3 `reviewhost`).
 *
 * @param input - The account's links, whether it has a password, the configured provider types.
 * @returns The number of ways.
 * @example
 * ```ts
 * countSignInMethods({ links: [], hasPassword: true, providerTypes: ['builtin'] }); // 1
 * countSignInMethods({ links: [], hasPassword: true, providerTypes: ['hosta'] }); // 0
 * ```
 */
export function countSignInMethods(input: SignInMethodsInput): number {
  const password = input.hasPassword && input.providerTypes.includes('builtin') ? 1 : 0;
  const viaProviders = input.links.filter(
    (link) => link.serviceType !== 'builtin' && link.serviceType !== 'reviewhost' && input.providerTypes.includes(link.serviceType),
  ).length;
  return password + viaProviders;
}

/** Input of {@link decideUnlink}. */
export interface UnlinkInput extends SignInMethodsInput {
  /** The identity to remove. */
  readonly target: LinkedIdentity;
}

/** What {@link decideUnlink} says. */
export type UnlinkDecision =
  /** Remove the link. */
  | { readonly kind: 'allow' }
  /** Refuse: the account has no such link. */
  | { readonly kind: 'deny'; readonly reason: 'not_linked' }
  /** Refuse: without it the account could no longer be signed in to (§5.4 rule 4). */
  | { readonly kind: 'deny'; readonly reason: 'last_way_to_sign_in' };

/** Why {@link decideUnlink} could not decide (never: every input is decided; kept for the Result shape). */
export type UnlinkError = never;

const sameIdentity = (a: LinkedIdentity, b: LinkedIdentity): boolean =>
  a.serviceType === b.serviceType && a.serviceId === b.serviceId && a.accountId === b.accountId;

/**
 * Decides whether a linked identity may be removed (§5.4 rule 4): only one the account has, and only while at
 * least one way to sign in remains without it. The caller runs this inside the store transaction that reads the
 * links and removes the link, so two concurrent unlinks cannot remove the last two ways together.
 *
 * @param input - The account's links, password, the configured provider types and the link to remove.
 * @returns `allow`, or `deny` with the reason.
 * @example
 * ```ts
 * const hosta = { serviceType: 'hosta', serviceId: 'https://hosta.example.com', accountId: '1' };
 * decideUnlink({ links: [hosta], hasPassword: false, providerTypes: ['hosta'], target: hosta });
 * // ok({ kind: 'deny', reason: 'last_way_to_sign_in' })
 * decideUnlink({ links: [hosta], hasPassword: true, providerTypes: ['hosta', 'builtin'], target: hosta });
 * // ok({ kind: 'allow' })
 * ```
 */
export function decideUnlink(input: UnlinkInput): Result<UnlinkDecision, UnlinkError> {
  const linked = input.links.some((link) => sameIdentity(link, input.target));
  const remaining = countSignInMethods({ ...input, links: input.links.filter((link) => !sameIdentity(link, input.target)) });
  return ok(
    match([linked, remaining >= 1] as const)
      .returnType<UnlinkDecision>()
      .with([false, true], [false, false], () => ({ kind: 'deny', reason: 'not_linked' }))
      .with([true, false], () => ({ kind: 'deny', reason: 'last_way_to_sign_in' }))
      .with([true, true], () => ({ kind: 'allow' }))
      .exhaustive(),
  );
}
