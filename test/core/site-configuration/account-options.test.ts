/**
 * The account site options as `parseSiteConfiguration` reads them, against their documented defaults (the names
 * and defaults of the service the spec describes, and gatehouse's own `auth.sessionIdleTimeout`); each problem
 * with its JSON path.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { parseSiteConfiguration } from '../../../src/core/site-configuration/parse.js';
import { DEFAULT_ACCOUNT_OPTIONS, type AccountOptions } from '../../../src/core/site-configuration/account-options.js';

const H = 3_600_000;
const read = (value: object): AccountOptions => parseSiteConfiguration(JSON.stringify(value))._unsafeUnwrap().accountOptions;
const problemsOf = (value: object): readonly { path: string; code: string }[] =>
  parseSiteConfiguration(JSON.stringify(value))._unsafeUnwrapErr().problems.map((p) => ({ path: p.path, code: p.code }));

describe('account options: documented defaults', () => {
  const d = read({});
  test.each([
    ['auth.accessTokens.allow', d.accessTokens.allow, 'all-users-create'],
    ['auth.accessTokens.allowNoExpiration', d.accessTokens.allowNoExpiration, true],
    ['auth.accessTokens.expirationOptionDays', d.accessTokens.expirationOptionDays, [7, 14, 30, 60, 90]],
    ['auth.accessTokens.defaultExpirationDays', d.accessTokens.defaultExpirationDays, 90],
    ['auth.accessTokens.maxTokensPerUser', d.accessTokens.maxTokensPerUser, 100],
    ['auth.sessionExpiry ("2160h")', d.sessionLifetime.expiryMs, 2160 * H],
    ['auth.sessionIdleTimeout ("168h")', d.sessionLifetime.idleTimeoutMs, 168 * H],
    ['auth.minPasswordLength', d.passwordRule.minLength, 12],
    ['auth.passwordPolicy.enabled', d.passwordRule.policy.enabled, false],
    ['auth.passwordPolicy.numberOfSpecialCharacters', d.passwordRule.policy.numberOfSpecialCharacters, 2],
    ['auth.passwordPolicy.requireAtLeastOneNumber', d.passwordRule.policy.requireAtLeastOneNumber, true],
    ['auth.passwordPolicy.requireUpperandLowerCase', d.passwordRule.policy.requireUpperandLowerCase, true],
    ['auth.enableUsernameChanges', d.enableUsernameChanges, false],
  ])('%s', (_name, actual, expected) => {
    expect(actual).toStrictEqual(expected);
  });

  test('an empty configuration gives DEFAULT_ACCOUNT_OPTIONS', () => {
    expect(d).toStrictEqual(DEFAULT_ACCOUNT_OPTIONS);
  });
});

describe('account options: values read', () => {
  test.each<[string, object, (o: AccountOptions) => unknown, unknown]>([
    ['allow none', { 'auth.accessTokens': { allow: 'none' } }, (o) => o.accessTokens.allow, 'none'],
    ['allow site-admin-create', { 'auth.accessTokens': { allow: 'site-admin-create' } }, (o) => o.accessTokens.allow, 'site-admin-create'],
    ['allowNoExpiration false', { 'auth.accessTokens': { allowNoExpiration: false } }, (o) => o.accessTokens.allowNoExpiration, false],
    ['option days sorted and deduplicated', { 'auth.accessTokens': { expirationOptionDays: [30, 1, 30, 365] } }, (o) => o.accessTokens.expirationOptionDays, [1, 30, 365]],
    ['unset default: 90 when offered', { 'auth.accessTokens': { expirationOptionDays: [90, 180] } }, (o) => o.accessTokens.defaultExpirationDays, 90],
    ['unset default: else the longest offered', { 'auth.accessTokens': { expirationOptionDays: [1, 7] } }, (o) => o.accessTokens.defaultExpirationDays, 7],
    ['a default that is offered', { 'auth.accessTokens': { defaultExpirationDays: 30 } }, (o) => o.accessTokens.defaultExpirationDays, 30],
    ['maxTokensPerUser', { 'auth.accessTokens': { maxTokensPerUser: 5 } }, (o) => o.accessTokens.maxTokensPerUser, 5],
    ['sessionExpiry 1h30m', { 'auth.sessionExpiry': '1h30m' }, (o) => o.sessionLifetime.expiryMs, 1.5 * H],
    ['sessionIdleTimeout "0" is no idle limit', { 'auth.sessionIdleTimeout': '0' }, (o) => o.sessionLifetime.idleTimeoutMs, null],
    ['sessionIdleTimeout 30m', { 'auth.sessionIdleTimeout': '30m' }, (o) => o.sessionLifetime.idleTimeoutMs, 0.5 * H],
    ['minPasswordLength 16', { 'auth.minPasswordLength': 16 }, (o) => o.passwordRule.minLength, 16],
    ['passwordPolicy enabled, its other keys default', { 'auth.passwordPolicy': { enabled: true } }, (o) => o.passwordRule.policy, { enabled: true, numberOfSpecialCharacters: 2, requireAtLeastOneNumber: true, requireUpperandLowerCase: true }],
    ['enableUsernameChanges', { 'auth.enableUsernameChanges': true }, (o) => o.enableUsernameChanges, true],
  ])('%s', (_name, value, pick, expected) => {
    expect(pick(read(value))).toStrictEqual(expected);
  });
});

describe('account options: problems at their JSON paths', () => {
  test.each<[string, object, readonly { path: string; code: string }[]]>([
    ['auth.accessTokens not an object', { 'auth.accessTokens': [] }, [{ path: 'auth.accessTokens', code: 'wrong_type' }]],
    ['a typo inside auth.accessTokens', { 'auth.accessTokens': { alow: 'none' } }, [{ path: 'auth.accessTokens.alow', code: 'unknown_field' }]],
    ['allow unknown', { 'auth.accessTokens': { allow: 'all' } }, [{ path: 'auth.accessTokens.allow', code: 'invalid_option_value' }]],
    ['an empty option list', { 'auth.accessTokens': { expirationOptionDays: [] } }, [{ path: 'auth.accessTokens.expirationOptionDays', code: 'empty_value' }]],
    ['an option of 0 days', { 'auth.accessTokens': { expirationOptionDays: [7, 0] } }, [{ path: 'auth.accessTokens.expirationOptionDays[1]', code: 'out_of_range' }]],
    ['a fractional option', { 'auth.accessTokens': { expirationOptionDays: [1.5] } }, [{ path: 'auth.accessTokens.expirationOptionDays[0]', code: 'out_of_range' }]],
    ['a default not offered', { 'auth.accessTokens': { defaultExpirationDays: 45 } }, [{ path: 'auth.accessTokens.defaultExpirationDays', code: 'default_not_offered' }]],
    ['maxTokensPerUser above the hard bound', { 'auth.accessTokens': { maxTokensPerUser: 101 } }, [{ path: 'auth.accessTokens.maxTokensPerUser', code: 'out_of_range' }]],
    ['maxTokensPerUser 0', { 'auth.accessTokens': { maxTokensPerUser: 0 } }, [{ path: 'auth.accessTokens.maxTokensPerUser', code: 'out_of_range' }]],
    ['sessionExpiry a number', { 'auth.sessionExpiry': 3600 }, [{ path: 'auth.sessionExpiry', code: 'wrong_type' }]],
    ['sessionExpiry in days', { 'auth.sessionExpiry': '90d' }, [{ path: 'auth.sessionExpiry', code: 'invalid_duration' }]],
    ['sessionExpiry under a minute', { 'auth.sessionExpiry': '30s' }, [{ path: 'auth.sessionExpiry', code: 'out_of_range' }]],
    ['sessionExpiry "0"', { 'auth.sessionExpiry': '0' }, [{ path: 'auth.sessionExpiry', code: 'out_of_range' }]],
    ['sessionIdleTimeout under five minutes', { 'auth.sessionIdleTimeout': '4m' }, [{ path: 'auth.sessionIdleTimeout', code: 'out_of_range' }]],
    ['minPasswordLength 7', { 'auth.minPasswordLength': 7 }, [{ path: 'auth.minPasswordLength', code: 'out_of_range' }]],
    ['minPasswordLength 1025', { 'auth.minPasswordLength': 1025 }, [{ path: 'auth.minPasswordLength', code: 'out_of_range' }]],
    ['minPasswordLength a string', { 'auth.minPasswordLength': '12' }, [{ path: 'auth.minPasswordLength', code: 'wrong_type' }]],
    ['passwordPolicy typo', { 'auth.passwordPolicy': { requireUpperAndLowerCase: true } }, [{ path: 'auth.passwordPolicy.requireUpperAndLowerCase', code: 'unknown_field' }]],
    ['numberOfSpecialCharacters negative', { 'auth.passwordPolicy': { numberOfSpecialCharacters: -1 } }, [{ path: 'auth.passwordPolicy.numberOfSpecialCharacters', code: 'out_of_range' }]],
    ['enableUsernameChanges a string', { 'auth.enableUsernameChanges': 'yes' }, [{ path: 'auth.enableUsernameChanges', code: 'wrong_type' }]],
    ['hidden not a boolean', { 'auth.providers': [{ type: 'builtin', hidden: 'yes' }] }, [{ path: 'auth.providers[0].hidden', code: 'wrong_type' }]],
    ['order not a number', { 'auth.providers': [{ type: 'builtin', order: '1' }] }, [{ path: 'auth.providers[0].order', code: 'wrong_type' }]],
    ['noSignIn not a boolean', { 'auth.providers': [{ type: 'builtin', noSignIn: 1 }] }, [{ path: 'auth.providers[0].noSignIn', code: 'wrong_type' }]],
  ])('%s', (_name, value, expected) => {
    expect(problemsOf(value)).toStrictEqual(expected);
  });

  test('a duplicate account option key is reported', () => {
    const result = parseSiteConfiguration('{"auth.minPasswordLength": 12, "auth.minPasswordLength": 16}');
    expect(result._unsafeUnwrapErr().problems.map((p) => p.code)).toStrictEqual(['duplicate_key']);
  });

  test('provider entries keep hidden, order and noSignIn', () => {
    const parsed = parseSiteConfiguration(JSON.stringify({ 'auth.providers': [{ type: 'builtin', hidden: true, order: 3, noSignIn: false }] }));
    expect(parsed._unsafeUnwrap().authProviders).toStrictEqual([{ type: 'builtin', allowSignup: false, hidden: true, order: 3, noSignIn: false }]);
  });
});

describe('account options: properties', () => {
  const raw = fc.record(
    {
      'auth.accessTokens': fc.record(
        {
          allow: fc.oneof(fc.constantFrom('all-users-create', 'site-admin-create', 'none'), fc.string({ maxLength: 8 })),
          allowNoExpiration: fc.oneof(fc.boolean(), fc.integer()),
          expirationOptionDays: fc.array(fc.oneof(fc.integer({ min: -2, max: 40_000 }), fc.double()), { maxLength: 5 }),
          defaultExpirationDays: fc.integer({ min: -1, max: 400 }),
          maxTokensPerUser: fc.integer({ min: -1, max: 120 }),
        },
        { requiredKeys: [] },
      ),
      'auth.sessionExpiry': fc.oneof(fc.constantFrom('2160h', '1m', '30s', '0', '1h30m'), fc.string({ maxLength: 10 })),
      'auth.sessionIdleTimeout': fc.oneof(fc.constantFrom('0', '5m', '4m', '168h'), fc.string({ maxLength: 10 })),
      'auth.minPasswordLength': fc.oneof(fc.integer({ min: 0, max: 2000 }), fc.double(), fc.string({ maxLength: 3 })),
      'auth.passwordPolicy': fc.record({ enabled: fc.boolean(), numberOfSpecialCharacters: fc.integer({ min: -1, max: 70 }) }, { requiredKeys: [] }),
      'auth.enableUsernameChanges': fc.oneof(fc.boolean(), fc.constant('true')),
    },
    { requiredKeys: [] },
  );

  // Every accepted configuration satisfies the documented invariants; every problem has a path under its option.
  test.prop([raw])('accepted options satisfy their bounds; refused ones name their option; never throws', (value) => {
    const parsed = parseSiteConfiguration(JSON.stringify(value));
    if (parsed.isOk()) {
      const o = parsed.value.accountOptions;
      expect(o.accessTokens.expirationOptionDays.length).toBeGreaterThan(0);
      expect(o.accessTokens.expirationOptionDays).toContain(o.accessTokens.defaultExpirationDays);
      expect(o.accessTokens.maxTokensPerUser).toBeGreaterThanOrEqual(1);
      expect(o.accessTokens.maxTokensPerUser).toBeLessThanOrEqual(100);
      expect(o.sessionLifetime.expiryMs).toBeGreaterThanOrEqual(60_000);
      if (o.sessionLifetime.idleTimeoutMs !== null) expect(o.sessionLifetime.idleTimeoutMs).toBeGreaterThanOrEqual(300_000);
      expect(o.passwordRule.minLength).toBeGreaterThanOrEqual(8);
    } else {
      for (const p of parsed.error.problems) expect(Object.keys(value)).toContain(p.segments[0]);
    }
    // parsing is deterministic
    expect(parseSiteConfiguration(JSON.stringify(value))).toStrictEqual(parsed);
  });
});
