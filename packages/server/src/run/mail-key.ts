/**
 * Where the key sealing queued mail (`store/sealed-mail.ts`) comes from, first match wins:
 * 1. `GATEHOUSE_MAIL_KEY` (32 bytes as 64 hex digits or in base64, {@link parseMailKey}): the same on every instance
 *    on one PostgreSQL server, so each can send the others' mail, and across restarts;
 * 2. `GATEHOUSE_CREDENTIALS_KEY`, from which a mail key of its own is derived;
 * 3. on the embedded store, `mail.key` in its data directory, made at the first start (mode `0600`, 32 random bytes
 *    as 64 hex digits) and read at every later one, so mail queued before a restart is still sent after it;
 * 4. otherwise a random key of this process (`gatehouse serve` warns when mail is on).
 *
 * The database never holds the key. The key file is outside PGlite's own files: PostgreSQL ignores a file it does
 * not know in its data directory, and the embedded store's "is the directory empty" check (a first start, when a
 * seed is unpacked) ignores this one.
 *
 * @module
 */
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The file's name in the data directory. */
export const MAIL_KEY_FILE = 'mail.key';

/** What {@link readOrCreateMailKey} found. */
export type MailKeyFile =
  /** The key, and whether this start made the file. */
  | { readonly kind: 'key'; readonly key: Uint8Array; readonly created: boolean }
  /** The file could not be made or read, or does not hold 64 hex digits. */
  | { readonly kind: 'failed'; readonly message: string };

const HEX_KEY = /^[0-9a-f]{64}$/u;

/**
 * Reads `GATEHOUSE_MAIL_KEY`: 32 bytes as 64 hex digits, or in base64 (standard or URL-safe, padding optional).
 * The message of a refusal never shows the value.
 *
 * @param text - The variable's value (not empty).
 * @returns The 32 bytes, or a message saying what is expected.
 * @example
 * ```ts
 * parseMailKey('ab'.repeat(32)); // Uint8Array(32)
 * parseMailKey('secret'); // { error: 'GATEHOUSE_MAIL_KEY must be 32 random bytes …' }
 * ```
 */
export function parseMailKey(text: string): Uint8Array | { readonly error: string } {
  if (/^[0-9a-fA-F]{64}$/u.test(text)) return new Uint8Array(Buffer.from(text, 'hex'));
  const unpadded = text.replace(/={0,2}$/u, '');
  if (/^[A-Za-z0-9+/]{43}$/u.test(unpadded) || /^[A-Za-z0-9_-]{43}$/u.test(unpadded)) {
    const bytes = Buffer.from(unpadded, unpadded.includes('-') || unpadded.includes('_') ? 'base64url' : 'base64');
    // canonical only: the last character's unused bits are zero, so one key has one text
    if (bytes.length === 32 && bytes.toString('base64').replace(/=+$/u, '') === unpadded.replace(/-/gu, '+').replace(/_/gu, '/')) return new Uint8Array(bytes);
  }
  return { error: 'GATEHOUSE_MAIL_KEY must be 32 random bytes as 64 hex digits or in base64 (for example: openssl rand -hex 32), the same on every instance' };
}

/**
 * Reads the mail key file of a data directory, making it (`0600`, exclusive create) when it is missing. Never
 * rejects.
 *
 * @param dataDir - The embedded store's data directory (it exists once the store is open).
 * @param randomBytes - The random source (32 bytes, when the file is made).
 * @returns The key, or why not.
 * @example
 * ```ts
 * const found = await readOrCreateMailKey('/srv/.gatehouse/data', (n) => new Uint8Array(randomBytes(n)));
 * if (found.kind === 'key') createGatehouseServer({ store, mailKey: found.key });
 * ```
 */
export async function readOrCreateMailKey(dataDir: string, randomBytes: (n: number) => Uint8Array): Promise<MailKeyFile> {
  const path = join(dataDir, MAIL_KEY_FILE);
  try {
    const handle = await open(path, 'wx', 0o600);
    const key = randomBytes(32);
    try {
      await handle.writeFile(`${Buffer.from(key).toString('hex')}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return { kind: 'key', key, created: true };
  } catch (error: unknown) {
    if (!(typeof error === 'object' && error !== null && 'code' in error && error.code === 'EEXIST')) {
      return { kind: 'failed', message: `cannot make ${path}: ${describe(error)}` };
    }
  }
  const text = await readFile(path, 'utf8').catch((error: unknown) => ({ failed: describe(error) }));
  if (typeof text !== 'string') return { kind: 'failed', message: `cannot read ${path}: ${text.failed}` };
  const hex = text.trim();
  if (!HEX_KEY.test(hex)) return { kind: 'failed', message: `${path} does not hold a key (64 hex digits); delete it to make a new one (mail still queued is then dropped)` };
  return { kind: 'key', key: new Uint8Array(Buffer.from(hex, 'hex')), created: false };
}

const describe = (error: unknown): string =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : String(error);
