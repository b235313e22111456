/**
 * Reports store failures: a view of a store whose every method, when it throws or its promise rejects, logs a
 * `store_error` event naming the operation (never its arguments) and then fails as before. A `Result` error
 * (a taken username, an unknown id) is an answer, not a failure, and is not reported.
 *
 * @module
 */
import type { LogEntry } from './logging.js';

/**
 * Wraps `store` (and the objects it holds, such as its OAuth store) so that failures are logged.
 *
 * @param store - The store.
 * @param log - The log sink.
 * @param prefix - Operation name prefix for nested stores.
 * @returns A store that behaves as `store` does.
 *
 * @example
 * ```ts
 * const watched = reportStoreErrors(createMemoryStore(), log);
 * ```
 */
export function reportStoreErrors<S extends object>(store: S, log: (entry: LogEntry) => void, prefix = ''): S {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof property !== 'string') return value;
      const known = wrapped.get(property);
      if (known !== undefined && (known as { readonly original?: unknown }).original === value) return (known as { readonly view: unknown }).view;
      const operation = `${prefix}${property}`;
      const fail = (error: unknown): void => {
        log({ level: 'error', event: 'store_error', operation, name: error instanceof Error ? error.name : typeof error });
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
        view = reportStoreErrors(value, log, `${operation}.`);
      }
      wrapped.set(property, { original: value, view });
      return view;
    },
  });
}
