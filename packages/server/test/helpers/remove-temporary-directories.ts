/**
 * Vitest setup file (vitest.config.ts `setupFiles`): runs before each test file and registers the `afterAll` that
 * removes the file's temporary directories. Vitest runs `afterAll` hooks in reverse order of registration, so this
 * hook runs after the test file's own hooks have stopped the servers that used those directories.
 */
import { afterAll } from 'vitest';
import { removeTemporaryDirectories } from './temporary-directory.js';

afterAll(removeTemporaryDirectories);
