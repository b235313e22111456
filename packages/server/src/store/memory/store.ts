/**
 * The memory {@link Store}: every piece of gatehouse's state in process memory, for tests and embedders' unit
 * tests. It loses everything on exit.
 *
 * Each operation runs synchronously inside its promise once it holds the turn, so it is atomic: it checks
 * everything first and then writes. A {@link Store.transaction} holds the turn until its work settles (every other
 * operation, in a transaction or not, waits), and its writes record undo steps, so an `err` or a rejection undoes
 * every change made through the transaction's store, newest first. Work must use the store it is given: an
 * operation on the outer store waits for the transaction to end, so awaiting one inside the work never settles.
 *
 * @module
 */
import type { Result } from 'neverthrow';
import { createMemoryAccounts } from './accounts.js';
import { createMemoryAuditLog } from './audit.js';
import { createMemoryEphemeral } from './ephemeral.js';
import { createMemoryLinks, createMemoryOutbox } from './lifecycle.js';
import { Journal, TrackedMap, Turn } from './journal.js';
import type { Sync } from './journal.js';
import { createMemoryLockouts } from './lockouts.js';
import { createMemoryOAuth } from './oauth.js';
import { createMemoryAccessTokens, createMemorySessions } from './tokens.js';
import type { AccessTokenStore, AccountStore, AuditStore, EphemeralStore, LockoutStore, OAuthStore, SessionStore, Store, UserRecord } from '../types.js';
import type { AccountLinkStore, OutboxStore } from '../lifecycle-types.js';

/** Runs one synchronous operation as a promise (in turn, or inside the running transaction). */
type Runner = <R>(op: () => R) => Promise<R>;

/** The synchronous operations of every concern. */
interface SyncStore {
  readonly accounts: Sync<AccountStore>;
  readonly accessTokens: Sync<AccessTokenStore>;
  readonly sessions: Sync<SessionStore>;
  readonly oauth: Sync<OAuthStore>;
  readonly audit: Sync<AuditStore>;
  readonly ephemeral: Sync<EphemeralStore>;
  readonly lockouts: Sync<LockoutStore>;
  readonly links: Sync<AccountLinkStore>;
  readonly outbox: Sync<OutboxStore>;
}

/** Wraps every synchronous method of `sync` so it runs through `run`. */
function bindAll<T>(sync: Sync<T>, run: Runner): T {
  const out: Record<string, unknown> = {};
  const methods: [string, unknown][] = Object.entries(sync);
  for (const [name, method] of methods) {
    if (typeof method !== 'function') continue;
    // every member of a Sync<T> is a function of its arguments; the wrapper passes them through unchanged
    const call = method as (...args: unknown[]) => unknown;
    out[name] = (...args: unknown[]) => run(() => call(...args));
  }
  // the wrapper has exactly the methods of T, each returning a promise of the synchronous result
  return out as T;
}

/** Builds the synchronous tables of one memory store. */
function createTables(journal: Journal): SyncStore {
  const users = new TrackedMap<string, UserRecord>(journal);
  const accessTokens = createMemoryAccessTokens(journal, users);
  const dropTokens = accessTokens.deleteForUser;
  const sessions = createMemorySessions(journal, users);
  const { deleteForUser: dropOAuth, ...oauth } = createMemoryOAuth(journal, users);
  const { deleteForUser: dropLockout, ...lockouts } = createMemoryLockouts(journal, users);
  const { deleteForUser: dropLinks, ...links } = createMemoryLinks(journal, users);
  const accounts = createMemoryAccounts(journal, users, {
    cascade: (userId) => {
      dropLockout(userId);
      dropTokens(userId);
      sessions.deleteForUser(userId);
      dropOAuth(userId);
      dropLinks(userId);
    },
  });
  const log = createMemoryAuditLog(journal);
  const audit: Sync<AuditStore> = {
    append: (entry) => log.append(entry),
    list: (first, query) => log.list(first, query),
    purge: (before, limit) => log.purge(before, limit),
  };
  return { accounts, accessTokens, sessions, oauth, audit, ephemeral: createMemoryEphemeral(journal), links, outbox: createMemoryOutbox(journal), lockouts };
}

/** A store whose operations go through `run` and whose `transaction` is `transaction`. */
function bindStore(tables: SyncStore, run: Runner, transaction: Store['transaction']): Store {
  return {
    accounts: bindAll<AccountStore>(tables.accounts, run),
    accessTokens: bindAll<AccessTokenStore>(tables.accessTokens, run),
    sessions: bindAll<SessionStore>(tables.sessions, run),
    oauth: bindAll<OAuthStore>(tables.oauth, run),
    audit: bindAll<AuditStore>(tables.audit, run),
    ephemeral: bindAll<EphemeralStore>(tables.ephemeral, run),
    lockouts: bindAll<LockoutStore>(tables.lockouts, run),
    links: bindAll<AccountLinkStore>(tables.links, run),
    outbox: bindAll<OutboxStore>(tables.outbox, run),
    transaction,
    close: () => Promise.resolve(),
  };
}

/** Runs `work`, undoing the journal back to `mark` when it resolves `err` or rejects. */
function runUndoable<T, E>(journal: Journal, mark: number, work: () => Promise<Result<T, E>>): Promise<Result<T, E>> {
  return Promise.resolve()
    .then(work)
    .then(
      (result) => {
        if (result.isErr()) journal.rollbackTo(mark);
        return result;
      },
      (reason: unknown) => {
        journal.rollbackTo(mark);
        return Promise.reject(reason);
      },
    );
}

/**
 * Creates an empty memory {@link Store}. It keeps everything in process memory and loses it on exit: use it for
 * tests and embedders' unit tests, and the PostgreSQL store to keep data.
 *
 * @returns A new, empty store.
 * @example
 * ```ts
 * const store = createMemoryStore();
 * const created = await store.accounts.create({
 *   usernames: ['alice', 'alice-1'], origin: 'admin_created', siteAdmin: false, serviceAccount: false,
 *   emails: [], passwordHash: null, createdAt: 0,
 * });
 * created.isOk(); // true
 * (await store.accounts.findByUsernameKey(usernameKey('ALICE')))?.id === created._unsafeUnwrap().id; // true
 * ```
 */
export function createMemoryStore(): Store {
  const journal = new Journal();
  const turn = new Turn();
  const tables = createTables(journal);

  // outside a transaction: run at once when nobody holds the turn, else wait for it
  const runInTurn: Runner = (op) => {
    if (!turn.busy) return new Promise((resolve) => resolve(op()));
    return turn.acquire().then(() => {
      try {
        return op();
      } finally {
        turn.release();
      }
    });
  };

  const transaction: Store['transaction'] = async (work) => {
    await turn.acquire();
    journal.begin();
    let open = true;
    // an operation that fails half-way (a defect, not a refusal) undoes its own writes, so each stays atomic
    const runInside: Runner = <R>(op: () => R): Promise<R> => {
      if (!open) return Promise.reject(new Error('the transaction has ended'));
      const mark = journal.length;
      return new Promise<R>((resolve) => resolve(op())).catch((reason: unknown) => {
        journal.rollbackTo(mark);
        return Promise.reject(reason);
      });
    };
    // a transaction inside the transaction runs inline, undoing only its own changes when it fails
    const nested: Store['transaction'] = (inner) => runUndoable(journal, journal.length, () => inner(txStore));
    const txStore = bindStore(tables, runInside, nested);
    try {
      return await runUndoable(journal, 0, () => work(txStore));
    } finally {
      open = false;
      journal.end();
      turn.release();
    }
  };

  return bindStore(tables, runInTurn, transaction);
}
