/**
 * Who a GraphQL request acts as: the `Authorization` header through the core's `parseAuthorizationHeader`,
 * `parseAccessToken`, `hashAccessToken` and `authorizeSudo` (spec §5.1, §6), or else the session cookie
 * with its CSRF header. The HTTP status of each refusal is chosen by an exhaustive match.
 *
 * @module
 */
import { match } from 'ts-pattern';
import { decideAccountUse, accessTokenDigestsEqual, hashAccessToken, parseAccessToken, auditCoalescingKey, auditWindowOf, DEFAULT_AUDIT_COALESCE_MAX_NETWORKS, DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS, parseAuthorizationHeader, isExpired, clientNetwork, usernameKey, authorizeSudo } from 'gatehouse-auth';
import { createAuditNetworkTracker } from '../kernel/audit-networks.js';
import type { AccountUse, SudoError } from 'gatehouse-auth';
import { hasTokenInQuery } from '../kernel/request-body.js';
import { runInRequest } from '../kernel/logging.js';
import { sha256 } from '../kernel/digest.js';
import { API_SCOPE } from './schema.js';
import type { Viewer } from './schema.js';
import type { RouteRequest } from '../kernel/route.js';
import { CSRF_HEADER } from '../session/sessions.js';
import type { Sessions } from '../session/sessions.js';
import type { AccessTokenRecord, AccessTokenStore, AuditEvent, Store, UserRecord } from '../store/types.js';

/**
 * Why a request is refused before it runs.
 *
 * @example
 * ```ts
 * const f: AuthFailure = { code: 'invalid_access_token' };
 * ```
 */
export type AuthFailure =
  /** The `Authorization` header is malformed (or sent more than once). */
  | { readonly code: 'malformed_header' }
  /** Unknown, deleted or expired token, or a sudo token without `site-admin:sudo`. */
  | { readonly code: 'invalid_access_token' }
  /** A sudo token whose owner is no longer a site admin, or a sudo to an account that does not exist. */
  | { readonly code: 'sudo_forbidden'; readonly reason: 'owner_not_site_admin' | 'unknown_user' | 'account_suspended' }
  /** A cookie-authenticated request without the CSRF header. */
  | { readonly code: 'csrf_header_missing' }
  /** An access token in the query string (`?token=` or `?access_token=`): never read from there. */
  | { readonly code: 'token_in_url' };

/**
 * The HTTP answer to an {@link AuthFailure}.
 *
 * @example
 * ```ts
 * const r: AuthFailureResponse = { status: 401, message: 'Invalid access token.', code: 'INVALID_ACCESS_TOKEN' };
 * ```
 */
export interface AuthFailureResponse {
  /** HTTP status. */
  readonly status: 401 | 403;
  /** The error message (fixed for the 401s). */
  readonly message: string;
  /** `extensions.code` of the GraphQL error. */
  readonly code: string;
}

/**
 * Maps a refusal to its HTTP status and message.
 *
 * @param failure - The refusal.
 * @returns Status, message and code.
 *
 * @example
 * ```ts
 * authFailureResponse({ code: 'malformed_header' }).status; // 401
 * ```
 */
