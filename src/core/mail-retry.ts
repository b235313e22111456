/**
 * Outgoing mail's retries and bound: when a mail that failed is tried again (exponential backoff with a ceiling), when
 * it is given up, and whether a queue holding `queued` mails takes one more. Pure: the clock is passed in.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match } from 'ts-pattern';

/**
 * Attempts at one mail before it is given up (about 2 hours of retries at the default delays).
 *
 * @example
 * ```ts
 * DEFAULT_MAIL_MAX_ATTEMPTS; // 8
 * ```
 */
export const DEFAULT_MAIL_MAX_ATTEMPTS = 8;

/**
 * The pause after the first failed attempt, in milliseconds; each further failure doubles it.
 *
 * @example
 * ```ts
 * DEFAULT_MAIL_RETRY_BASE_MS; // 30_000
 * ```
 */
export const DEFAULT_MAIL_RETRY_BASE_MS = 30_000;

/**
 * The longest pause between two attempts, in milliseconds (one hour).
 *
 * @example
 * ```ts
 * DEFAULT_MAIL_RETRY_MAX_MS; // 3_600_000
 * ```
 */
export const DEFAULT_MAIL_RETRY_MAX_MS = 3_600_000;

/**
 * The most mails the queue holds; a mail beyond it is refused (and logged), never the action that asked for it.
 *
 * @example
 * ```ts
 * DEFAULT_MAIL_QUEUE_CAPACITY; // 1_000
 * ```
 */
export const DEFAULT_MAIL_QUEUE_CAPACITY = 1_000;

/** What the retry decision reads. */
export interface MailRetryInput {
  /** Attempts made so far, the failed one included (1 or more). */
  readonly attempts: number;
  /** Attempts allowed in all (1 or more). */
  readonly maxAttempts: number;
  /** The pause after the first failure, in milliseconds (0 or more). */
  readonly baseDelayMs: number;
  /** The longest pause, in milliseconds (at least `baseDelayMs`). */
  readonly maxDelayMs: number;
  /** The time of the failure, milliseconds since the epoch. */
  readonly now: number;
}

/** What happens to a mail after a failed attempt. */
export type MailRetryDecision =
  | { readonly kind: 'retry'; readonly delayMs: number; readonly nextAttemptAt: number }
  | { readonly kind: 'give_up'; readonly reason: 'max_attempts' };

/** An input of {@link decideMailRetry} or {@link decideMailEnqueue} out of its range. */
export interface MailQueueInputError {
  /** Always `invalid_input`. */
  readonly code: 'invalid_input';
  /** Which field. */
  readonly field: string;
}

const count = (value: unknown, min: number): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= min;
const time = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * Decides what happens after attempt number `attempts` failed: given up once `attempts` reaches `maxAttempts`, else
 * tried again after `min(maxDelayMs, baseDelayMs × 2^(attempts − 1))`.
 *
 * @param input - The attempts, the bounds and the time.
 * @returns `ok` with the decision, or `err` naming the field out of range. Never throws.
 *
 * @example
 * ```ts
 * decideMailRetry({ attempts: 3, maxAttempts: 8, baseDelayMs: 1_000, maxDelayMs: 60_000, now: 0 });
 * // ok({ kind: 'retry', delayMs: 4_000, nextAttemptAt: 4_000 })
 * decideMailRetry({ attempts: 8, maxAttempts: 8, baseDelayMs: 1_000, maxDelayMs: 60_000, now: 0 });
 * // ok({ kind: 'give_up', reason: 'max_attempts' })
 * ```
 */
export function decideMailRetry(input: MailRetryInput): Result<MailRetryDecision, MailQueueInputError> {
  if (typeof input !== 'object' || input === null) return err({ code: 'invalid_input', field: 'input' });
  if (!count(input.attempts, 1)) return err({ code: 'invalid_input', field: 'attempts' });
  if (!count(input.maxAttempts, 1)) return err({ code: 'invalid_input', field: 'maxAttempts' });
  if (!time(input.baseDelayMs) || input.baseDelayMs < 0) return err({ code: 'invalid_input', field: 'baseDelayMs' });
  if (!time(input.maxDelayMs) || input.maxDelayMs < input.baseDelayMs) return err({ code: 'invalid_input', field: 'maxDelayMs' });
  if (!time(input.now)) return err({ code: 'invalid_input', field: 'now' });
  const { attempts, maxAttempts, baseDelayMs, maxDelayMs, now } = input;
  return ok(
    match(attempts >= maxAttempts)
      .returnType<MailRetryDecision>()
      .with(true, () => ({ kind: 'give_up', reason: 'max_attempts' }))
      .with(false, () => {
        // 2^52 and more would lose precision; the ceiling is reached long before
        const delayMs = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.min(attempts - 1, 52));
        return { kind: 'retry', delayMs, nextAttemptAt: now + delayMs };
      })
      .exhaustive(),
  );
}

/** Whether the queue takes one more mail. */
export type MailEnqueueDecision = { readonly kind: 'accept' } | { readonly kind: 'refuse'; readonly reason: 'queue_full' };

/**
 * Decides whether a queue holding `queued` mails takes one more: only while `queued < capacity`.
 *
 * @param queued - Mails in the queue now (0 or more).
 * @param capacity - The bound (1 or more).
 * @returns `ok` with the decision, or `err` when a count is out of range.
 *
 * @example
 * ```ts
 * decideMailEnqueue(999, 1_000); // ok({ kind: 'accept' })
 * decideMailEnqueue(1_000, 1_000); // ok({ kind: 'refuse', reason: 'queue_full' })
 * ```
 */
export function decideMailEnqueue(queued: number, capacity: number): Result<MailEnqueueDecision, MailQueueInputError> {
  if (!count(queued, 0)) return err({ code: 'invalid_input', field: 'queued' });
  if (!count(capacity, 1)) return err({ code: 'invalid_input', field: 'capacity' });
  return ok(queued < capacity ? { kind: 'accept' } : { kind: 'refuse', reason: 'queue_full' });
}
