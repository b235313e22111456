/**
 * Tells a database that cannot be reached from one that answered with an error. The server driver rejects a
 * connection-level failure (refused, reset or timed out connections, the server shutting down or starting up, a
 * connection lost mid-statement, a pool that could not hand out a connection in time) with one error,
 * {@link DATABASE_UNAVAILABLE}, so the server answers it `503` with `Retry-After` rather than `500`: the request may
 * simply be sent again once the database is back. Every other failure (a constraint, a syntax error) keeps its own.
 *
 * @module
 */

/**
 * The `code` of the error a store rejects with when its database cannot be reached.
 *
 * @example
 * ```ts
 * DATABASE_UNAVAILABLE; // 'database_unavailable'
 * ```
 */
export const DATABASE_UNAVAILABLE = 'database_unavailable';

/** Socket errors of a connection to the server (a Unix socket path that is gone reports `ENOENT`). */
const SOCKET_ERRORS: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOENT',
]);

/**
 * SQLSTATEs of a server that is going or not yet there (PostgreSQL Appendix A): `57P01` admin_shutdown (a fast or
 * smart stop), `57P02` crash_shutdown (another backend crashed), `57P03` cannot_connect_now (starting up, recovering),
 * and class `08` connection exceptions.
 */
const UNAVAILABLE_STATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03']);

/** What node-postgres and its pool say when a connection ends, times out or is unusable. */
const CONNECTION_MESSAGES =
  /^(?:Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|Cannot use a pool after calling end on the pool)/u;

/**
 * Whether a driver's failure means the database cannot be reached (see the module documentation).
 *
 * @param error - What the driver rejected with.
 * @returns `true` for a connection-level failure; `false` for an answer of the database, and for anything else.
 * @example
 * ```ts
 * isConnectionFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })); // true
 * isConnectionFailure(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })); // true
 * isConnectionFailure(Object.assign(new Error('duplicate key value'), { code: '23505' })); // false
 * ```
 */
export function isConnectionFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code: unknown = 'code' in error ? error.code : undefined;
  if (code === DATABASE_UNAVAILABLE) return true;
  if (typeof code === 'string' && (SOCKET_ERRORS.has(code) || UNAVAILABLE_STATES.has(code) || /^08[0-9A-Z]{3}$/u.test(code))) return true;
  // a host name with several addresses: Node reports each refused attempt inside one AggregateError
  if (error instanceof AggregateError) return error.errors.length > 0 && error.errors.every(isConnectionFailure);
  return error instanceof Error && CONNECTION_MESSAGES.test(error.message);
}

/**
 * `error` as the store reports it: a connection-level failure becomes one error with code
 * {@link DATABASE_UNAVAILABLE} (name `DatabaseUnavailable`, the driver's error as its `cause`); anything else is
 * returned as it is.
 *
 * @param error - What the driver rejected with.
 * @returns The error to reject with.
 * @example
 * ```ts
 * const reported = classifyDriverFailure(Object.assign(new Error('Connection terminated unexpectedly'), {}));
 * reported; // Error { name: 'DatabaseUnavailable', code: 'database_unavailable', cause: … }
 * ```
 */
export function classifyDriverFailure(error: unknown): unknown {
  if (!isConnectionFailure(error)) return error;
  if (typeof error === 'object' && error !== null && 'code' in error && error.code === DATABASE_UNAVAILABLE) return error;
  return Object.assign(new Error('The database cannot be reached.', { cause: error }), { name: 'DatabaseUnavailable', code: DATABASE_UNAVAILABLE });
}
