/**
 * The key file of the embedded store's mail queue: without `GATEHOUSE_CREDENTIALS_KEY`, a server on the embedded
 * database seals queued mail (`store/sealed-mail.ts`) with a key kept in `mail.key` in its data directory, made at
 * the first start (mode `0600`, 32 random bytes as 64 hex digits) and read at every later one, so mail queued before
 * a restart is still sent after it. The database's tables never hold the key; the file is outside PGlite's own
 * files (PostgreSQL ignores a file it does not know in its data directory).
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
