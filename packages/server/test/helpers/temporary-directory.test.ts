import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeTemporaryDirectories, temporaryDirectory } from './temporary-directory.js';

describe('temporaryDirectory', () => {
  it('should make a new, empty directory under the system temporary directory, named by the prefix', () => {
    const first = temporaryDirectory('gatehouse-helper-');
    const second = temporaryDirectory('gatehouse-helper-');
    expect(dirname(first)).toBe(tmpdir());
    expect(basename(first)).toMatch(/^gatehouse-helper-[A-Za-z0-9]{6}$/u);
    expect(second).not.toBe(first);
    expect(statSync(first).isDirectory()).toBe(true);
    expect(readdirSync(first)).toStrictEqual([]);
  });

  it('should remove every directory it made, with what is inside, when asked (the setup file asks after each test file)', () => {
    const dir = temporaryDirectory('gatehouse-helper-');
    mkdirSync(join(dir, 'data', 'base'), { recursive: true });
    writeFileSync(join(dir, 'data', 'base', 'file'), 'x');
    const other = temporaryDirectory('gatehouse-helper-');
    removeTemporaryDirectories();
    expect([existsSync(dir), existsSync(other)]).toStrictEqual([false, false]);
  });

  it('should not fail when a directory it made is already gone, and still remove the others', () => {
    const gone = temporaryDirectory('gatehouse-helper-');
    const kept = temporaryDirectory('gatehouse-helper-');
    rmSync(gone, { recursive: true });
    expect(() => removeTemporaryDirectories()).not.toThrow();
    expect(existsSync(kept)).toBe(false);
  });
});
