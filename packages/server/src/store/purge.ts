/**
 * The periodic purge: expired sessions, authorization codes past their replay grace, expired OAuth tokens, expired
 * ephemeral entries (flow state, SAML request ids, throttle records), expired account links (used or not) and audit
 * entries past their retention are
 * removed from the store in bounded batches on a timer that never keeps the process alive. The
 * cutoffs are the core's `purgeCutoffs`; the store removes (its `purge…` methods).
 *
 * @module
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { purgeCutoffs } from 'gatehouse-auth';
import type { Store } from './types.js';

/**
 * How many records one purge run removed.
 *
 * @example
 * ```ts
 * const report: PurgeReport = { sessions: 3, authorizationCodes: 0, oauthTokens: 0, ephemeral: 7, accountLinks: 2, auditEntries: 120 };
 * ```
 */
export interface PurgeReport {
  /** Expired browser sessions removed. */
  readonly sessions: number;
  /** Expired OAuth authorization codes removed. */
  readonly authorizationCodes: number;
  /** Expired OAuth access and refresh tokens removed. */
  readonly oauthTokens: number;
  /** Expired ephemeral entries removed (flow state, SAML request ids, sign-in throttle records). */
  readonly ephemeral: number;
  /** Expired account links removed (email verification, password reset …), used or not. */
  readonly accountLinks: number;
  /** Audit entries past their retention removed. */
  readonly auditEntries: number;
}

/**
 * What {@link createPurger} needs.
 *
 * @example
 * ```ts
 * const options: PurgerOptions = { store, now: Date.now, auditRetentionDays: 90, intervalMs: 60_000, batchSize: 1_000, onError: console.error };
 * ```
 * @internal
 */
export interface PurgerOptions {
  /** The store to purge. */
  readonly store: Store;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** How many days audit entries are kept after their last occurrence. */
  readonly auditRetentionDays: number;
  /** Time between runs, in milliseconds. */
  readonly intervalMs: number;
  /** The most records one batch removes; a run repeats full batches, yielding to the event loop between them. */
  readonly batchSize: number;
  /** Called when a timed run fails (the store rejected); the next run tries again. */
  readonly onError: (error: unknown) => void;
}

/**
 * A running purge timer.
 *
 * @example
 * ```ts
 * const purger = createPurger(options);
 * await purger.run(); // { sessions: 0, authorizationCodes: 0, oauthTokens: 0, ephemeral: 0, accountLinks: 0, auditEntries: 0 }
 * purger.stop();
 * ```
 * @internal
 */
export interface Purger {
  /** Runs one purge now (batches until none is full), resolving with what it removed. */
  run(): Promise<PurgeReport>;
  /** Stops the timer; a run in progress ends after its current batch. */
  stop(): void;
}

/**
 * Starts the purge timer (unreferenced: it never keeps the process alive). Runs never overlap: a tick that comes
 * while a run is in progress is skipped.
 *
 * @param options - Store, clock, retention, interval, batch size and error sink.
 * @returns The purger.
 * @example
 * ```ts
 * const purger = createPurger({ store, now: Date.now, auditRetentionDays: 90, intervalMs: 60_000, batchSize: 1_000, onError: () => {} });
 * ```
 * @internal
 */
export function createPurger(options: PurgerOptions): Purger {
  const { store, now, batchSize } = options;
  let stopped = false;
  let running: Promise<PurgeReport> | null = null;

  const drain = async (batch: () => Promise<number>): Promise<number> => {
    let total = 0;
    for (;;) {
      const removed = await batch();
      total += removed;
      if (removed < batchSize || stopped) return total;
      await yieldToEventLoop();
    }
  };

  const runOnce = async (): Promise<PurgeReport> => {
    const cutoffs = purgeCutoffs({ now: now(), auditRetentionDays: options.auditRetentionDays });
    if (cutoffs.isErr()) return { sessions: 0, authorizationCodes: 0, oauthTokens: 0, ephemeral: 0, accountLinks: 0, auditEntries: 0 };
    const c = cutoffs.value;
    const sessions = await drain(() => store.sessions.purgeExpired(c.sessionsExpiredBy, batchSize));
    const authorizationCodes = await drain(() => store.oauth.purgeAuthorizationCodes(c.authorizationCodesExpiredBy, batchSize));
    const oauthTokens = await drain(() => store.oauth.purgeTokens(c.sessionsExpiredBy, batchSize));
    const ephemeral = await drain(() => store.ephemeral.purgeExpired(c.sessionsExpiredBy, batchSize));
    // a link no longer works from its expiry on, as a session (the core's `decideAccountLinkUse`)
    const accountLinks = await drain(() => store.links.purgeExpired(c.sessionsExpiredBy, batchSize));
    const auditEntries = await drain(() => store.audit.purge(c.auditBefore, batchSize));
    return { sessions, authorizationCodes, oauthTokens, ephemeral, accountLinks, auditEntries };
  };

  const run = (): Promise<PurgeReport> => {
    if (running !== null) return running;
    const current = runOnce().finally(() => {
      running = null;
    });
    running = current;
    return current;
  };

  const timer = setInterval(() => {
    if (running !== null || stopped) return;
    run().catch(options.onError);
  }, options.intervalMs);
  timer.unref();

  return {
    run,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
