/**
 * Records and helpers the store contract suite builds its cases from. Nothing here knows an implementation.
 */
import type { AuthorizationCodeRecord } from '../../../../../src/core/oauth/server/records.js';
import type { EphemeralEntry, IssuedOAuthTokens, NewAccessToken, NewAccount, NewAuditEntry, OAuthAppRecord, SessionRecord, Store } from '../../../src/store/types.js';


/** What a contract suite opens for each case: a fresh, empty store and how to release it. */
export interface OpenedStore {
  readonly store: Store;
  close(): Promise<void>;
}

/** Opens a fresh, empty store. */
export type OpenStore = () => Promise<OpenedStore>;

/** Runs `body` against a fresh store, closing it afterwards whatever happens. */
export async function withStore(open: OpenStore, body: (store: Store) => Promise<void>): Promise<void> {
  const opened = await open();
  try {
    await body(opened.store);
  } finally {
    await opened.close();
  }
}

/** An account input: `alice` with one verified address, overridable field by field. */
export const newAccount = (overrides: Partial<NewAccount> = {}): NewAccount => ({
  usernames: ['alice'],
  origin: 'admin_created',
  siteAdmin: false,
  serviceAccount: false,
  emails: [],
  passwordHash: null,
  createdAt: 1_000,
  ...overrides,
});

/** Creates an account and returns its id; fails the case when the store refuses. */
export async function createUser(store: Store, username: string, overrides: Partial<NewAccount> = {}): Promise<string> {
  const created = await store.accounts.create(newAccount({ usernames: [username], ...overrides }));
  if (created.isErr()) throw new Error(`could not create ${username}: ${created.error.code}`);
  return created.value.id;
}

/** An access token input. */
export const newToken = (userId: string, digest: string, createdAt = 1_000): NewAccessToken => ({
  userId,
  digest,
  scopes: ['user:all'],
  note: `note ${digest}`,
  createdAt,
  expiresAt: null,
});

/** A session of `userId`: digest `${userId}-${n}`, created (and last seen) at `n`, from browser `agent-${n}`. */
export const session = (userId: string, n: number, expiresAt = 1_000_000): SessionRecord => ({
  digest: `${userId}-${n}`,
  userId,
  createdAt: n,
  expiresAt,
  lastSeenAt: n,
  userAgent: `agent-${n}`,
});

/** An OAuth app owned by `ownerUserId`. */
export const app = (clientId: string, ownerUserId: string, createdAt = 1_000): OAuthAppRecord => ({
  clientId,
  clientSecretHash: `secret-of-${clientId}`,
  redirectUris: ['https://app.example/cb'],
  scopes: ['user:all'],
  name: `App ${clientId}`,
  ownerUserId,
  createdAt,
});

/** An authorization code. */
export const code = (codeHash: string, userId: string, expiresAt = 1_000_000, used = false, clientId = 'gai_c'): AuthorizationCodeRecord => ({
  codeHash,
  familyId: `f-${codeHash}`,
  clientId,
  userId,
  redirectUri: 'https://app.example/cb',
  redirectUriGiven: true,
  scopes: ['user:all'],
  codeChallenge: 'x'.repeat(43),
  expiresAt,
  used,
});

/** An access and refresh token pair of family `familyId`, named `${name}-a` and `${name}-r`. */
export const tokens = (name: string, familyId: string, userId: string, expiresAt = 1_000_000, clientId = 'gai_c'): IssuedOAuthTokens => ({
  accessToken: { tokenHash: `${name}-a`, familyId, clientId, userId, scopes: ['user:all'], expiresAt },
  refreshToken: { tokenHash: `${name}-r`, familyId, clientId, userId, scopes: ['user:all'], expiresAt, used: false },
});

/** An audit entry input. */
export const auditInput = (overrides: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
  timestamp: 0,
  entity: 'e',
  action: 'a',
  reason: null,
  actorUserId: null,
  subjectUserId: null,
  details: {},
  ...overrides,
});

/** An ephemeral entry of kind `flow_state` unless overridden. */
export const ephemeralEntry = (key: string, overrides: Partial<EphemeralEntry> = {}): EphemeralEntry => ({
  kind: 'flow_state',
  key,
  group: 'g1',
  value: JSON.stringify({ key }),
  expiresAt: 1_000,
  ...overrides,
});

/** Everything an account's records look like through the store's reads, for "nothing changed" comparisons. */
export async function accountSnapshot(store: Store): Promise<unknown> {
  const users = await store.accounts.list({ first: 1000 });
  return {
    users,
    count: await store.accounts.count(),
    links: await Promise.all(users.map((u) => store.accounts.links(u.id))),
    credentials: await Promise.all(users.map((u) => store.accounts.credentials(u.id))),
    tokens: await Promise.all(users.map((u) => store.accessTokens.list(u.id))),
    sessions: await Promise.all(users.map((u) => store.sessions.list(u.id))),
  };
}
