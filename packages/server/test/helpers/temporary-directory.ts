/**
 * Temporary directories for tests that are removed when the test file is done. The vitest setup file
 * `remove-temporary-directories.ts` removes them in an `afterAll` hook. Data directories, packed tarballs and
 * configuration files made during a test run do not pile up in the system's temporary directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();

/**
 * Makes a new directory under the system's temporary directory, named `prefix` plus six random characters, and
 * removes it with everything in it once the calling test file's tests and hooks are done.
 *
 * @example
 * ```ts
 * const dataDir = join(temporaryDirectory('gatehouse-serve-'), 'data');
 * ```
 */
export function temporaryDirectory(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every directory {@link temporaryDirectory} made in this test file. */
export function removeTemporaryDirectories(): void {
  for (const dir of made) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch (error) {
      // A directory that cannot be removed is left behind with a warning; cleaning up never fails a test.
      console.warn(`could not remove ${dir}: ${String(error)}`);
    }
  }
  made.clear();
}
