/**
 * Creating access tokens (spec §2.3): the core's `authorizeAccessTokenCreation` decides, the secret is returned
 * once and only its SHA-256 digest is stored.
 *
 * @module
 */
import { match } from 'ts-pattern';
import {
  authorizeAccessTokenCreation,
  decideAccessTokenOptions,
  generateAccessToken,
  hashAccessToken,
  ACCESS_TOKEN_RANDOM_BYTES,
  MAX_ACCESS_TOKENS_PER_ACCOUNT,
} from 'gatehouse-auth';
import type { AccessTokenCreationDenialReason, AccessTokenCreationError, AccessTokenOptions, AccessTokenOptionsDecision, AccessTokenScope, RequestCredential } from 'gatehouse-auth';
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { sha256 } from '../kernel/digest.js';
import { auditedTransaction, type AuditSink } from '../store/audited.js';
import type { AccessTokenRecord, NewAccessToken, Store, StoreError, UserRecord } from '../store/types.js';
import { storeFailure, type OperationFailure } from './failure.js';

/** What an operation needs of the server: the store, the clock, the random source and the audit sink. */
export interface OperationServices {
  /** The store: multi-step writes with a rule (the access token quota) run in its `transaction`. */
  readonly store: Store;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** The random source. */
  readonly randomBytes: (n: number) => Uint8Array;
  /** Records an audit entry into the store of the transaction that makes the change. */
  readonly audit: AuditSink;
  /**
   * The site option `auth.accessTokens`, applied to every creation a person or program asks for (one with a
   * `credential`); absent, only the server's own creations (the start-up administrator token) are made.
   */
  readonly accessTokenOptions?: AccessTokenOptions;
}

/**
 * Why a token was not created: the subject does not exist, the core could not read the request or refused it,
 * no secret could be made, or the store refused the row.
 */
export type IssueAccessTokenError =
  /** The subject account does not exist. */
  | { readonly code: 'unknown_user' }
  /** The core could not read the request (an unknown or repeated scope, an overlong note). */
  | { readonly code: 'invalid_request'; readonly error: AccessTokenCreationError }
  /** The core refused the creation (spec §2.3, §2.4, §5.1 rule 3; the per-account quota). */
  | { readonly code: 'denied'; readonly reason: AccessTokenCreationDenialReason }
  /** The site option `auth.accessTokens` refused it (who may create, how many, how long). */
  | { readonly code: 'option_refused'; readonly decision: Extract<AccessTokenOptionsDecision, { readonly kind: 'refuse' }> }
  /** The random source or the digest failed. */
  | { readonly code: 'secret_failed' }
  /** The store refused the row. */
  | { readonly code: 'store_refused'; readonly error: StoreError };

/** A created token: its stored record and the secret, shown once. */
export interface IssuedAccessToken {
  /** The stored record (the secret's digest, never the secret). */
  readonly record: AccessTokenRecord;
  /** The secret, to show once. */
  readonly secret: string;
}

/**
 * Creates an access token for `subjectId` on behalf of `actor`, after the core's `authorizeAccessTokenCreation`:
 * the secret is returned once and only its SHA-256 digest is stored.
 *
 * @param services - Store, clock, random source and audit.
 * @param actor - Who asks.
 * @param subjectId - Whose token it will be.
 * @param scopes - The requested scopes.
 * @param note - What the token is for.
 * @param expiresAt - Expiry in milliseconds since the epoch, or `null`.
 * @param credential - How the asking request authenticated ({@link viewerCredential}); the core refuses `oauth`
 *   (spec §2.4, §5.1 rule 3). Omit it only for the server's own calls (the start-up administrator token).
 * @returns The stored record and the secret, or why none was created.
 *
 * @example
 * ```ts
 * const created = await issueAccessToken(services, admin, admin.id, ['user:all', 'site-admin:sudo'], 'cli', null);
 * if (created.isOk()) console.log(created.value.secret);
 * ```
 */
export async function issueAccessToken(
  services: OperationServices,
  actor: UserRecord,
  subjectId: string,
  scopes: readonly string[],
  note: string,
  expiresAt: number | null,
  credential?: RequestCredential,
): Promise<Result<IssuedAccessToken, IssueAccessTokenError>> {
  const subject = await services.store.accounts.get(subjectId);
  if (subject === null) return err({ code: 'unknown_user' });
  const request: CreationRequest = {
    actor,
    subject,
    scopes,
    note,
    expiresAt,
    ...(credential === undefined ? {} : { credential }),
    // the site's options govern what people and programs ask for; the server's own creations are not theirs
    ...(credential === undefined || services.accessTokenOptions === undefined ? {} : { options: services.accessTokenOptions }),
  };
  // The quota is read, the token inserted and the creation audited in one transaction: concurrent creations cannot
  // pass the quota together, and a token whose audit entry cannot be written is not kept.
  const created = await auditedTransaction(services.store, async (tx) => {
    const made = await createWithin(services, request, {
      count: () => tx.accessTokens.count(subject.id),
      insert: (token) => tx.accessTokens.create(token),
    });
    if (made.isOk()) {
      await services.audit(
        {
          entity: 'auth.accessToken',
          action: 'created',
          reason: null,
          actorUserId: actor.id,
          subjectUserId: subject.id,
          details: { tokenId: made.value.stored.id, scopes: made.value.scopes.join(' ') },
        },
        tx,
      );
    }
    return made;
  });
  if (created.isErr()) return err(created.error);
  const { stored, secret } = created.value;
  return ok({ record: stored, secret });
}

