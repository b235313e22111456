/**
 * Audited changes (spec §6): a change and its audit entry are written in one store transaction, so either both
 * are kept or neither is. When the entry cannot be written the transaction rejects, the change is undone, and the
 * request fails as the server's own failure (a generic 500 or GraphQL error): never a change without its entry.
 *
 * A store may run a transaction's work again after a serialization conflict, so the work does nothing but store
 * operations; what must happen once the change is kept (the `audit` log line of each entry) is queued with
 * {@link afterCommit} and run by {@link auditedTransaction} after the transaction committed.
 *
 * @module
 */
import type { Result } from 'neverthrow';
import type { AuditEvent, AuditStore } from './types.js';

/**
 * What an audit entry is written into: a `Store`, or the store of one of its transactions.
 *
 * @example
 * ```ts
 * const into: AuditTarget = store;
 * ```
 */
export interface AuditTarget {
  /** The audit log. */
  readonly audit: Pick<AuditStore, 'append'>;
}

/**
 * A store with transactions whose work gets a store of the same kind (a `Store`, or a part of one).
 *
 * @example
 * ```ts
 * const transactional: Transactional<Store> = store;
 * ```
 */
export interface Transactional<S> {
  /** Runs `work` as one serializable transaction (see `Store.transaction`). */
  transaction<T, E>(work: (store: S) => Promise<Result<T, E>>): Promise<Result<T, E>>;
}

/**
 * Records an audit entry into `into`: the store of the transaction that makes the change, so the entry commits or
 * is undone with it (the server's store itself for an event that changes nothing, such as a refused sign-in).
 *
 * @example
 * ```ts
 * const audit: AuditSink = async (event, into) => void (await into.audit.append({ ...event, timestamp: Date.now() }));
 * ```
 */
export type AuditSink = (event: AuditEvent, into: AuditTarget) => Promise<void>;

/** The effects queued on each open transaction's store, run once it commits. */
const pending = new WeakMap<object, (() => void)[]>();

/**
 * Runs `effect` once the transaction of `store` commits, when `store` is one that {@link auditedTransaction} opened;
 * at once otherwise (the change is already kept). An undone transaction drops its effects.
 *
 * @param store - The store the change was written to.
 * @param effect - What to do once it is kept (it must not throw).
 * @returns Nothing.
 *
 * @example
 * ```ts
 * afterCommit(tx, () => log({ level: 'info', event: 'audit', id: stored.id }));
 * ```
 */
export function afterCommit(store: object, effect: () => void): void {
  const queue = pending.get(store);
  if (queue === undefined) effect();
  else queue.push(effect);
}

/**
 * Runs `work` in one transaction of `store`: the change and its audit entries (written with an {@link AuditSink}
 * into the store `work` is given) are kept together when `work` resolves `ok`, and all undone when it resolves
 * `err` or rejects, as when the audit entry cannot be written. The effects queued with {@link afterCommit} run
 * after the commit, once, whatever number of times the store ran the work.
 *
 * @param store - The server's store.
 * @param work - The change and its audit entries, on the transaction's store.
 * @returns What `work` resolved; rejects when it or the store rejects (nothing is kept then).
 *
 * @example
 * ```ts
 * const deleted = await auditedTransaction(store, async (tx) => {
 *   const gone = await tx.accessTokens.delete(id);
 *   if (gone.isOk()) await audit({ entity: 'auth.accessToken', action: 'deleted', … }, tx);
 *   return gone;
 * });
 * ```
 */
export async function auditedTransaction<S extends object, T, E>(store: Transactional<S> & S, work: (tx: S) => Promise<Result<T, E>>): Promise<Result<T, E>> {
  const outer = pending.get(store);
  if (outer !== undefined) {
    // inside an audited transaction already: the effects wait for the outermost commit
    return store.transaction(async (tx) => {
      if (tx === store) return work(tx);
      pending.set(tx, outer);
      try {
        return await work(tx);
      } finally {
        pending.delete(tx);
      }
    });
  }
  let effects: (() => void)[] = [];
  const result = await store.transaction(async (tx) => {
    // a run the store repeats starts with no effects of the run before
    effects = [];
    pending.set(tx, effects);
    try {
      return await work(tx);
    } finally {
      pending.delete(tx);
    }
  });
  if (result.isOk()) for (const effect of effects) effect();
  return result;
}
