/**
 * The mail key file beside the embedded database's files (`run/mail-key.ts`): a data directory holding only
 * `mail.key` (its database files removed) is a first start, so a seed is unpacked into it, and the key is kept as
 * it was, private.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAIL_KEY_FILE } from '../../../src/run/mail-key.js';
import { BESIDE_DATABASE_FILES, openPgliteDriver } from '../../../src/store/postgres/pglite.js';
import { temporaryDirectory } from '../../helpers/temporary-directory.js';

/** A gzipped ustar archive of one regular file. */
function oneFileArchive(path: string, content: string): Uint8Array {
  const header = Buffer.alloc(512);
  header.write(path, 0, 100, 'utf8');
  header.write('0000600\0', 100, 'ascii');
  header.write(`${Buffer.byteLength(content).toString(8).padStart(11, '0')}\0`, 124, 'ascii');
  header.write('0', 156, 'ascii');
  header.write('ustar\0', 257, 'ascii');
  const body = Buffer.alloc(Math.ceil(Buffer.byteLength(content) / 512) * 512);
  body.write(content, 0, 'utf8');
  return new Uint8Array(gzipSync(Buffer.concat([header, body, Buffer.alloc(1024)])));
}

describe('mail.key in the embedded data directory', () => {
  it('should be a file the first-start check ignores', () => {
    expect(BESIDE_DATABASE_FILES.has(MAIL_KEY_FILE)).toBe(true);
  });

  it('should take a directory holding only mail.key as a first start: the seed is unpacked beside the key, which stays as it was', async () => {
    const dataDir = join(temporaryDirectory('gatehouse-mail-key-dir-'), 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    const key = `${'5a'.repeat(32)}\n`;
    writeFileSync(join(dataDir, MAIL_KEY_FILE), key, { mode: 0o600 });
    // a seed holding one marker file: found in the directory only if the seed was unpacked (PGlite then runs initdb)
    const driver = await openPgliteDriver({ dataDir }, { seed: oneFileArchive('seeded-marker', 'x') });
    expect(await driver.query('SELECT 1 AS one')).toStrictEqual([{ one: 1 }]);
    await driver.close();
    expect(existsSync(join(dataDir, 'seeded-marker'))).toBe(true);
    expect(readFileSync(join(dataDir, MAIL_KEY_FILE), 'utf8')).toBe(key);
    expect(statSync(join(dataDir, MAIL_KEY_FILE)).mode & 0o777).toBe(0o600);
  }, 180_000);
});
