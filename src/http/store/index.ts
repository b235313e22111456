/**
 * The store: the {@link Store} contract every implementation keeps, and the memory implementation.
 *
 * @module
 */
export type * from './types.js';
export { createMemoryStore } from './memory.js';
