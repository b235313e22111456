/**
 * Queued mail at rest: the body of every mail in the outbox (a verification, reset, unlock or first administrator
 * link: a live token) is sealed with AES-256-GCM before it reaches the store, so reading the database (a backup, a
 * read-only user) yields no usable link; links themselves are kept only as digests. The key is derived with HKDF,
 * under a label of its own, from the server's `mailKey` (`GATEHOUSE_MAIL_KEY`, or the embedded store's `mail.key`)
 * or else its `credentialsKey` (`GATEHOUSE_CREDENTIALS_KEY`), so it never opens anything sealed for another purpose;
 * the database never holds it. The recipient and subject are bound as additional authenticated data: a
 * sealed body moved to a mail addressed to someone else does not open.
 *
 * A sealed body names its key by a short id, so a sender can tell a mail sealed by another instance's key (leave it
 * to that instance) from a damaged one.
 *
 * @module
 */
import { hkdfSync } from 'node:crypto';
import { sha256 } from '../kernel/digest.js';
import { openSecret, sealSecret } from './credentials.js';

const PREFIX = 'm1';
const KEY_LABEL = 'gatehouse outbox mail body v1';
const IV_BYTES = 12;

/** The outbox's sealing key: 32 bytes and its id (16 hex digits of its SHA-256). */
export interface MailKey {
  /** The AES-256-GCM key. */
  readonly key: Uint8Array;
  /** Names the key in each sealed body; safe to log. */
  readonly id: string;
}

/** What opening a queued mail's body found. */
export type OpenedMail =
  /** The plain text. */
  | { readonly kind: 'opened'; readonly text: string }
  /** Sealed by another key (another instance's, or this server's before a restart without a fixed key). */
  | { readonly kind: 'other_key'; readonly keyId: string }
  /** Not a sealed body, or one that was changed, or moved to another recipient or subject. */
  | { readonly kind: 'unreadable' };

/**
 * The outbox key derived from the server's 32-byte `credentialsKey`.
 *
 * @param credentialsKey - 32 bytes.
 * @returns The key and its id.
 * @example
 * ```ts
 * const key = mailKeyOf(randomBytes(32));
 * key.id.length; // 16
 * ```
 */
export function mailKeyOf(credentialsKey: Uint8Array): MailKey {
  const key = new Uint8Array(hkdfSync('sha256', credentialsKey, new Uint8Array(0), KEY_LABEL, 32));
  return { key, id: Buffer.from(sha256(key)).toString('hex').slice(0, 16) };
}

const contextOf = (to: string, subject: string): string => JSON.stringify([to, subject]);

/**
 * Seals a mail's body for the outbox.
 *
 * @param key - The outbox key.
 * @param iv - 12 fresh random bytes.
 * @param mail - Recipient and subject (bound) and the body (sealed).
 * @returns `m1.<key id>.<sealed body>`, or `null` when the IV has the wrong length.
 * @example
 * ```ts
 * const sealed = sealMailText(key, randomBytes(12), { to: 'a@example.com', subject: 'Reset', text: 'Open https://…' });
 * openMailText(key, { to: 'a@example.com', subject: 'Reset', text: sealed ?? '' }); // { kind: 'opened', text: 'Open https://…' }
 * ```
 */
export function sealMailText(key: MailKey, iv: Uint8Array, mail: { readonly to: string; readonly subject: string; readonly text: string }): string | null {
  if (iv.length !== IV_BYTES) return null;
  const sealed = sealSecret(key.key, iv, mail.text, contextOf(mail.to, mail.subject));
  return sealed === null ? null : `${PREFIX}.${key.id}.${sealed}`;
}

/**
 * Opens the body of a queued mail.
 *
 * @param key - The outbox key.
 * @param mail - The queued mail's recipient, subject and sealed body.
 * @returns The text; `other_key` with the key id named; or `unreadable`. Never throws.
 * @example
 * ```ts
 * openMailText(key, { to: 'mallory@example.com', subject: 'Reset', text: sealed }); // { kind: 'unreadable' }
 * ```
 */
export function openMailText(key: MailKey, mail: { readonly to: string; readonly subject: string; readonly text: string }): OpenedMail {
  if (typeof mail.text !== 'string' || typeof mail.to !== 'string' || typeof mail.subject !== 'string') return { kind: 'unreadable' };
  const match = /^m1\.([0-9a-f]{16})\.(.*)$/su.exec(mail.text);
  if (match === null) return { kind: 'unreadable' };
  const [, keyId = '', sealed = ''] = match;
  if (keyId !== key.id) return { kind: 'other_key', keyId };
  // each part in canonical base64url only: one sealed text per ciphertext (the decoder would skip stray characters)
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[1] === '' || parts[2] === '' || parts.slice(1).some((part) => Buffer.from(part, 'base64url').toString('base64url') !== part)) return { kind: 'unreadable' };
  const text = openSecret(key.key, sealed, contextOf(mail.to, mail.subject));
  return text === null ? { kind: 'unreadable' } : { kind: 'opened', text };
}

/** The seal and open functions of one server's outbox, as the mail queue and the sender take them. */
export interface MailSealing {
  /** Seals a body for the outbox (`null` when the random source failed). */
  readonly seal: (mail: { readonly to: string; readonly subject: string; readonly text: string }) => string | null;
  /** Opens a queued mail's body. */
  readonly open: (mail: { readonly to: string; readonly subject: string; readonly text: string }) => OpenedMail;
}

/**
 * The outbox sealing of a server whose `credentialsKey` is `credentialsKey`.
 *
 * @param credentialsKey - 32 bytes (the server's `credentialsKey`).
 * @param randomBytes - The random source (12 bytes per mail, the IV).
 * @returns Seal and open.
 * @example
 * ```ts
 * const sealing = mailSealing(credentialsKey, (n) => new Uint8Array(randomBytes(n)));
 * const queue: MailQueue = { ...rest, seal: sealing.seal };
 * createMailSender({ ...options, open: sealing.open });
 * ```
 */
export function mailSealing(credentialsKey: Uint8Array, randomBytes: (n: number) => Uint8Array): MailSealing {
  const key = mailKeyOf(credentialsKey);
  return { seal: (mail) => sealMailText(key, randomBytes(IV_BYTES), mail), open: (mail) => openMailText(key, mail) };
}
