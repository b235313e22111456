/**
 * The server's one SHA-256 helper (`kernel/digest.ts`): known answers (FIPS 180-2 "abc" and the empty input), the
 * two forms agreeing on UTF-8 text, and no other module of gatehouse-server hashing on its own.
 */
import { fc, test } from '@fast-check/vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sha256, sha256Hex } from '../../src/kernel/digest.js';

const sourceRoot = fileURLToPath(new URL('../../src', import.meta.url));

function listFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(directory, entry.name)) : [join(directory, entry.name)],
  );
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** Where a module computes a digest itself: `createHash`, the one-shot `hash('sha…')`, or Web Crypto's `subtle.digest`. */
const OWN_HASHING = /\bcreateHash\b|\bsubtle\s*\.\s*digest\b|\bhash\s*\(\s*['"]sha/u;

describe('sha256 and sha256Hex', () => {
  it.each([
    { ref: 'FIPS 180-2 "abc"', text: 'abc', expected: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' },
    { ref: 'the empty input', text: '', expected: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' },
  ])('should give the known digest of $ref', ({ text, expected }) => {
    expect(sha256Hex(text)).toBe(expected);
    expect(hex(sha256(new TextEncoder().encode(text)))).toBe(expected);
  });

  test.prop([fc.string({ unit: 'grapheme', maxLength: 64 })])('should hash a string as its UTF-8 bytes', (text) => {
    expect(sha256Hex(text)).toBe(hex(sha256(new TextEncoder().encode(text))));
  });
});

describe('one SHA-256 helper for the whole server', () => {
  it('should find no module of packages/server/src that hashes on its own, kernel/digest.ts aside', () => {
    const files = listFiles(sourceRoot).filter((file) => /\.tsx?$/u.test(file));
    expect(files.length).toBeGreaterThan(50);
    const own = files
      .map((file) => relative(sourceRoot, file).split('\\').join('/'))
      .filter((path) => path !== 'kernel/digest.ts' && OWN_HASHING.test(readFileSync(join(sourceRoot, path), 'utf8')));
    expect(own).toStrictEqual([]);
    expect(OWN_HASHING.test(readFileSync(join(sourceRoot, 'kernel', 'digest.ts'), 'utf8'))).toBe(true);
  });
});