/** What one token creation asks for. */
interface CreationRequest {
  readonly actor: UserRecord;
  readonly subject: UserRecord;
  readonly scopes: readonly string[];
  readonly note: string;
  readonly expiresAt: number | null;
  readonly credential?: RequestCredential;
  readonly options?: AccessTokenOptions;
}

/** The store operations a creation runs, inside the store's transaction. */
interface CreationSteps {
  readonly count: () => Promise<number>;
  readonly insert: (token: NewAccessToken) => Promise<Result<AccessTokenRecord, StoreError>>;
}

/** Counts the subject's tokens, asks the core, and inserts the new token: an `err` changes nothing. */
async function createWithin(
  services: Pick<OperationServices, 'now' | 'randomBytes'>,
  request: CreationRequest,
  steps: CreationSteps,
): Promise<Result<{ readonly stored: AccessTokenRecord; readonly secret: string; readonly scopes: readonly AccessTokenScope[] }, IssueAccessTokenError>> {
  const { actor, subject, scopes, note, credential } = request;
  const existingTokenCount = await steps.count();
  const decision = authorizeAccessTokenCreation({
    actor: { id: actor.id, siteAdmin: actor.siteAdmin },
    subject: { id: subject.id },
    scopes,
    note,
    existingTokenCount,
    ...(credential === undefined ? {} : { credential }),
  });
  if (decision.isErr()) return err({ code: 'invalid_request', error: decision.error });
  const allowed = decision.value;
  if (allowed.kind === 'deny') return err({ code: 'denied', reason: allowed.reason });
  // then the site's auth.accessTokens, once the request is one the spec allows at all (an OAuth token never mints)
  if (request.options !== undefined) {
    const lifetimeMs = request.expiresAt === null ? null : request.expiresAt - services.now();
    const byOption = decideAccessTokenOptions(request.options, {
      actorSiteAdmin: actor.siteAdmin,
      // an expiry already past is no lifetime at all: the core refuses it as malformed
      lifetimeSeconds: lifetimeMs === null ? null : Math.max(lifetimeMs, 0) / 1000,
      existingTokenCount,
    });
    if (byOption.isErr()) return err({ code: 'invalid_request', error: { code: 'invalid_input', field: 'input' } });
    if (byOption.value.kind === 'refuse') return err({ code: 'option_refused', decision: byOption.value });
  }
  const secret = generateAccessToken(services.randomBytes(ACCESS_TOKEN_RANDOM_BYTES));
  if (secret.isErr()) return err({ code: 'secret_failed' });
  const digest = hashAccessToken(secret.value, sha256);
  if (digest.isErr()) return err({ code: 'secret_failed' });
  const stored = await steps.insert({ userId: subject.id, digest: digest.value, scopes: allowed.scopes, note, createdAt: services.now(), expiresAt: request.expiresAt });
  if (stored.isErr()) return err({ code: 'store_refused', error: stored.error });
  return ok({ stored: stored.value, secret: secret.value, scopes: allowed.scopes });
}

/**
 * What to tell the person or client whose token was not created: a sentence, the API's error code, and the facts
 * a client reads (the quota's limit).
 *
 * @param error - Why the token was not created.
 * @returns The failure to report.
 * @example
 * ```ts
 * issueAccessTokenFailure({ code: 'denied', reason: 'sudo_requires_site_admin' }).code; // 'FORBIDDEN'
 * ```
 */
export function issueAccessTokenFailure(error: IssueAccessTokenError): OperationFailure {
  return match(error)
    .returnType<OperationFailure>()
    .with({ code: 'unknown_user' }, () => ({ message: 'No such user.', code: 'NOT_FOUND' }))
    .with({ code: 'invalid_request' }, (e) => creationRequestFailure(e.error))
    .with({ code: 'denied' }, (e) => denial(e.reason))
    .with({ code: 'option_refused' }, (e) => optionRefusal(e.decision))
    .with({ code: 'secret_failed' }, () => ({ message: 'Could not generate a token.', code: 'INTERNAL' }))
    .with({ code: 'store_refused' }, (e) => storeFailure(e.error))
    .exhaustive();
}

