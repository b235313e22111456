/**
 * The part of the store the provider routes use: any grouped store is one as it is.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { ProviderStore } from '../../src/sign-in/provider-store.js';
import type { Store } from '../../src/store/types.js';

describe('ProviderStore', () => {
  it('should be implemented by every Store', () => {
    expectTypeOf<Store>().toMatchTypeOf<ProviderStore>();
  });
});
