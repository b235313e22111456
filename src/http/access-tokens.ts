/**
 * Creating access tokens (spec §2.3): the core's `authorizeAccessTokenCreation` decides, the secret is returned
 * once and only its SHA-256 digest is stored.
 *
 * @module
 */
import { GraphQLError } from 'graphql';
import { match } from 'ts-pattern';
import {
  authorizeAccessTokenCreation,
  generateAccessToken,
  hashAccessToken,
  ACCESS_TOKEN_RANDOM_BYTES,
  MAX_ACCESS_TOKENS_PER_ACCOUNT,
} from '../core/access-token.js';
import type { AccessTokenScope, RequestCredential } from '../core/access-token.js';
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { auditedTransaction } from './audited.js';
import { sha256 } from './digest.js';
import { fail, storeFailure, tokenCreationFailure } from './schema-fields.js';
import type { SchemaServices, Viewer } from './schema.js';
import type { AccessTokenRecord, NewAccessToken, StoreError, UserRecord } from './store/types.js';

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
 * @returns The stored record and the secret, or a GraphQL error to report.
 *
 * @example
 * ```ts
 * const created = await issueAccessToken(services, admin, admin.id, ['user:all', 'site-admin:sudo'], 'cli', null);
 * if (!(created instanceof GraphQLError)) console.log(created.secret);
 * ```
 */
export async function issueAccessToken(
  services: Pick<SchemaServices, 'store' | 'now' | 'randomBytes' | 'audit'>,
  actor: UserRecord,
  subjectId: string,
  scopes: readonly string[],
  note: string,
  expiresAt: number | null,
  credential?: RequestCredential,
): Promise<{ readonly record: AccessTokenRecord; readonly secret: string } | GraphQLError> {
  const subject = await services.store.accounts.get(subjectId);
  if (subject === null) return fail('No such user.', 'NOT_FOUND');
  const request: CreationRequest = { actor, subject, scopes, note, expiresAt, ...(credential === undefined ? {} : { credential }) };
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
  if (created.isErr()) return created.error;
  const { stored, secret } = created.value;
  return { record: stored, secret };
}

/** What one token creation asks for. */
interface CreationRequest {
  readonly actor: UserRecord;
  readonly subject: UserRecord;
  readonly scopes: readonly string[];
  readonly note: string;
  readonly expiresAt: number | null;
  readonly credential?: RequestCredential;
}

/** The store operations a creation runs, inside the store's transaction. */
interface CreationSteps {
  readonly count: () => Promise<number>;
  readonly insert: (token: NewAccessToken) => Promise<Result<AccessTokenRecord, StoreError>>;
}

/** Counts the subject's tokens, asks the core, and inserts the new token: an `err` changes nothing. */
async function createWithin(
  services: Pick<SchemaServices, 'now' | 'randomBytes'>,
  request: CreationRequest,
  steps: CreationSteps,
): Promise<Result<{ readonly stored: AccessTokenRecord; readonly secret: string; readonly scopes: readonly AccessTokenScope[] }, GraphQLError>> {
  const { actor, subject, scopes, note, credential } = request;
  const decision = authorizeAccessTokenCreation({
    actor: { id: actor.id, siteAdmin: actor.siteAdmin },
    subject: { id: subject.id },
    scopes,
    note,
    existingTokenCount: await steps.count(),
    ...(credential === undefined ? {} : { credential }),
  });
  if (decision.isErr()) return err(tokenCreationFailure(decision.error));
  const allowed = decision.value;
  if (allowed.kind === 'deny') return err(denial(allowed.reason));
  const secret = generateAccessToken(services.randomBytes(ACCESS_TOKEN_RANDOM_BYTES));
  if (secret.isErr()) return err(fail('Could not generate a token.', 'INTERNAL'));
  const digest = hashAccessToken(secret.value, sha256);
  if (digest.isErr()) return err(fail('Could not hash the token.', 'INTERNAL'));
  const stored = await steps.insert({ userId: subject.id, digest: digest.value, scopes: allowed.scopes, note, createdAt: services.now(), expiresAt: request.expiresAt });
  if (stored.isErr()) return err(storeFailure(stored.error));
  return ok({ stored: stored.value, secret: secret.value, scopes: allowed.scopes });
}

/** The GraphQL error of the core's refusal. */
function denial(reason: 'not_token_owner' | 'sudo_requires_site_admin' | 'short_lived_credential' | 'quota_exceeded'): GraphQLError {
  return match(reason)
    .returnType<GraphQLError>()
    .with('not_token_owner', () => fail('Only site administrators may create tokens for other accounts.', 'FORBIDDEN'))
    .with('sudo_requires_site_admin', () => fail('Only site administrators may create tokens with "site-admin:sudo".', 'FORBIDDEN'))
    .with('short_lived_credential', () =>
      fail('An OAuth access token cannot create access tokens: OAuth access tokens are short-lived. Use a personal access token or sign in.', 'FORBIDDEN'),
    )
    .with('quota_exceeded', () =>
      fail(
        `This account already holds ${MAX_ACCESS_TOKENS_PER_ACCOUNT} access tokens, the most one account may hold; delete one first.`,
        'QUOTA_EXCEEDED',
        { reason: 'quota_exceeded', limit: MAX_ACCESS_TOKENS_PER_ACCOUNT },
      ),
    )
    .exhaustive();
}

/**
 * The core's name for how a viewer authenticated: `token` and `token-sudo` present a personal access token,
 * `bearer` an OAuth access token, `session` the browser's session cookie.
 *
 * @param via - How the request authenticated ({@link Viewer}).
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
