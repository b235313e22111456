/**
 * The account change feed between instances on one PostgreSQL server: every store write that changes an account or
 * takes away its tokens also runs `pg_notify` on {@link ACCOUNT_CHANGES_CHANNEL} with the account's id, in the same
 * statement or transaction, so PostgreSQL delivers it only when (and if) the change commits. Each instance keeps
 * one dedicated connection that `LISTEN`s on the channel and tells its subscribers (the token cache, which
 * forgets the account at once, so a suspension or a revocation is refused on every instance with no wait for the
 * cache's time to live). A lost connection is opened again with a growing pause; notifications sent meanwhile are
 * lost, so every (re)connection is told as `missed` (forget everything). PGlite holds its data directory alone
 * and needs no feed.
 *
 * @module
 */
import type { AccountChange } from '../types.js';

/**
 * The channel account changes are notified on.
 *
 * @example
 * ```ts
 * await client.query(`LISTEN ${ACCOUNT_CHANGES_CHANNEL}`);
 * ```
 */
export const ACCOUNT_CHANGES_CHANNEL = 'gatehouse_account_changes';

/**
 * The SQL expression that notifies a change of the account whose id is `idExpression` (a column or a parameter),
 * for a statement's select list: it runs once per row the statement returns, inside the statement's transaction.
 *
 * @param idExpression - SQL for the account id (`a.id`, `$1`).
 * @returns The `pg_notify(…)` call.
 * @example
 * ```ts
 * notifyAccountChange('a.id'); // "pg_notify('gatehouse_account_changes', (a.id)::text)"
 * ```
 */
export function notifyAccountChange(idExpression: string): string {
  return `pg_notify('${ACCOUNT_CHANGES_CHANNEL}', (${idExpression})::text)`;
}

/** A notification as node-postgres delivers it. */
interface Notification {
  readonly channel: string;
  readonly payload?: string | undefined;
}

/**
 * The part of a node-postgres `Client` the feed uses (a fake in tests).
 *
 * @example
 * ```ts
 * const connection: ListenConnection = new pg.Client({ connectionString });
 * ```
 */
export interface ListenConnection {
  /** Opens the connection. */
  connect(): Promise<unknown>;
  /** Runs a statement. */
  query(text: string): Promise<unknown>;
  /** Subscribes to notifications, errors and the end of the connection. */
  on(event: 'notification', listener: (message: Notification) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: unknown) => void): unknown;
  /** Closes the connection. */
  end(): Promise<void>;
}

/**
 * Settings of {@link startChangeFeed}.
 *
 * @example
 * ```ts
 * const options: ChangeFeedOptions = { connect: () => new pg.Client({ connectionString }) };
 * ```
 */
export interface ChangeFeedOptions {
  /** Makes a new, unopened connection (one per attempt). */
  readonly connect: () => ListenConnection;
  /** The first pause before opening a lost connection again, in milliseconds (default 100). */
  readonly retryMinMs?: number;
  /** The longest pause between attempts, in milliseconds (default 5,000). */
  readonly retryMaxMs?: number;
  /** Told when the feed starts or stops listening (for the log); must not throw. */
  readonly onState?: (state: 'listening' | 'disconnected') => void;
}

/**
 * A running change feed.
 *
 * @example
 * ```ts
 * const stop = feed.subscribe((change) => (change.kind === 'account' ? cache.invalidateUser(change.userId) : cache.clear()));
 * ```
 */
export interface ChangeFeed {
  /** Calls `listener` on every change from now on; returns the function that stops it. */
  subscribe(listener: (change: AccountChange) => void): () => void;
  /** Whether the connection is open and listening now. */
  listening(): boolean;
  /** Resolves once the feed listens (at once when it does already). */
  whenListening(): Promise<void>;
  /** Closes the connection and stops trying again. */
  close(): Promise<void>;
}

/** Account ids are decimal integers (the `accounts.id` identity column). */
const ACCOUNT_ID = /^[1-9][0-9]{0,18}$/u;

