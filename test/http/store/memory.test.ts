/**
 * The memory store runs the store contract suite, with more model runs than a database run affords.
 */
import { createMemoryStore } from '../../../src/http/store/index.js';
import { describeStoreContract } from './contract.js';

describeStoreContract('createMemoryStore', async () => ({ store: createMemoryStore(), close: async () => {} }), {
  modelRuns: 100,
  auditFloodSize: 100_000,
});
