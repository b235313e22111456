/**
 * The `auth.providers` entries' `order`, `hidden` and `noSignIn` (as the service the spec describes): which
 * providers the sign-in page offers, in which order.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { AuthProvider } from '../../src/core/auth-providers.js';
import { providerSignsIn, signInOffer } from '../../src/core/sign-in-offer.js';

const hostb = (extra: object): AuthProvider => ({ type: 'hostb', url: 'https://hostb.example.com', clientID: 'id', clientSecret: 's', allowSignup: true, apiScope: 'api', ...extra });

describe('signInOffer', () => {
  test.each<[string, readonly AuthProvider[], readonly number[]]>([
    ['no fields: configuration order', [hostb({}), hostb({ clientID: 'b' })], [0, 1]],
    ['order ascending', [hostb({ order: 2 }), hostb({ order: 1 })], [1, 0]],
    ['unordered entries follow the ordered ones', [hostb({}), hostb({ order: 5 })], [1, 0]],
    ['ties keep configuration order', [hostb({ order: 1 }), hostb({ order: 1 })], [0, 1]],
    ['negative and fractional orders', [hostb({ order: 0.5 }), hostb({ order: -1 })], [1, 0]],
    ['hidden entries are left off', [hostb({ hidden: true }), hostb({})], [1]],
    ['noSignIn entries are left off', [hostb({ noSignIn: true }), hostb({})], [1]],
    ['hidden false is shown', [hostb({ hidden: false })], [0]],
  ])('%s', (_name, providers, indexes) => {
    expect(signInOffer(providers).map((o) => o.index)).toStrictEqual(indexes);
  });

  test.each([
    ['a provider signs in by default', hostb({}), true],
    ['hidden still signs in', hostb({ hidden: true }), true],
    ['noSignIn refuses sign-in', hostb({ noSignIn: true }), false],
  ])('providerSignsIn: %s', (_name, provider, signs) => {
    expect(providerSignsIn(provider)).toBe(signs);
  });

  const entries = fc.array(
    fc.record({ order: fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }), hidden: fc.boolean(), noSignIn: fc.boolean() }),
    { maxLength: 12 },
  );
  // Oracle: a stable sort of the filtered entries by (order ?? +∞, index).
  test.prop([entries])('is the filtered list stably sorted by order; idempotent on its own output', (raw) => {
    const providers = raw.map((r) => hostb(r.order === undefined ? { hidden: r.hidden, noSignIn: r.noSignIn } : r));
    const expected = raw
      .map((r, index) => ({ r, index }))
      .filter(({ r }) => !r.hidden && !r.noSignIn)
      .sort((a, b) => (a.r.order ?? Infinity) - (b.r.order ?? Infinity) || a.index - b.index)
      .map(({ index }) => index);
    const offered = signInOffer(providers);
    expect(offered.map((o) => o.index)).toStrictEqual(expected);
    const again = signInOffer(offered.map((o) => o.provider));
    expect(again.map((o) => o.provider)).toStrictEqual(offered.map((o) => o.provider));
  });
});