/**
 * Starts a change feed: opens a connection, `LISTEN`s, and tells every subscriber each committed change; opens a
 * lost connection again after a pause that doubles from `retryMinMs` to `retryMaxMs`, telling `missed` once it
 * listens again (and at the first start, which costs nothing: nothing is kept yet).
 *
 * @param options - How to connect, the pauses, and who is told about the state.
 * @returns The feed; it connects in the background.
 * @example
 * ```ts
 * const feed = startChangeFeed({ connect: () => new pg.Client({ connectionString }) });
 * await feed.whenListening();
 * ```
 */
export function startChangeFeed(options: ChangeFeedOptions): ChangeFeed {
  const retryMinMs = Math.max(1, options.retryMinMs ?? 100);
  const retryMaxMs = Math.max(retryMinMs, options.retryMaxMs ?? 5_000);
  const listeners = new Set<(change: AccountChange) => void>();
  let connection: ListenConnection | null = null;
  let isListening = false;
  let closed = false;
  let pause = retryMinMs;
  let timer: NodeJS.Timeout | null = null;
  let waiting: (() => void)[] = [];

  const tell = (change: AccountChange): void => {
    for (const listener of [...listeners]) {
      try {
        listener(change);
      } catch {
        // one subscriber's failure neither stops the feed nor the others
      }
    }
  };

  const lost = (which: ListenConnection): void => {
    if (connection !== which) return;
    connection = null;
    if (isListening) options.onState?.('disconnected');
    isListening = false;
    void which.end().catch(() => undefined);
    if (closed) return;
    timer = setTimeout(open, pause);
    timer.unref();
    pause = Math.min(retryMaxMs, pause * 2);
  };

  function open(): void {
    timer = null;
    if (closed) return;
    const attempt = options.connect();
    connection = attempt;
    attempt.on('error', () => lost(attempt));
    attempt.on('end', () => lost(attempt));
    attempt.on('notification', (message) => {
      // a connection given up on is no longer heard (what it still delivers was told as `missed` on reconnecting)
      if (connection !== attempt || message.channel !== ACCOUNT_CHANGES_CHANNEL) return;
      const userId = message.payload ?? '';
      // a payload that is not an account id (another writer on the channel) is a change to something: forget all
      tell(ACCOUNT_ID.test(userId) ? { kind: 'account', userId } : { kind: 'missed' });
    });
    attempt
      .connect()
      .then(() => attempt.query(`LISTEN ${ACCOUNT_CHANGES_CHANNEL}`))
      .then(
        () => {
          if (connection !== attempt || closed) return;
          isListening = true;
          pause = retryMinMs;
          options.onState?.('listening');
          tell({ kind: 'missed' });
          const resolved = waiting;
          waiting = [];
          for (const done of resolved) done();
        },
        () => lost(attempt),
      );
  }

  open();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    listening: () => isListening,
    whenListening: () => (isListening ? Promise.resolve() : new Promise<void>((done) => waiting.push(done))),
    async close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      const current = connection;
      connection = null;
      isListening = false;
      listeners.clear();
      if (current !== null) await current.end().catch(() => undefined);
    },
  };
}

/**
 * Starts a {@link ChangeFeed} on a PostgreSQL server through node-postgres, with its own connection (never one of
 * the pool's: a pooled connection is shared and released, and a `LISTEN` must stay on one session).
 *
 * @param connectionString - The database URL, the same as the store's.
 * @param onState - Told when the feed starts or stops listening.
 * @returns The feed.
 * @example
 * ```ts
 * const feed = await openNodePostgresChangeFeed(process.env.DATABASE_URL ?? '');
 * ```
 */
export async function openNodePostgresChangeFeed(connectionString: string, onState?: (state: 'listening' | 'disconnected') => void): Promise<ChangeFeed> {
  const pg = await import('pg');
  const ClientClass = pg.default.Client;
  // TCP keepalive: a connection whose server vanished without a word is found dead and opened again
  return startChangeFeed({ connect: () => new ClientClass({ connectionString, keepAlive: true }), ...(onState === undefined ? {} : { onState }) });
}