export function authFailureResponse(failure: AuthFailure): AuthFailureResponse {
  return match(failure)
    .returnType<AuthFailureResponse>()
    .with({ code: 'malformed_header' }, () => ({ status: 401, message: 'Invalid Authorization header.', code: 'INVALID_AUTHORIZATION_HEADER' }))
    .with({ code: 'invalid_access_token' }, () => ({ status: 401, message: 'Invalid access token.', code: 'INVALID_ACCESS_TOKEN' }))
    .with({ code: 'sudo_forbidden', reason: 'owner_not_site_admin' }, () => ({
      status: 403,
      message: 'The access token owner is not a site administrator.',
      code: 'SUDO_FORBIDDEN',
    }))
    .with({ code: 'sudo_forbidden', reason: 'unknown_user' }, () => ({ status: 403, message: 'No such user to act as.', code: 'SUDO_FORBIDDEN' }))
    .with({ code: 'sudo_forbidden', reason: 'account_suspended' }, () => ({ status: 403, message: 'The user to act as is suspended.', code: 'SUDO_FORBIDDEN' }))
    .with({ code: 'csrf_header_missing' }, () => ({
      status: 403,
      message: 'Requests authenticated by the session cookie must carry the X-Requested-With header.',
      code: 'CSRF_HEADER_MISSING',
    }))
    .with({ code: 'token_in_url' }, () => ({
      status: 401,
      message:
        'Access tokens are not accepted in the URL (?token= or ?access_token=): send the token in the Authorization header, as "Authorization: token <ACCESS_TOKEN>".',
      code: 'TOKEN_IN_URL',
    }))
    .exhaustive();
}

/**
 * Verifies an OAuth access token (the OAuth authorization server's `verifyAccessToken`).
 *
 * @example
 * ```ts
 * const verify: VerifyBearer = async () => ({ userId: '1', scopes: ['user:all'] });
 * ```
 */
export type VerifyBearer = (token: string) => Promise<{ readonly userId: string; readonly scopes: readonly string[] } | null>;

/**
 * What {@link createAuthenticator} needs.
 *
 * @example
 * ```ts
 * const auth = createAuthenticator({ store, sessions, now: Date.now, audit, verifyBearer: async () => null });
 * ```
 */
export interface AuthenticatorOptions {
  /** The store's accounts and access tokens. */
  readonly store: Pick<Store, 'accounts' | 'accessTokens'>;
  /** The session layer. */
  readonly sessions: Sessions;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** Records an audit entry. */
  readonly audit: (entry: AuditEvent) => Promise<void>;
  /** Verifies OAuth access tokens. */
  readonly verifyBearer: VerifyBearer;
  /**
   * The account a `token-sudo` header names, by its username key (default `store.accounts.findByUsernameKey`; the
   * server reads it through its short-lived token cache, token-cache.ts).
   */
  readonly findSudoTarget?: (usernameKey: string) => Promise<UserRecord | null>;
  /**
   * Records the `sudo` entry of an allowed `token-sudo` request under a key naming the token and the account acted
   * as (default: {@link AuthenticatorOptions.audit}, one entry per request, awaited). The server counts the uses and
   * writes one entry per key and second off the request path (audit-batch.ts).
   */
  readonly recordSudo?: (key: string, entry: AuditEvent) => Promise<void>;
  /**
   * The window, in seconds, within which the unsupported-scheme entries from one client network are one audit
   * entry with a count. Default {@link DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS} (60).
   */
  readonly auditCoalesceWindowSeconds?: number;
  /**
   * How many client networks get their own unsupported-scheme entry per window; further networks share one
   * `other-networks` entry. Default {@link DEFAULT_AUDIT_COALESCE_MAX_NETWORKS} (1,000).
   */
  readonly auditCoalesceMaxNetworks?: number;
}

/**
 * The outcome of authenticating a request.
 *
 * @example
 * ```ts
 * const a: Authentication = { kind: 'viewer', viewer: { kind: 'anonymous' }, scheme: 'none' };
 * ```
 */
export type Authentication = AuthenticationDecision & {
  /**
   * The scheme the request offered, read once from the parsed `Authorization` header for the logs and metrics:
   * `token`, `bearer`, `token-sudo`, `other` (unsupported or malformed), `session` (a cookie and no header), `none`.
   */
  readonly scheme: AuthenticationScheme;
};

/**
 * The scheme label of a request ({@link Authentication.scheme}): a closed set, so it is a safe metrics label.
 *
 * @example
 * ```ts
 * const scheme: AuthenticationScheme = 'token-sudo';
 * ```
 */
