import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { isEntryPoint } from '../../src/kernel/entry-point.js';
import { temporaryDirectory } from '../helpers/temporary-directory.js';

describe('isEntryPoint', () => {
  const argv = process.argv;
  const dir = temporaryDirectory('gatehouse-entry-');
  const script = join(dir, 'main.js');
  writeFileSync(script, '');
  const link = join(dir, 'gatehouse');
  symlinkSync(script, link);

  afterEach(() => {
    process.argv = argv;
  });

  it.each([
    ['the script itself', script, true],
    ["npm's bin link to it", link, true],
    ['another script', join(dir, 'other.js'), false],
  ])('should answer for %s as argv[1]', (_what, runs, expected) => {
    process.argv = [argv[0] ?? 'node', runs];
    expect(isEntryPoint(pathToFileURL(script).href)).toBe(expected);
  });

  it('should answer false without a script or a module URL, and for a URL that is not a file', () => {
    process.argv = [argv[0] ?? 'node'];
    expect(isEntryPoint(pathToFileURL(script).href)).toBe(false);
    process.argv = [argv[0] ?? 'node', script];
    expect(isEntryPoint(undefined)).toBe(false);
    expect(isEntryPoint('https://example.com/main.js')).toBe(false);
  });

  it('should be false for the test runner, which imports modules rather than running them', () => {
    expect(isEntryPoint(import.meta.url)).toBe(false);
  });
});
