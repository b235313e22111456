/**
 * The streaming extraction of a gzipped ustar archive: whatever the files' sizes (empty, inside one decompressed
 * chunk, across many), every file comes out with its bytes and a private mode, and nothing else is written; a
 * damaged archive rejects.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { extractGzipTar } from '../../../src/store/postgres/tar-extract.js';

const work = mkdtempSync(join(tmpdir(), 'gatehouse-tar-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let runs = 0;
const freshDir = (): string => {
  const dir = join(work, String(runs++));
  mkdirSync(dir, { mode: 0o700 });
  return dir;
};

/** A gzipped ustar archive: a directory entry for each file's parent, then the file. */
function archive(files: ReadonlyMap<string, Uint8Array>): Uint8Array {
  const blocks: Buffer[] = [];
  const entry = (path: string, type: '0' | '5', size: number): Buffer => {
    const header = Buffer.alloc(512);
    header.write(path, 0, 100, 'utf8');
    header.write(type === '5' ? '0000700\0' : '0000600\0', 100, 'ascii');
    header.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
    header.write(type, 156, 'ascii');
    header.write('ustar\0', 257, 'ascii');
    return header;
  };
  for (const [path, content] of files) {
    const parent = path.split('/').slice(0, -1).join('/');
    if (parent !== '') blocks.push(entry(`${parent}/`, '5', 0));
    blocks.push(entry(path, '0', content.length), Buffer.from(content), Buffer.alloc((512 - (content.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return new Uint8Array(gzipSync(Buffer.concat(blocks)));
}

const digest = (bytes: Uint8Array): string => `${String(bytes.length)}:${createHash('sha256').update(bytes).digest('hex')}`;

/** The digest of every file below `dir`, by its path relative to `dir`. */
function filesUnder(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (path: string): void => {
    if (statSync(path).isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else found.set(relative(dir, path), digest(readFileSync(path)));
  };
  visit(dir);
  return found;
}

/** Every path below `dir` whose mode is not 0700 (directories) or 0600 (files). */
function notPrivate(dir: string): readonly string[] {
  const found: string[] = [];
  const visit = (path: string): void => {
    const info = statSync(path);
    if ((info.mode & 0o777) !== (info.isDirectory() ? 0o700 : 0o600)) found.push(path);
    if (info.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return found;
}

const segment = fc.stringMatching(/^[a-z0-9_]{1,8}$/u);
const content = fc.oneof(fc.uint8Array({ maxLength: 600 }), fc.integer({ min: 0, max: 300_000 }).map((n) => new Uint8Array(Buffer.alloc(n, `${String(n)}-pattern`))));
const files = fc
  .uniqueArray(fc.tuple(fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/')), content), { maxLength: 8, selector: ([path]) => path })
  // a path may not be both a file and the directory of another file
  .filter((entries) => entries.every(([a]) => entries.every(([b]) => !b.startsWith(`${a}/`))))
  .map((entries) => new Map(entries));

describe('extractGzipTar', () => {
  test.prop([files], { numRuns: 25 })('should write every file with its bytes, privately, and nothing else', async (wanted) => {
    const dir = freshDir();
    const written = await extractGzipTar(archive(wanted), 'the test archive', dir, { dirMode: 0o700, fileMode: 0o600 });
    expect(written).toBe(wanted.size);
    expect(filesUnder(dir)).toStrictEqual(new Map([...wanted].map(([path, bytes]) => [path, digest(bytes)])));
    expect(notPrivate(dir).filter((path) => path !== dir)).toStrictEqual([]);
  });

  it.each([
    ['garbage instead of gzip', (): Uint8Array => new Uint8Array([1, 2, 3, 4])],
    ['an archive cut inside a file', (): Uint8Array => cutInsideFile()],
  ])('should reject %s', async (_name, bytes) => {
    await expect(extractGzipTar(bytes(), 'the test archive', freshDir(), { dirMode: 0o700, fileMode: 0o600 })).rejects.toThrow();
  });
});

/** An archive whose only file claims 5,000 bytes and holds 1,024 (a gzip of the first 1,536 bytes of the tar). */
function cutInsideFile(): Uint8Array {
  const header = Buffer.alloc(512);
  header.write('a', 0, 100, 'utf8');
  header.write('0000600\0', 100, 'ascii');
  header.write(`${(5000).toString(8).padStart(11, '0')}\0`, 124, 'ascii');
  header.write('0', 156, 'ascii');
  return new Uint8Array(gzipSync(Buffer.concat([header, Buffer.alloc(1024, 7)])));
}
