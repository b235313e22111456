/**
 * The sign-in check of the site administrators (Site admin → Sign-in check, and the GraphQL query
 * `explainSignIn`): a configured provider, an identity as that provider would describe it (for `http-header`, the
 * proxy's headers), and the account the check is made from; the answer is the core's explanation against the
 * store, read-only, with the account it lands in or the username it would create (§5.5).
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import {
  identityFromProxyHeaders,
  signInRefusalReason,
  usernameKey,
  type AuthProvider,
  type ExternalIdentity,
  type SignInExplanation,
} from 'gatehouse-auth';
import type { AccountStore } from '../store/types.js';
import { explainSignInInStore, type ExplainStore } from './explain-sign-in.js';

/** The most entries of each list of an identity (emails, orgs, teams, groups, headers) a check accepts. */
export const MAX_CHECK_LIST_LENGTH = 200;

/** The longest text of one field of a check. */
export const MAX_CHECK_TEXT_LENGTH = 500;

/**
 * What a site administrator asks: which provider, and the identity as that provider would describe it.
 *
 * @example
 * ```ts
 * const request: SignInCheckRequest = {
 *   provider: 'hosta', username: 'octo', emails: [{ address: 'octo@example.com', verified: true }],
 *   orgs: ['acme'], teams: [{ org: 'acme', name: 'Core Team' }],
 * };
 * ```
 */
export interface SignInCheckRequest {
  /** The provider: its `displayName`, else its type when one provider has it, else its position in `auth.providers` (from 0). */
  readonly provider: string;
  /** The provider's id of the account; defaults to the username, else the first email, else `check`. */
  readonly accountId?: string | null;
  /** The provider-side username. */
  readonly username?: string | null;
  /** The emails, primary first, with whether the provider verified each. */
  readonly emails?: readonly { readonly address: string; readonly verified: boolean }[] | null;
  /** `hosta`: the organisations. */
  readonly orgs?: readonly string[] | null;
  /** `hosta`: the teams (display names). */
  readonly teams?: readonly { readonly org: string; readonly name: string }[] | null;
  /** `hostb`: the group memberships with their access levels. */
  readonly groups?: readonly { readonly fullPath: string; readonly accessLevel: number }[] | null;
  /** `false` when the membership lists are known to be cut short. Default `true`. */
  readonly membershipComplete?: boolean | null;
  /** `http-header`: the proxy's headers (the identity is read from them as a real request's would be). */
  readonly headers?: readonly { readonly name: string; readonly value: string }[] | null;
  /** The username of the account signed in when the identity arrives (the identity is added to it), or none. */
  readonly signedInUsername?: string | null;
}

/**
 * The answer of a check.
 *
 * @example
 * ```ts
 * const result: SignInCheckResult = { providerIndex: 0, identity, explanation, account: null, refusalReason: null };
 * ```
 */
export interface SignInCheckResult {
  /** The provider's position in `auth.providers`. */
  readonly providerIndex: number;
  /** The identity the check used. */
  readonly identity: ExternalIdentity;
  /** The decision and its trace. */
  readonly explanation: SignInExplanation;
  /** The existing account a `sign_in` lands in. */
  readonly account: { readonly id: string; readonly username: string; readonly serviceAccount: boolean } | null;
  /** The sentence a refused person would be shown, or `null`. */
  readonly refusalReason: string | null;
}

/**
 * Why a check could not be made: a sentence for the administrator, and a code.
 *
 * @example
 * ```ts
 * const p: SignInCheckProblem = { code: 'unknown_provider', message: 'No provider is called "github".' };
 * ```
 */
export interface SignInCheckProblem {
  /** `unknown_provider`, `unknown_signed_in_user`, `invalid_identity` or `too_long`. */
  readonly code: 'unknown_provider' | 'unknown_signed_in_user' | 'invalid_identity' | 'too_long';
  /** What is wrong, for the administrator. */
  readonly message: string;
}

/**
 * The provider a check names: by `displayName`, else by type when exactly one provider has it, else by position.
 *
 * @param providers - `auth.providers`.
 * @param name - The name given.
 * @returns The position, or `null`.
 * @example
 * ```ts
 * findCheckProvider([{ type: 'builtin', allowSignup: false }], 'builtin'); // 0
 * ```
 */
export function findCheckProvider(providers: readonly AuthProvider[], name: string): number | null {
  const byName = providers.findIndex((p) => p.displayName === name);
  if (byName >= 0) return byName;
  const ofType = providers.flatMap((p, i) => (p.type === name ? [i] : []));
  if (ofType.length === 1) return ofType[0] ?? null;
  if (/^(0|[1-9][0-9]{0,3})$/u.test(name)) {
    const index = Number(name);
    return index < providers.length ? index : null;
  }
  return null;
}

