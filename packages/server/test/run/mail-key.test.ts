/**
 * The embedded store's mail key file: made `0600` at the first start, read at the next, so mail sealed before a
 * restart opens after it; a file that holds no key is refused with a message naming it.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAIL_KEY_FILE, readOrCreateMailKey } from '../../src/run/mail-key.js';
import { mailSealing } from '../../src/store/sealed-mail.js';
import { temporaryDirectory } from '../helpers/temporary-directory.js';

const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));
const dataDir = (): string => {
  const dir = join(temporaryDirectory('gatehouse-mail-key-'), 'data');
  mkdirSync(dir, { mode: 0o700 });
  return dir;
};

describe('readOrCreateMailKey', () => {
  it('should make mail.key 0600 at the first start and read the same key at the next, so a mail sealed before opens after', async () => {
    const dir = dataDir();
    const first = await readOrCreateMailKey(dir, random);
    expect(first.kind === 'key' && first.created).toBe(true);
    const path = join(dir, MAIL_KEY_FILE);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/u);
    const mail = { to: 'alice@example.com', subject: 'Reset your password', text: 'Open http://gatehouse.test/.auth/reset-password?token=abc' };
    const sealed = first.kind === 'key' ? mailSealing(first.key, random).seal(mail) : null;
    expect(sealed).not.toBeNull();
    const second = await readOrCreateMailKey(dir, () => new Uint8Array(32).fill(9));
    expect(second.kind === 'key' && !second.created).toBe(true);
    expect(second.kind === 'key' && first.kind === 'key' && Buffer.from(second.key).equals(Buffer.from(first.key))).toBe(true);
    expect(second.kind === 'key' ? mailSealing(second.key, random).open({ ...mail, text: sealed ?? '' }) : null).toStrictEqual({ kind: 'opened', text: mail.text });
  });

  it.each([
    ['empty', ''],
    ['too short', 'ab'.repeat(31)],
    ['not hex', 'z'.repeat(64)],
    ['base64', Buffer.alloc(32, 1).toString('base64')],
  ])('should refuse a key file that is %s, naming the file, and leave it as it is', async (_name, content) => {
    const dir = dataDir();
    const path = join(dir, MAIL_KEY_FILE);
    writeFileSync(path, content, { mode: 0o600 });
    const found = await readOrCreateMailKey(dir, random);
    expect(found.kind).toBe('failed');
    expect(found.kind === 'failed' ? found.message : '').toContain(path);
    expect(readFileSync(path, 'utf8')).toBe(content);
  });

  it('should say why when the directory does not exist (never rejects)', async () => {
    const found = await readOrCreateMailKey(join(tmpdir(), 'gatehouse-no-such-dir', 'data'), random);
    expect(found).toStrictEqual({ kind: 'failed', message: expect.stringContaining('ENOENT') });
  });
});
