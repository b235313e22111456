/**
 * The sign-in routes' families and paths come from the core's provider registry: every provider type has a row
 * (a type without one does not compile), the callback paths are the core's, and the route modules, the route list
 * and the sign-in page's links agree.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { callbackPathOf, CODE_HOST_PROVIDER_TYPES, PROVIDER_TYPES, type ProviderType } from 'gatehouse-auth';
import { signInLinkOf } from '../../src/pages/sign-in-links.js';
import { callbackPath, loginPath, ROUTE_FAMILIES, signInRoutePaths, typesOf, type RouteFamily } from '../../src/sign-in/paths.js';

describe('ROUTE_FAMILIES', () => {
  it('should have exactly one row per provider type of the core', () => {
    expect(Object.keys(ROUTE_FAMILIES).sort()).toStrictEqual([...PROVIDER_TYPES].sort());
  });

  it('should not compile without a row for every provider type', () => {
    // @ts-expect-error: `hosta` … `saml` are missing, so a provider type the core adds cannot be forgotten here
    const incomplete: { readonly [T in ProviderType]: RouteFamily } = { builtin: 'none' };
    expect(incomplete).toBeDefined();
    expectTypeOf(ROUTE_FAMILIES).toEqualTypeOf<{ readonly [T in ProviderType]: RouteFamily }>();
  });

  it.each(PROVIDER_TYPES)('%s: has routes exactly when the core gives it a callback path (spec §4 endpoint table)', (type) => {
    expect(ROUTE_FAMILIES[type] !== 'none').toBe(callbackPathOf(type) !== null);
  });

  it('should put every code host type of the core in the code_host family, and nothing else', () => {
    expect(typesOf('code_host')).toStrictEqual([...CODE_HOST_PROVIDER_TYPES]);
  });
});

describe('signInRoutePaths', () => {
  it.each([
    { ref: '§5.3 hosta rule 1', types: ['hosta'] as const, expected: ['/.auth/hosta/login', '/.auth/hosta/callback'] },
    { ref: '§5.3 openidconnect rule 2', types: ['openidconnect'] as const, expected: ['/.auth/openidconnect/login', '/.auth/callback'] },
    { ref: '§5.2', types: ['saml', 'builtin', 'http-header', 'reviewhost'] as const, expected: ['/.auth/saml/login', '/.auth/saml/acs'] },
    { ref: 'registry order, each type once', types: ['hostb', 'hosta', 'hostb'] as const, expected: ['/.auth/hosta/login', '/.auth/hosta/callback', '/.auth/hostb/login', '/.auth/hostb/callback'] },
  ])('$ref: $types → $expected', ({ types, expected }) => {
    expect(signInRoutePaths(types.map((type) => ({ type })))).toStrictEqual(expected);
  });

  it.each(PROVIDER_TYPES)('%s: the sign-in page links to the login route of the list', (type) => {
    const link = signInLinkOf({ type } as never, 0);
    if (ROUTE_FAMILIES[type] === 'none') expect(link).toBeNull();
    else expect(link?.loginPath).toBe(`${loginPath(type)}?provider=0`);
    expect(callbackPath(type)).toBe(callbackPathOf(type) ?? '');
  });
});
