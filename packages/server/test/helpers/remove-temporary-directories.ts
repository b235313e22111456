/**
 * Vitest setup file (vitest.config.ts `setupFiles`): runs before each test file and registers the `afterAll` that
 * removes the file's temporary directories. With `sequence.hooks: 'stack'` vitest runs `afterAll` hooks in reverse
 * order of registration, so this hook runs after the test file's own after-hooks, which stop the processes that used
 * those directories and wait for them to exit.
 */
import { afterAll } from 'vitest';
import { removeTemporaryDirectories } from './temporary-directory.js';

afterAll(removeTemporaryDirectories);
