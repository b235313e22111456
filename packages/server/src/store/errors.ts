/**
 * Reports store failures: a view of a store whose every method, when it throws or its promise rejects, logs a
 * `store_error` event naming the operation (never its arguments), the error's class and the database's error
 * code (a PostgreSQL SQLSTATE such as `40001` or `57P01`, or a connection error such as `ECONNREFUSED`; never the
 * message, which can quote the values of a row), and then fails as before. A `Result` error (a taken username,
 * an unknown id) is an answer, not a failure, and is not reported.
 *
 * @module
 */
import type { LogEntry } from '../kernel/logging.js';
import type { Store } from './types.js';

/**
 * Wraps `store` and each of its groups so that failures are logged, each under the operation's name: the group
 * and the method (`accounts.get`, `oauth.findApp`), or the method of the store itself (`transaction`). A
 * transaction's work is given the underlying store's transaction view, not a watched one: a failure inside it is
 * reported once, as `transaction`.
 *
 * @param store - The store.
 * @param log - The log sink.
 * @returns A store that behaves as `store` does.
 *
 * @example
 * ```ts
 * const watched = reportStoreErrors(createMemoryStore(), log);
 * await watched.accounts.get('1'); // a rejection logs { event: 'store_error', operation: 'accounts.get', … }
 * ```
 */
export function reportStoreErrors(store: Store, log: (entry: LogEntry) => void): Store {
  return watched(store, log, '');
}

/** `store` with every method reporting its failures as `prefix` + its name, and every object held watched too. */
function watched<S extends object>(store: S, log: (entry: LogEntry) => void, prefix: string): S {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof property !== 'string') return value;
      const known = wrapped.get(property);
      if (known !== undefined && (known as { readonly original?: unknown }).original === value) return (known as { readonly view: unknown }).view;
      const operation = `${prefix}${property}`;
      const fail = (error: unknown): void => {
        log({ level: 'error', event: 'store_error', operation, name: error instanceof Error ? error.name : typeof error, code: storeErrorCode(error) });
      };
      let view: unknown = value;
      if (typeof value === 'function') {
        view = (...args: unknown[]): unknown => {
          let result: unknown;
          try {
            result = Reflect.apply(value, target, args);
          } catch (error) {
            fail(error);
            throw error;
          }
          if (result instanceof Promise) {
            return result.catch((error: unknown) => {
              fail(error);
              throw error;
            });
          }
          return result;
        };
      } else if (typeof value === 'object' && value !== null) {
        view = watched(value, log, `${operation}.`);
      }
      wrapped.set(property, { original: value, view });
      return view;
    },
  });
}

/** What an error code looks like: a SQLSTATE (`23505`, `57P01`) or a Node error code (`ECONNREFUSED`), nothing longer. */
const ERROR_CODE = /^[A-Za-z0-9_]{1,40}$/u;

/**
 * The database's code for a failure: the error's own `code` (node-postgres and PGlite carry the SQLSTATE there,
 * Node's network errors their `E…` code), else its `cause`'s; `null` when neither is a short code.
 *
 * @param error - What the store threw or rejected with.
 * @returns The code, or `null`.
 *
 * @example
 * ```ts
 * storeErrorCode(Object.assign(new Error('relation "x" does not exist'), { code: '42P01' })); // '42P01'
 * storeErrorCode(new Error('boom')); // null
 * ```
 */
export function storeErrorCode(error: unknown): string | null {
  for (let current: unknown = error, depth = 0; typeof current === 'object' && current !== null && depth < 3; depth++) {
    const code: unknown = (current as { readonly code?: unknown }).code;
    if (typeof code === 'string' && ERROR_CODE.test(code)) return code;
    current = (current as { readonly cause?: unknown }).cause;
  }
  return null;
}