/** The failure of a request the core could not read. */
function creationRequestFailure(error: AccessTokenCreationError): OperationFailure {
  return match(error)
    .returnType<OperationFailure>()
    .with({ code: 'invalid_input' }, () => ({ message: 'The request is invalid.', code: 'BAD_USER_INPUT' }))
    .with({ code: 'unknown_scope' }, (e) => ({ message: `Unknown scope "${e.scope}".`, code: 'UNKNOWN_SCOPE' }))
    .with({ code: 'duplicate_scope' }, (e) => ({ message: `Scope "${e.scope}" is given twice.`, code: 'DUPLICATE_SCOPE' }))
    .with({ code: 'missing_user_all_scope' }, () => ({ message: 'Every access token carries the scope "user:all".', code: 'MISSING_USER_ALL_SCOPE' }))
    .with({ code: 'note_too_long' }, (e) => ({
      message: `The note must be at most ${e.maxLength} characters long.`,
      code: 'BAD_USER_INPUT',
      facts: { argument: 'note', maxLength: e.maxLength },
    }))
    .exhaustive();
}

/** The failure of the core's refusal. */
function denial(reason: AccessTokenCreationDenialReason): OperationFailure {
  return match(reason)
    .returnType<OperationFailure>()
    .with('not_token_owner', () => ({ message: 'Only site administrators may create tokens for other accounts.', code: 'FORBIDDEN' }))
    .with('sudo_requires_site_admin', () => ({ message: 'Only site administrators may create tokens with "site-admin:sudo".', code: 'FORBIDDEN' }))
    .with('short_lived_credential', () => ({
      message: 'An OAuth access token cannot create access tokens: OAuth access tokens are short-lived. Use a personal access token or sign in.',
      code: 'FORBIDDEN',
    }))
    .with('quota_exceeded', () => ({
      message: `This account already holds ${MAX_ACCESS_TOKENS_PER_ACCOUNT} access tokens, the most one account may hold; delete one first.`,
      code: 'QUOTA_EXCEEDED',
      facts: { reason: 'quota_exceeded', limit: MAX_ACCESS_TOKENS_PER_ACCOUNT },
    }))
    .exhaustive();
}

/** The failure of a refusal by `auth.accessTokens`; `facts.reason` is the core's snake_case reason. */
function optionRefusal(decision: Extract<AccessTokenOptionsDecision, { readonly kind: 'refuse' }>): OperationFailure {
  return match(decision)
    .returnType<OperationFailure>()
    .with({ reason: 'access_tokens_disabled' }, (d) => ({
      message: 'Access tokens are turned off on this site (auth.accessTokens.allow is "none").',
      code: 'FORBIDDEN',
      facts: { reason: d.reason },
    }))
    .with({ reason: 'site_admin_only' }, (d) => ({
      message: 'Only site administrators may create access tokens on this site (auth.accessTokens.allow is "site-admin-create").',
      code: 'FORBIDDEN',
      facts: { reason: d.reason },
    }))
    .with({ reason: 'token_limit_reached' }, (d) => ({
      message: `This account already holds ${d.limit} access tokens, the most this site allows one account (auth.accessTokens.maxTokensPerUser); delete one first.`,
      code: 'QUOTA_EXCEEDED',
      facts: { reason: d.reason, limit: d.limit },
    }))
    .with({ reason: 'expiration_required' }, (d) => ({
      message: 'Access tokens on this site must expire (auth.accessTokens.allowNoExpiration is false): give a lifetime.',
      code: 'BAD_USER_INPUT',
      facts: { reason: d.reason },
    }))
    .with({ reason: 'expiration_too_long' }, (d) => ({
      message: `Access tokens on this site live at most ${d.maxDays} days (the longest of auth.accessTokens.expirationOptionDays).`,
      code: 'BAD_USER_INPUT',
      facts: { reason: d.reason, maxDays: d.maxDays },
    }))
    .exhaustive();
}

/**
 * The core's name for how a viewer authenticated: `token` and `token-sudo` present a personal access token,
 * `bearer` an OAuth access token, `session` the browser's session cookie.
 *
 * @param via - How the request authenticated (the API's viewer, or `session` for a page).
 * @returns The credential kind the core's `authorizeAccessTokenCreation` takes.
 *
 * @example
 * ```ts
 * viewerCredential('bearer'); // 'oauth'
 * ```
 */
export function viewerCredential(via: 'token' | 'token-sudo' | 'bearer' | 'session'): RequestCredential {
  return match(via)
    .returnType<RequestCredential>()
    .with('token', 'token-sudo', () => 'access_token')
    .with('bearer', () => 'oauth')
    .with('session', () => 'session')
    .exhaustive();
}
