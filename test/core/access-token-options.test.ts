/**
 * The site option `auth.accessTokens` (the names and defaults of the service the spec describes): `allow`,
 * `allowNoExpiration`, `expirationOptionDays`, `defaultExpirationDays`, `maxTokensPerUser`.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  ACCESS_TOKEN_ALLOW_VALUES,
  accessTokenExpiryChoices,
  type AccessTokenOptions,
  decideAccessTokenOptions,
  DEFAULT_ACCESS_TOKEN_OPTIONS,
  mayCreateAccessTokens,
} from '../../src/core/access-token-options.js';
import { MAX_ACCESS_TOKENS_PER_ACCOUNT } from '../../src/core/access-token.js';

const DAY = 86_400;
const D = DEFAULT_ACCESS_TOKEN_OPTIONS;

describe('auth.accessTokens defaults', () => {
  test.each([
    ['allow', D.allow, 'all-users-create'],
    ['allowNoExpiration', D.allowNoExpiration, true],
    ['expirationOptionDays', D.expirationOptionDays, [7, 14, 30, 60, 90]],
    ['defaultExpirationDays', D.defaultExpirationDays, 90],
    ['maxTokensPerUser (the hard bound)', D.maxTokensPerUser, MAX_ACCESS_TOKENS_PER_ACCOUNT],
  ])('%s', (_name, actual, expected) => {
    expect(actual).toStrictEqual(expected);
  });
});

describe('decideAccessTokenOptions', () => {
  const member = { actorSiteAdmin: false, lifetimeSeconds: 30 * DAY, existingTokenCount: 0 };
  test.each<[string, AccessTokenOptions, Parameters<typeof decideAccessTokenOptions>[1], unknown]>([
    ['defaults: a member, 30 days', D, member, { kind: 'allow' }],
    ['defaults: never expires', D, { ...member, lifetimeSeconds: null }, { kind: 'allow' }],
    ['defaults: 90 days is the longest', D, { ...member, lifetimeSeconds: 90 * DAY }, { kind: 'allow' }],
    ['defaults: shorter than any option (1 hour)', D, { ...member, lifetimeSeconds: 3600 }, { kind: 'allow' }],
    ['defaults: 90 days and a second', D, { ...member, lifetimeSeconds: 90 * DAY + 1 }, { kind: 'refuse', reason: 'expiration_too_long', maxDays: 90 }],
    ['defaults: the 100th token', D, { ...member, existingTokenCount: 100 }, { kind: 'refuse', reason: 'token_limit_reached', limit: 100 }],
    ['allow none: even a site admin', { ...D, allow: 'none' }, { ...member, actorSiteAdmin: true }, { kind: 'refuse', reason: 'access_tokens_disabled' }],
    ['site-admin-create: a member', { ...D, allow: 'site-admin-create' }, member, { kind: 'refuse', reason: 'site_admin_only' }],
    ['site-admin-create: a site admin', { ...D, allow: 'site-admin-create' }, { ...member, actorSiteAdmin: true }, { kind: 'allow' }],
    ['allowNoExpiration false: never', { ...D, allowNoExpiration: false }, { ...member, lifetimeSeconds: null }, { kind: 'refuse', reason: 'expiration_required' }],
    ['maxTokensPerUser 2: the third', { ...D, maxTokensPerUser: 2 }, { ...member, existingTokenCount: 2 }, { kind: 'refuse', reason: 'token_limit_reached', limit: 2 }],
    ['allow is checked before the limit', { ...D, allow: 'none', maxTokensPerUser: 1 }, { ...member, existingTokenCount: 5 }, { kind: 'refuse', reason: 'access_tokens_disabled' }],
    ['the limit before the lifetime', { ...D, maxTokensPerUser: 1 }, { ...member, existingTokenCount: 1, lifetimeSeconds: 999 * DAY }, { kind: 'refuse', reason: 'token_limit_reached', limit: 1 }],
  ])('%s', (_name, options, input, expected) => {
    expect(decideAccessTokenOptions(options, input)._unsafeUnwrap()).toStrictEqual(expected);
  });

  test.each([
    ['a lifetime of 0', { ...member, lifetimeSeconds: 0 }, 'lifetimeSeconds'],
    ['a negative lifetime', { ...member, lifetimeSeconds: -1 }, 'lifetimeSeconds'],
    ['NaN', { ...member, lifetimeSeconds: Number.NaN }, 'lifetimeSeconds'],
    ['a fractional count', { ...member, existingTokenCount: 1.5 }, 'existingTokenCount'],
    ['a non-boolean admin flag', { ...member, actorSiteAdmin: 'yes' as unknown as boolean }, 'actorSiteAdmin'],
  ])('invalid_input: %s', (_name, input, path) => {
    expect(decideAccessTokenOptions(D, input)._unsafeUnwrapErr()).toMatchObject({ code: 'invalid_input', path });
  });

  const options = fc.record({
    allow: fc.constantFrom(...ACCESS_TOKEN_ALLOW_VALUES),
    allowNoExpiration: fc.boolean(),
    expirationOptionDays: fc.uniqueArray(fc.integer({ min: 1, max: 36_500 }), { minLength: 1, maxLength: 6 }).map((d) => [...d].sort((a, b) => a - b)),
    defaultExpirationDays: fc.constant(7),
    maxTokensPerUser: fc.integer({ min: 1, max: 100 }),
  });
  const inputs = fc.record({
    actorSiteAdmin: fc.boolean(),
    lifetimeSeconds: fc.option(fc.integer({ min: 1, max: 40_000 * DAY }), { nil: null }),
    existingTokenCount: fc.nat({ max: 150 }),
  });

  // Oracle: the rule written as one boolean expression.
  test.prop([options, inputs])('allows exactly what the option text says, and never throws', (o, i) => {
    const longest = Math.max(...o.expirationOptionDays);
    const allowed =
      (o.allow === 'all-users-create' || (o.allow === 'site-admin-create' && i.actorSiteAdmin)) &&
      i.existingTokenCount < o.maxTokensPerUser &&
      (i.lifetimeSeconds === null ? o.allowNoExpiration : i.lifetimeSeconds <= longest * DAY);
    expect(decideAccessTokenOptions(o, i)._unsafeUnwrap().kind).toBe(allowed ? 'allow' : 'refuse');
    expect(mayCreateAccessTokens(o, i.actorSiteAdmin)).toBe(o.allow === 'all-users-create' || (o.allow === 'site-admin-create' && i.actorSiteAdmin));
  });

  test.prop([options])('every expiry the form offers is allowed', (o) => {
    const choices = accessTokenExpiryChoices(o);
    for (const days of choices.days) {
      const d = decideAccessTokenOptions({ ...o, allow: 'all-users-create' }, { actorSiteAdmin: false, lifetimeSeconds: days * DAY, existingTokenCount: 0 });
      expect(d._unsafeUnwrap().kind).toBe('allow');
    }
    const never = decideAccessTokenOptions({ ...o, allow: 'all-users-create' }, { actorSiteAdmin: false, lifetimeSeconds: null, existingTokenCount: 0 });
    expect(never._unsafeUnwrap().kind === 'allow').toBe(choices.never);
  });
});

describe('malformed inputs', () => {
  test.prop([fc.anything()])('decideAccessTokenOptions never throws on any input', (input) => {
    expect(() => decideAccessTokenOptions(D, input as never)).not.toThrow();
  });
});
