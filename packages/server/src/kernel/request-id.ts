/**
 * Request ids: UUID-shaped (8-4-4-4-12 hex digits, as the logs and `X-Request-Id` show them), made without a call to
 * the random source per request: each generator draws one random UUID and counts up in its last group (48 bits from a
 * random start), so ids stay unique within the process and, by the random rest, between processes. A request id
 * names a request in the logs; it is no secret and grants nothing.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';

/** Ids a generator hands out before it draws a new random base. */
const IDS_PER_BASE = 2 ** 32;

/**
 * Creates a request id generator.
 *
 * @returns A function answering a new id on each call.
 *
 * @example
 * ```ts
 * const nextRequestId = createRequestIds();
 * nextRequestId(); // '1b4e28ba-2fa1-41d2-883f-0016d3cca427'
 * ```
 */
export function createRequestIds(): () => string {
  let prefix = '';
  let counter = 0;
  let left = 0;
  return () => {
    if (left === 0) {
      const base = randomUUID();
      prefix = base.slice(0, 24);
      // a random start below 2^48 - 2^32, so that counting up never leaves the 12 hex digits
      counter = Number.parseInt(base.slice(24), 16) % (2 ** 48 - IDS_PER_BASE);
      left = IDS_PER_BASE;
    }
    left--;
    counter++;
    return prefix + counter.toString(16).padStart(12, '0');
  };
}