export type AuthenticationScheme = 'token' | 'bearer' | 'token-sudo' | 'other' | 'session' | 'none';

/** What to do with a request: run it as a viewer, or refuse it. */
type AuthenticationDecision =
  /** Run the request as this viewer. */
  | { readonly kind: 'viewer'; readonly viewer: Viewer }
  /** Refuse it. */
  | { readonly kind: 'refuse'; readonly failure: AuthFailure };

const refuse = (failure: AuthFailure): AuthenticationDecision => ({ kind: 'refuse', failure });

const invalidToken = refuse({ code: 'invalid_access_token' });

/** How often this process writes one access token's `lastUsedAt` at most. */
const TOKEN_TOUCH_INTERVAL_MS = 60_000;

/** How many tokens' last writes this process remembers; past it the least recently written is forgotten. */
const TOKEN_TOUCH_TRACKED = 10_000;

/**
 * Records that a token authenticated a request, writing `lastUsedAt` at most once per token per
 * {@link TOKEN_TOUCH_INTERVAL_MS} from this process. The cached token record (token-cache.ts) shows a
 * `lastUsedAt` up to its time to live old, so the throttle keeps its own times; a token forgotten past the bound
 * costs at most one early write. The write is not awaited: a slow or failing store neither delays nor fails the
 * request (the server's store logs its own failures, see store-errors.ts).
 */
function tokenUseRecorder(tokens: Pick<AccessTokenStore, 'touch'>): (record: AccessTokenRecord, at: number) => void {
  // a Map iterates in insertion order: re-inserting on each write keeps the least recently written first
  const lastWritten = new Map<string, number>();
  const ignore = (): void => undefined;
  return (record, at) => {
    const here = lastWritten.get(record.id);
    const last = Math.max(here ?? Number.NEGATIVE_INFINITY, record.lastUsedAt ?? Number.NEGATIVE_INFINITY);
    if (at - last < TOKEN_TOUCH_INTERVAL_MS) return;
    if (here !== undefined) lastWritten.delete(record.id);
    lastWritten.set(record.id, at);
    if (lastWritten.size > TOKEN_TOUCH_TRACKED) {
      const oldest = lastWritten.keys().next();
      if (oldest.done !== true) lastWritten.delete(oldest.value);
    }
    try {
      void tokens.touch(record.id, at).catch(ignore);
    } catch {
      // a store that throws instead of rejecting fails the write only, never the request
    }
  };
}

/**
 * Creates the request authenticator.
 *
 * @param options - Store, sessions, clock, audit and the OAuth token verifier.
 * @returns A function from a request to its {@link Authentication}.
 *
 * @example
 * ```ts
 * const authenticate = createAuthenticator(options);
 * const outcome = await authenticate(req);
 * ```
 */