function tooLong(request: SignInCheckRequest): boolean {
  const lists = [request.emails, request.orgs, request.teams, request.groups, request.headers];
  if (lists.some((list) => (list?.length ?? 0) > MAX_CHECK_LIST_LENGTH)) return true;
  const texts = [
    request.provider,
    request.accountId,
    request.username,
    request.signedInUsername,
    ...(request.emails ?? []).map((e) => e.address),
    ...(request.orgs ?? []),
    ...(request.teams ?? []).flatMap((t) => [t.org, t.name]),
    ...(request.groups ?? []).map((g) => g.fullPath),
    ...(request.headers ?? []).flatMap((h) => [h.name, h.value]),
  ];
  return texts.some((text) => typeof text === 'string' && text.length > MAX_CHECK_TEXT_LENGTH);
}

function identityOf(request: SignInCheckRequest, provider: AuthProvider): Result<ExternalIdentity, SignInCheckProblem> {
  if (provider.type === 'http-header') {
    const headers: Record<string, string[]> = {};
    for (const h of request.headers ?? []) (headers[h.name.trim().toLowerCase()] ??= []).push(h.value);
    const read = identityFromProxyHeaders(provider, Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.length === 1 ? (v[0] ?? '') : v])));
    return read.mapErr((e) => ({ code: 'invalid_identity', message: `The proxy's headers give no usable identity (${e.code}).` }));
  }
  const emails = request.emails ?? [];
  const username = request.username === undefined || request.username === null || request.username === '' ? null : request.username;
  const identity: ExternalIdentity = {
    accountId: request.accountId ?? username ?? emails[0]?.address ?? 'check',
    username,
    emails,
    ...(request.orgs === undefined || request.orgs === null ? {} : { orgs: request.orgs }),
    ...(request.teams === undefined || request.teams === null ? {} : { teams: request.teams }),
    ...(request.groups === undefined || request.groups === null ? {} : { groups: request.groups }),
    ...(request.membershipComplete === false ? { membershipComplete: false } : {}),
  };
  return ok(identity);
}

/**
 * Makes a check: finds the provider, builds the identity, resolves the signed-in account, and explains the
 * sign-in against the store. Reads only: the store is not written.
 *
 * @param store - The account lookups (and the username lookup of the signed-in account).
 * @param providers - `auth.providers`.
 * @param request - The check.
 * @param randomBytes - A random source for the suffix of a would-be username.
 * @returns The answer, or why no check was made.
 * @example
 * ```ts
 * const checked = await checkSignIn(store, configuration.authProviders, { provider: 'hosta', username: 'octo' }, randomBytes);
 * ```
 */
export async function checkSignIn(
  store: ExplainStore & { readonly accounts: Pick<AccountStore, 'findByUsernameKey'> },
  providers: readonly AuthProvider[],
  request: SignInCheckRequest,
  randomBytes: (n: number) => Uint8Array,
): Promise<Result<SignInCheckResult, SignInCheckProblem>> {
  if (tooLong(request)) return err({ code: 'too_long', message: `A list has more than ${MAX_CHECK_LIST_LENGTH} entries, or a text more than ${MAX_CHECK_TEXT_LENGTH} characters.` });
  const providerIndex = findCheckProvider(providers, request.provider);
  const provider = providerIndex === null ? undefined : providers[providerIndex];
  if (providerIndex === null || provider === undefined) return err({ code: 'unknown_provider', message: 'No configured provider has that name, type or position.' });
  const identity = identityOf(request, provider);
  if (identity.isErr()) return err(identity.error);
  let signedInUserId: string | null = null;
  const signedIn = request.signedInUsername ?? '';
  if (signedIn !== '') {
    const user = await store.accounts.findByUsernameKey(usernameKey(signedIn));
    if (user === null) return err({ code: 'unknown_signed_in_user', message: 'No account has the signed-in username given.' });
    signedInUserId = user.id;
  }
  const explained = await explainSignInInStore(store, { provider, identity: identity.value, signedInUserId }, randomBytes);
  if (explained.isErr()) {
    const e = explained.error;
    return err({ code: 'invalid_identity', message: `The identity cannot be judged (${e.code}${'path' in e ? ` at ${e.path === '' ? 'the identity' : e.path}` : ''}).` });
  }
  const { explanation, account } = explained.value;
  return ok({
    providerIndex,
    identity: identity.value,
    explanation,
    account,
    refusalReason: signInRefusalReason(explanation.trace, provider.displayName ?? provider.type),
  });
}
