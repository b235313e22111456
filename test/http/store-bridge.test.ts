/**
 * The flat store view of the grouped memory store keeps every promise of the flat store: the flat store's own
 * suite (`store.test.ts`) runs here with `createMemoryStore` answering the flat view of a grouped memory store.
 */
import { vi } from 'vitest';

vi.mock('../../src/http/store.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/http/store.js')>();
  const { flatStoreOf } = await import('../../src/http/store-bridge.js');
  const grouped = await import('../../src/http/store/memory.js');
  return { ...original, createMemoryStore: () => flatStoreOf(grouped.createMemoryStore()) };
});

await import('./store.test.js');