export function createAuthenticator(options: AuthenticatorOptions): (req: RouteRequest) => Promise<Authentication> {
  const { store, sessions, now, audit, verifyBearer } = options;
  const coalesceWindowSeconds = options.auditCoalesceWindowSeconds ?? DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS;
  const auditNetworks = createAuditNetworkTracker(options.auditCoalesceMaxNetworks ?? DEFAULT_AUDIT_COALESCE_MAX_NETWORKS);
  const recordUse = tokenUseRecorder(store.accessTokens);
  const findSudoTarget = options.findSudoTarget ?? ((key: string) => store.accounts.findByUsernameKey(key));
  const recordSudo = options.recordSudo ?? ((_key: string, entry: AuditEvent) => audit(entry));

  // an audit entry's log line is written from deep in the store: it is written in the request's context
  const auditIn = (req: RouteRequest, entry: AuditEvent): Promise<void> =>
    runInRequest({ requestId: req.requestId, authentication: null }, () => audit(entry));

  const findToken = async (secret: string): Promise<AccessTokenRecord | null> => {
    // a mistyped token (bad prefix, length or checksum) is rejected before any lookup
    if (parseAccessToken(secret).isErr()) return null;
    const digest = hashAccessToken(secret, sha256);
    if (digest.isErr()) return null;
    const record = await store.accessTokens.findByDigest(digest.value);
    if (record === null || !accessTokenDigestsEqual(record.digest, digest.value)) return null;
    if (isExpired(record.expiresAt, now())) return null;
    return record;
  };

  // a suspended account's tokens are kept (reinstating restores them) but authenticate nothing meanwhile
  const usable = (user: UserRecord | null, use: AccountUse): UserRecord | null =>
    user === null || decideAccountUse({ suspended: user.suspendedAt !== undefined, use }).kind === 'deny' ? null : user;
  const ownerOf = async (record: AccessTokenRecord, use: AccountUse): Promise<UserRecord | null> => usable(await store.accounts.get(record.userId), use);

  const sessionViewer = async (req: RouteRequest): Promise<AuthenticationDecision> => {
    const user = await sessions.authenticate(req);
    if (user === null) return { kind: 'viewer', viewer: { kind: 'anonymous' } };
    const csrf = req.headers[CSRF_HEADER];
    if (typeof csrf !== 'string' || csrf.trim() === '') return refuse({ code: 'csrf_header_missing' });
    const signedInAt = (): Promise<number | null> => sessions.signedInAt?.(req) ?? Promise.resolve(null);
    return { kind: 'viewer', viewer: { kind: 'user', user, actor: user, via: 'session', signedInAt } };
  };

  const decide = async (req: RouteRequest, parsed: ReturnType<typeof parseAuthorizationHeader>): Promise<AuthenticationDecision> => {
    // §4 rule 1: the token travels in the Authorization header; one in the URL is refused, not ignored.
    if (hasTokenInQuery(req.url.search)) return refuse({ code: 'token_in_url' });
    if (parsed.isErr()) {
      const error = parsed.error;
      if (error.code === 'malformed_header') return refuse({ code: 'malformed_header' });
      // unsupported scheme: ignore the header, record the audit entry the core names (§5.1 rule 4, §6), coalesced
      // per client network and window so that a flood adds one entry with a count, and past the bound on networks
      // per window into the window's `other-networks` entry (§6 rule 1 reading)
      const at = now();
      const network = clientNetwork(req.clientAddress).unwrapOr('unknown');
      const client = auditNetworks.clientFor(network, auditWindowOf(at, coalesceWindowSeconds));
      const entry = {
        entity: error.audit.entity,
        action: error.audit.action,
        reason: error.audit.reason,
        actorUserId: null,
        subjectUserId: null,
        details: { scheme: auditedScheme(error.scheme), clientAddress: client },
      };
      const key = auditCoalescingKey({ entry, client, at, windowSeconds: coalesceWindowSeconds }).unwrapOr(null);
      await auditIn(req, key === null ? entry : { ...entry, coalesceKey: key });
      return sessionViewer(req);
    }
    const credentials = parsed.value;
    if (credentials === null) return sessionViewer(req);

    if (credentials.scheme === 'token') {
      const record = await findToken(credentials.token);
      const owner = record === null ? null : await ownerOf(record, 'access_token');
      if (record === null || owner === null) return invalidToken;
      recordUse(record, now());
      return { kind: 'viewer', viewer: { kind: 'user', user: owner, actor: owner, via: 'token' } };
    }

    if (credentials.scheme === 'bearer') {
      const verified = await verifyBearer(credentials.token);
      if (verified === null || !verified.scopes.includes(API_SCOPE)) return invalidToken;
      const user = usable(await store.accounts.get(verified.userId), 'oauth_token');
      if (user === null) return invalidToken;
      return { kind: 'viewer', viewer: { kind: 'user', user, actor: user, via: 'bearer' } };
    }

    // token-sudo
    const record = await findToken(credentials.token);
    const owner = record === null ? null : await ownerOf(record, 'sudo_owner');
    if (record === null || owner === null) return invalidToken;
    const target = await findSudoTarget(usernameKey(credentials.user));
    const decision = authorizeSudo({ token: { scopes: record.scopes }, tokenOwner: { siteAdmin: owner.siteAdmin }, target });
    if (decision.isErr()) {
      const failure = sudoFailure(decision.error);
      await auditIn(req, {
        entity: 'auth.accessToken',
        action: 'sudo_denied',
        reason: decision.error.code,
        actorUserId: owner.id,
        subjectUserId: target?.id ?? null,
        details: { tokenId: record.id },
      });
      return refuse(failure);
    }
    const user = decision.value;
    // asked only once the core allowed the sudo: whether an account is suspended is a site administrator's to know
    if (usable(user, 'sudo_target') === null) {
      await auditIn(req, { entity: 'auth.accessToken', action: 'sudo_denied', reason: 'account_suspended', actorUserId: owner.id, subjectUserId: user.id, details: { tokenId: record.id } });
      return refuse({ code: 'sudo_forbidden', reason: 'account_suspended' });
    }
    recordUse(record, now());
    await recordSudo(JSON.stringify([record.id, owner.id, user.id]), {
      entity: 'auth.accessToken',
      action: 'sudo',
      reason: null,
      actorUserId: owner.id,
      subjectUserId: user.id,
      impersonatedUserId: user.id,
      details: { tokenId: record.id, actor: owner.username, subject: user.username },
    });
    return { kind: 'viewer', viewer: { kind: 'user', user, actor: owner, via: 'token-sudo' } };
  };

  return async (req) => {
    // the header is parsed once; the decision and the scheme label both read this one result
    const header = req.headersDistinct['authorization'];
    const parsed = parseAuthorizationHeader(header === undefined ? undefined : header.length === 1 ? header[0] : header);
    return { ...(await decide(req, parsed)), scheme: schemeLabel(parsed, req.headers['cookie'] !== undefined) };
  };
}

