/**
 * The pieces of the "kept only with its audit entry" tables (`store/audited-changes.test.ts`,
 * `store/audited-lifecycle.test.ts`): a store whose audit log refuses every append on demand, and how an operation's
 * answer tells the server's own failure from a refusal.
 */
import type { Store } from '../../src/store/types.js';

/**
 * A store whose audit log refuses every append while `failing.on`, in its transactions too.
 *
 * @example
 * ```ts
 * const failing = { on: true };
 * const store = withFailingAudit(createMemoryStore(), failing);
 * ```
 */
export function withFailingAudit(store: Store, failing: { on: boolean }): Store {
  const append: Store['audit']['append'] = (entry) => (failing.on ? Promise.reject(new Error('the audit log is unavailable')) : store.audit.append(entry));
  return {
    ...store,
    audit: { ...store.audit, append },
    transaction: (work) => store.transaction((tx) => work(withFailingAudit(tx, failing))),
  };
}

/** What one operation answered: a failure of the server's own, or not. */
export type Answer = { readonly failed: boolean; readonly detail: string };

/** A page or route's answer: failed when 5xx. */
export const byStatus = async (res: Response): Promise<Answer> => ({ failed: res.status >= 500, detail: `${res.status} ${(await res.text()).slice(0, 200)}` });

/** A GraphQL answer: failed when it is the server's own `INTERNAL_SERVER_ERROR` (not a mutation saying the audit log is unavailable). */
export const byGraphQL = (answer: { text: string }): Answer => ({
  failed: /"code":"INTERNAL_SERVER_ERROR"/.test(answer.text) && !/audit log is unavailable/.test(answer.text),
  detail: answer.text.slice(0, 300),
});

/** An operation called directly: failed when it rejects. */
export const byRejection = async (run: () => Promise<unknown>): Promise<Answer> => {
  try {
    const value = await run();
    return { failed: false, detail: JSON.stringify(value).slice(0, 200) };
  } catch (error) {
    return { failed: true, detail: String(error) };
  }
};