/** The scheme label of a parsed header: the credential's scheme, `other` for an error, else by the cookie. */
function schemeLabel(parsed: ReturnType<typeof parseAuthorizationHeader>, hasCookie: boolean): AuthenticationScheme {
  if (parsed.isErr()) return 'other';
  if (parsed.value === null) return hasCookie ? 'session' : 'none';
  return parsed.value.scheme;
}

/**
 * Schemes named in the audit entry as they are: the IANA HTTP Authentication Scheme Registry plus two common
 * unregistered ones. Any other "scheme" is recorded as `other`: a client that sends a bare secret
 * (`Authorization: gat_…`, no scheme) makes the core read the secret itself as the scheme, and no part of a
 * secret may reach the audit log.
 */
const NAMED_SCHEMES: ReadonlySet<string> = new Set([
  'basic',
  'concealed',
  'digest',
  'dpop',
  'gnap',
  'hoba',
  'mutual',
  'negotiate',
  'oauth',
  'privatetoken',
  'scram-sha-1',
  'scram-sha-256',
  'vapid',
  'ntlm',
  'aws4-hmac-sha256',
]);

function auditedScheme(scheme: string): string {
  return NAMED_SCHEMES.has(scheme) ? scheme : 'other';
}

function sudoFailure(error: SudoError): AuthFailure {
  return match(error)
    .returnType<AuthFailure>()
    .with({ code: 'missing_sudo_scope' }, () => ({ code: 'invalid_access_token' }))
    .with({ code: 'owner_not_site_admin' }, () => ({ code: 'sudo_forbidden', reason: 'owner_not_site_admin' }))
    .with({ code: 'unknown_user' }, () => ({ code: 'sudo_forbidden', reason: 'unknown_user' }))
    .with({ code: 'invalid_input' }, () => ({ code: 'invalid_access_token' }))
    .exhaustive();
}
