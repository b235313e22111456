import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import {
  computeRefreshAt,
  decideTokenRefresh,
  DEFAULT_MAX_TOKEN_LIFETIME_SECONDS,
  mergeRefreshedToken,
  parseTokenResponse,
  type OAuthToken,
} from '../../../../src/core/oauth/client/token.js';
import { b64token, epochMs, oauthToken } from '../../../arbitraries/tokens.js';

const t0 = 1_700_000_000_000;
const YEAR_S = 365 * 24 * 60 * 60;
const base = { access_token: 'at-1', token_type: 'Bearer' } as const;

describe('parseTokenResponse', () => {
  it.each([
    {
      ref: '§2.4, §5.1 rule 3 (expires_in stamped from the request start)',
      body: { ...base, expires_in: 3600 },
      expected: ok({ accessToken: 'at-1', issuedAt: t0, expiresAt: t0 + 3_600_000 }),
    },
    {
      ref: '§2.4 (refresh token and scope kept)',
      body: { ...base, expires_in: 3600, refresh_token: 'rt-1', scope: 'user:all read' },
      expected: ok({ accessToken: 'at-1', issuedAt: t0, expiresAt: t0 + 3_600_000, refreshToken: 'rt-1', scope: ['user:all', 'read'] }),
    },
    {
      ref: 'RFC 6749 §5.1 (token_type is case-insensitive)',
      body: { access_token: 'at-1', token_type: 'bEaReR', expires_in: 60 },
      expected: ok({ accessToken: 'at-1', issuedAt: t0, expiresAt: t0 + 60_000 }),
    },
    {
      ref: 'canonical decimal string',
      body: { ...base, expires_in: '7200' },
      expected: ok({ accessToken: 'at-1', issuedAt: t0, expiresAt: t0 + 7_200_000 }),
    },
    {
      ref: 'capped: clamped to one year by default',
      body: { ...base, expires_in: 10 * YEAR_S },
      expected: ok({ accessToken: 'at-1', issuedAt: t0, expiresAt: t0 + YEAR_S * 1000 }),
    },
    {
      ref: 'capped: a canonical string too long for a double is clamped too',
      body: { ...base, expires_in: '9'.repeat(400) },
      expected: ok({ accessToken: 'at-1', issuedAt: t0, expiresAt: t0 + YEAR_S * 1000 }),
    },
    {
      ref: 'RFC 6749 §3.3 (empty scope means none; repeats kept once)',
      body: { ...base, expires_in: 1, scope: '' },
      expected: ok({ accessToken: 'at-1', issuedAt: t0, expiresAt: t0 + 1000, scope: [] }),
    },
    {
      ref: 'RFC 6749 §3.3 (repeats kept once, in order)',
      body: { ...base, expires_in: 1, scope: 'b a b' },
      expected: ok({ accessToken: 'at-1', issuedAt: t0, expiresAt: t0 + 1000, scope: ['b', 'a'] }),
    },
    {
      ref: 'RFC 6750 §2.1 (b64token with padding)',
      body: { access_token: 'a.b-c_d~e+f/g==', token_type: 'Bearer', expires_in: 1 },
      expected: ok({ accessToken: 'a.b-c_d~e+f/g==', issuedAt: t0, expiresAt: t0 + 1000 }),
    },
    { ref: 'missing expires_in is an error, never "never expires"', body: { ...base }, expected: err({ code: 'missing_field', field: 'expires_in' }) },
    ...[0, -1, -0, 0.5, 60.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, null, true, '', '0', '060', '+60', '-60', ' 60', '60 ', '1e3', '60.0', '0x10', '６０', [60], { s: 60 }].map(
      (expiresIn) => ({
        ref: `(expires_in ${typeof expiresIn === 'string' ? JSON.stringify(expiresIn): String(expiresIn)} is an error)`,
        body: { ...base, expires_in: expiresIn },
        expected: err({ code: 'invalid_field', field: 'expires_in' }),
      }),
    ),
    { ref: 'RFC 6749 §5.1 (access_token required)', body: { token_type: 'Bearer', expires_in: 60 }, expected: err({ code: 'missing_field', field: 'access_token' }) },
    { ref: 'RFC 6749 §5.1 (access_token non-empty)', body: { ...base, access_token: '', expires_in: 60 }, expected: err({ code: 'invalid_field', field: 'access_token' }) },
    { ref: 'RFC 6750 §2.1 (access_token must fit a Bearer header)', body: { ...base, access_token: 'a b', expires_in: 60 }, expected: err({ code: 'invalid_field', field: 'access_token' }) },
    { ref: 'RFC 6750 §2.1 (padding only at the end)', body: { ...base, access_token: 'a=b', expires_in: 60 }, expected: err({ code: 'invalid_field', field: 'access_token' }) },
    { ref: 'RFC 6749 §5.1 (access_token is a string)', body: { ...base, access_token: 42, expires_in: 60 }, expected: err({ code: 'invalid_field', field: 'access_token' }) },
    { ref: 'RFC 6749 §5.1 (token_type required)', body: { access_token: 'at', expires_in: 60 }, expected: err({ code: 'missing_field', field: 'token_type' }) },
    { ref: '§5.1 (only Bearer is used)', body: { ...base, token_type: 'mac', expires_in: 60 }, expected: err({ code: 'unsupported_token_type', tokenType: 'mac' }) },
    { ref: '§5.1 (no blanks around Bearer)', body: { ...base, token_type: 'Bearer ', expires_in: 60 }, expected: err({ code: 'unsupported_token_type', tokenType: 'Bearer ' }) },
    { ref: 'RFC 6749 §5.1 (token_type is a string)', body: { ...base, token_type: 1, expires_in: 60 }, expected: err({ code: 'invalid_field', field: 'token_type' }) },
    { ref: 'RFC 6749 §5.1 (refresh_token non-empty)', body: { ...base, expires_in: 60, refresh_token: '' }, expected: err({ code: 'invalid_field', field: 'refresh_token' }) },
    { ref: 'RFC 6749 §5.1 (refresh_token is a string)', body: { ...base, expires_in: 60, refresh_token: null }, expected: err({ code: 'invalid_field', field: 'refresh_token' }) },
    { ref: 'RFC 6749 §3.3 (one space between scope tokens)', body: { ...base, expires_in: 60, scope: 'a  b' }, expected: err({ code: 'invalid_field', field: 'scope' }) },
    { ref: 'RFC 6749 §3.3 (no leading space)', body: { ...base, expires_in: 60, scope: ' a' }, expected: err({ code: 'invalid_field', field: 'scope' }) },
    { ref: 'RFC 6749 §3.3 (no quote in scope-token)', body: { ...base, expires_in: 60, scope: 'a"b' }, expected: err({ code: 'invalid_field', field: 'scope' }) },
    { ref: 'RFC 6749 §3.3 (scope is a string)', body: { ...base, expires_in: 60, scope: ['a'] }, expected: err({ code: 'invalid_field', field: 'scope' }) },
    { ref: 'RFC 6749 §5.2 (error response)', body: { error: 'invalid_grant' }, expected: err({ code: 'error_response', error: 'invalid_grant' }) },
    { ref: 'RFC 6749 §5.1 (a JSON object)', body: null, expected: err({ code: 'invalid_input', field: 'body' }) },
    { ref: 'RFC 6749 §5.1 (a JSON object, not an array)', body: [base], expected: err({ code: 'invalid_input', field: 'body' }) },
    { ref: 'RFC 6749 §5.1 (a JSON object, not text)', body: '{"access_token":"at"}', expected: err({ code: 'invalid_input', field: 'body' }) },
    {
      ref: 'inherited members are not members',
      body: Object.create({ access_token: 'at', token_type: 'Bearer', expires_in: 60 }) as unknown,
      expected: err({ code: 'missing_field', field: 'access_token' }),
    },
  ])('should follow $ref', ({ body, expected }) => {
    expect(parseTokenResponse(body, t0)).toStrictEqual(expected);
  });

  it.each([
    { ref: 'cap option', options: { maxLifetimeSeconds: 60 }, at: t0, expected: ok({ accessToken: 'at-1', issuedAt: t0, expiresAt: t0 + 60_000 }) },
    { ref: 'cap option: empty options use the default', options: {}, at: t0, expected: ok({ accessToken: 'at-1', issuedAt: t0, expiresAt: t0 + 3_600_000 }) },
    { ref: 'total function', options: { maxLifetimeSeconds: 0 }, at: t0, expected: err({ code: 'invalid_input', field: 'options.maxLifetimeSeconds' }) },
    { ref: 'total function', options: { maxLifetimeSeconds: 1.5 }, at: t0, expected: err({ code: 'invalid_input', field: 'options.maxLifetimeSeconds' }) },
    { ref: 'total function', options: null, at: t0, expected: err({ code: 'invalid_input', field: 'options' }) },
    { ref: 'total function', options: undefined, at: Number.NaN, expected: err({ code: 'invalid_input', field: 'requestStartedAt' }) },
    { ref: 'total function', options: undefined, at: 8.64e15 + 1, expected: err({ code: 'invalid_input', field: 'requestStartedAt' }) },
  ])('should follow $ref with options $options', ({ options, at, expected }) => {
    // @ts-expect-error -- some rows deliberately break the static type
    expect(parseTokenResponse({ ...base, expires_in: 3600 }, at, options)).toStrictEqual(expected);
  });

  test.prop([fc.anything(), fc.anything(), fc.anything()])('should never throw on arbitrary input', (body, at, options) => {
    // @ts-expect-error -- deliberately breaks the static type
    const result = parseTokenResponse(body, at, options);
    expect(result.isOk() || result.isErr()).toBe(true);
  });

  test.prop([fc.anything(), epochMs])('should never throw on arbitrary members', (value, at) => {
    for (const field of ['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope', 'error']) {
      const result = parseTokenResponse({ ...base, expires_in: 60, [field]: value }, at);
      expect(result.isOk() || result.isErr()).toBe(true);
    }
  });

  test.prop([fc.integer({ min: 1, max: 2 * YEAR_S }), epochMs, fc.option(fc.integer({ min: 1, max: 3 * YEAR_S }), { nil: undefined })])(
    'should stamp expiresAt = requestStartedAt + min(expires_in, cap) seconds, for numbers and canonical strings alike',
    (seconds, at, cap) => {
      const options = cap === undefined ? undefined : { maxLifetimeSeconds: cap };
      const expected = ok({ accessToken: 'at-1', issuedAt: at, expiresAt: at + Math.min(seconds, cap ?? DEFAULT_MAX_TOKEN_LIFETIME_SECONDS) * 1000 });
      expect(parseTokenResponse({ ...base, expires_in: seconds }, at, options)).toStrictEqual(expected);
      expect(parseTokenResponse({ ...base, expires_in: String(seconds) }, at, options)).toStrictEqual(expected);
    },
  );

  const numericText = fc.oneof(
    fc.string({ unit: fc.constantFrom(...'0123456789+-.e '), maxLength: 6 }),
    fc.nat().map(String),
    fc.string(),
  );
  test.prop([numericText, epochMs])('should accept an expires_in string exactly when it is a canonical positive decimal', (text, at) => {
    const canonical = /^[1-9][0-9]*$/.test(text);
    expect(parseTokenResponse({ ...base, expires_in: text }, at).isOk()).toBe(canonical);
  });

  test.prop([fc.oneof(fc.double(), fc.integer(), fc.constantFrom(0, -0, 1, Number.MAX_VALUE, Number.MIN_VALUE)), epochMs])(
    'should accept an expires_in number exactly when it is a positive integer, and never beyond the cap',
    (value, at) => {
      const result = parseTokenResponse({ ...base, expires_in: value }, at);
      expect(result.isOk()).toBe(Number.isInteger(value) && value > 0);
      if (result.isOk()) {
        expect(result.value.expiresAt).toBeGreaterThan(at);
        expect(result.value.expiresAt).toBeLessThanOrEqual(at + YEAR_S * 1000);
      }
    },
  );

  test.prop([
    fc.oneof(fc.integer({ min: 1 }), fc.constant(Number.MAX_SAFE_INTEGER), fc.bigInt({ min: 1n, max: 10n ** 40n }).map(String)),
    fc.oneof(epochMs, fc.double({ min: -8.64e15, max: 8.64e15, noNaN: true })),
    fc.option(fc.oneof(fc.integer({ min: 1 }), fc.constant(Number.MAX_SAFE_INTEGER)), { nil: undefined }),
  ])('should always produce a token the refresh decision accepts, to be used at issuance (validity)', (expiresIn, at, cap) => {
    const options = cap === undefined ? undefined : { maxLifetimeSeconds: cap };
    const token = parseTokenResponse({ ...base, expires_in: expiresIn, refresh_token: 'rt' }, at, options)._unsafeUnwrap();
    expect(token.expiresAt).toBeGreaterThan(token.issuedAt);
    expect(decideTokenRefresh({ now: at, token })).toStrictEqual(ok({ kind: 'use' }));
    expect(decideTokenRefresh({ now: token.expiresAt, token })).toStrictEqual(ok({ kind: 'refresh', refreshToken: 'rt' }));
  });

  test.prop([b64token, fc.constantFrom('bearer', 'Bearer', 'BEARER', 'bEARER'), fc.option(b64token, { nil: undefined })])(
    'should read every well-formed response',
    (accessToken, tokenType, refreshToken) => {
      const body = { access_token: accessToken, token_type: tokenType, expires_in: 3600, ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }) };
      expect(parseTokenResponse(body, t0)).toStrictEqual(
        ok({ accessToken, issuedAt: t0, expiresAt: t0 + 3_600_000, ...(refreshToken === undefined ? {} : { refreshToken }) }),
      );
    },
  );
});

/** A one-hour token issued at 0: margin = max(60 s, 6 min) = 6 min, so refreshAt = 3 240 000. */
const hour: OAuthToken = { accessToken: 'at', issuedAt: 0, expiresAt: 3_600_000, refreshToken: 'rt' };
const hourNoRefresh: OAuthToken = { accessToken: 'at', issuedAt: 0, expiresAt: 3_600_000 };

describe('computeRefreshAt', () => {
  it.each([
    { ref: '1 h: a tenth of the lifetime, 6 min', lifetime: 3_600_000, expected: ok(3_240_000) },
    { ref: '10 min: a tenth equals the 60 s floor', lifetime: 600_000, expected: ok(540_000) },
    { ref: '5 min: at least 60 s', lifetime: 300_000, expected: ok(240_000) },
    { ref: '2 min: 60 s is exactly half', lifetime: 120_000, expected: ok(60_000) },
    { ref: '1 min: at most half the lifetime', lifetime: 60_000, expected: ok(30_000) },
    { ref: '1 s: at most half the lifetime', lifetime: 1_000, expected: ok(500) },
    { ref: '1 ms: no margin left', lifetime: 1, expected: ok(1) },
    { ref: '1 year: 36.5 days', lifetime: YEAR_S * 1000, expected: ok(YEAR_S * 1000 - 3_153_600_000) },
  ])('should follow $ref', ({ lifetime, expected }) => {
    expect(computeRefreshAt({ accessToken: 'at', issuedAt: 0, expiresAt: lifetime })).toStrictEqual(expected);
  });

  test.prop([oauthToken])('should keep the margin between min(60 s, half) and half the lifetime (§5.1 rule 3)', (token) => {
    const refreshAt = computeRefreshAt(token)._unsafeUnwrap();
    const lifetime = token.expiresAt - token.issuedAt;
    const margin = token.expiresAt - refreshAt;
    expect(margin).toBeLessThanOrEqual(lifetime / 2);
    expect(margin).toBeGreaterThanOrEqual(Math.min(60_000, Math.floor(lifetime / 2)));
  });

  it.each([
    { ref: 'total function (issuedAt outside the time values; the lifetime would overflow to Infinity)', issuedAt: -Number.MAX_VALUE, expiresAt: Number.MAX_VALUE },
    { ref: 'total function (issuedAt outside the time values; the lifetime would overflow to Infinity)', issuedAt: -1e308, expiresAt: 1e308 },
    { ref: 'total function (issuedAt outside the time values)', issuedAt: 8.64e15 + 2, expiresAt: 9e15 },
  ])('should reject a token whose issuedAt is not a time value: $ref', ({ issuedAt, expiresAt }) => {
    expect(computeRefreshAt({ accessToken: 'at', issuedAt, expiresAt })).toStrictEqual(err({ code: 'invalid_token', field: 'issuedAt' }));
  });

  it('should accept the largest issuedAt and a far expiresAt, as parseTokenResponse produces with a large cap', () => {
    expect(computeRefreshAt({ accessToken: 'at', issuedAt: 8.64e15, expiresAt: 8.64e15 + 1e19 })).toStrictEqual(ok(8.64e15 + 9e18));
  });

  test.prop([fc.double({ noNaN: true }), fc.double({ noNaN: true })], { examples: [[-1.7976931348495605e308, 1.2755315626220918e297]] })(
    'should give a finite refresh point between issuedAt and expiresAt for every accepted token',
    (issuedAt, expiresAt) => {
      const result = computeRefreshAt({ accessToken: 'at', issuedAt, expiresAt });
      if (result.isErr()) return;
      expect(Number.isFinite(result.value)).toBe(true);
      expect(result.value).toBeGreaterThan(issuedAt);
      expect(result.value).toBeLessThanOrEqual(expiresAt);
    },
  );

  test.prop([fc.anything()])('should never throw on arbitrary input', (input) => {
    // @ts-expect-error -- deliberately breaks the static type
    const result = computeRefreshAt(input);
    expect(result.isOk() || result.isErr()).toBe(true);
  });
});

describe('decideTokenRefresh', () => {
  it.each([
    { ref: '§5.1 rule 3 (fresh token is used)', now: 0, token: hour, expected: ok({ kind: 'use' }) },
    { ref: '§5.1 rule 3 (one ms before the refresh point)', now: 3_239_999, token: hour, expected: ok({ kind: 'use' }) },
    { ref: '§2.4, §5.1 rule 3 (refresh before expiry, at the refresh point)', now: 3_240_000, token: hour, expected: ok({ kind: 'refresh', refreshToken: 'rt' }) },
    { ref: '§2.4 (at expiry)', now: 3_600_000, token: hour, expected: ok({ kind: 'refresh', refreshToken: 'rt' }) },
    { ref: '§2.4 (long after expiry)', now: 10 * 3_600_000, token: hour, expected: ok({ kind: 'refresh', refreshToken: 'rt' }) },
    { ref: 'clock before issuedAt', now: -5_000, token: hour, expected: ok({ kind: 'use' }) },
    { ref: 'no refresh token: used until the refresh point', now: 3_239_999, token: hourNoRefresh, expected: ok({ kind: 'use' }) },
    { ref: 'no refresh token: reauthenticate from the refresh point', now: 3_240_000, token: hourNoRefresh, expected: ok({ kind: 'reauthenticate' }) },
    { ref: 'no refresh token: reauthenticate after expiry', now: 3_600_001, token: hourNoRefresh, expected: ok({ kind: 'reauthenticate' }) },
    { ref: 'total function', now: Number.NaN, token: hour, expected: err({ code: 'invalid_input', field: 'now' }) },
    { ref: 'total function', now: Number.POSITIVE_INFINITY, token: hour, expected: err({ code: 'invalid_input', field: 'now' }) },
    { ref: 'total function', now: 0, token: { ...hour, expiresAt: 0 }, expected: err({ code: 'invalid_token', field: 'expiresAt' }) },
    { ref: 'total function', now: 0, token: { ...hour, issuedAt: Number.NaN }, expected: err({ code: 'invalid_token', field: 'issuedAt' }) },
    { ref: 'total function', now: 0, token: { ...hour, accessToken: '' }, expected: err({ code: 'invalid_token', field: 'accessToken' }) },
    { ref: 'total function', now: 0, token: { ...hour, refreshToken: '' }, expected: err({ code: 'invalid_token', field: 'refreshToken' }) },
    { ref: 'total function', now: 0, token: { ...hour, scope: 'user:all' }, expected: err({ code: 'invalid_token', field: 'scope' }) },
    { ref: 'total function', now: 0, token: null, expected: err({ code: 'invalid_token', field: 'token' }) },
  ])('should follow $ref at now=$now', ({ now, token, expected }) => {
    // @ts-expect-error -- some rows deliberately break the static type
    expect(decideTokenRefresh({ now, token })).toStrictEqual(expected);
  });

  const boundary = fc.constantFrom('refreshAt-1', 'refreshAt', 'expiresAt');
  test.prop([oauthToken, boundary], {
    examples: [
      [hour, 'refreshAt-1'],
      [hour, 'refreshAt'],
      [hour, 'expiresAt'],
      [hourNoRefresh, 'refreshAt-1'],
      [hourNoRefresh, 'refreshAt'],
      [hourNoRefresh, 'expiresAt'],
    ],
  })('should switch from use exactly at the refresh point (pinned boundaries)', (token, at) => {
    const refreshAt = computeRefreshAt(token)._unsafeUnwrap();
    const now = at === 'refreshAt-1' ? refreshAt - 1 : at === 'refreshAt' ? refreshAt : token.expiresAt;
    const later = token.refreshToken === undefined ? { kind: 'reauthenticate' } : { kind: 'refresh', refreshToken: token.refreshToken };
    expect(decideTokenRefresh({ now, token })).toStrictEqual(ok(at === 'refreshAt-1' ? { kind: 'use' } : later));
  });

  test.prop([oauthToken, fc.integer({ min: -1e12, max: 1e13 }), fc.integer({ min: -1e12, max: 1e13 })])(
    'should be monotonic in time: once not use, never use again, and the same answer',
    (token, a, b) => {
      const [early, late] = a <= b ? [a, b] : [b, a];
      const first = decideTokenRefresh({ now: early, token })._unsafeUnwrap();
      const second = decideTokenRefresh({ now: late, token })._unsafeUnwrap();
      if (first.kind !== 'use') expect(second).toStrictEqual(first);
    },
  );

  test.prop([oauthToken, fc.nat({ max: 1e12 })])('should never say use at or after expiry (§2.4)', (token, after) => {
    const decision = decideTokenRefresh({ now: token.expiresAt + after, token })._unsafeUnwrap();
    expect(decision).toStrictEqual(token.refreshToken === undefined ? { kind: 'reauthenticate' } : { kind: 'refresh', refreshToken: token.refreshToken });
  });

  test.prop([oauthToken, fc.nat({ max: 60_000 })])(
    'should refresh at least 60 s before expiry, or from half the lifetime when shorter (§5.1 rule 3)',
    (token, before) => {
      const lifetime = token.expiresAt - token.issuedAt;
      fc.pre(before <= Math.min(60_000, Math.floor(lifetime / 2)));
      expect(decideTokenRefresh({ now: token.expiresAt - before, token })._unsafeUnwrap().kind).not.toBe('use');
    },
  );

  test.prop([oauthToken, fc.double({ min: 0, max: 0.5, noNaN: true })])(
    'should use the token through the first half of its lifetime',
    (token, fraction) => {
      const lifetime = token.expiresAt - token.issuedAt;
      const now = token.issuedAt + Math.floor(fraction * lifetime);
      fc.pre(now < token.expiresAt - Math.floor(lifetime / 2));
      expect(decideTokenRefresh({ now, token })).toStrictEqual(ok({ kind: 'use' }));
    },
  );

  test.prop([fc.anything()])('should never throw on arbitrary input', (input) => {
    // @ts-expect-error -- deliberately breaks the static type
    const result = decideTokenRefresh(input);
    expect(result.isOk() || result.isErr()).toBe(true);
  });

  test.prop([fc.anything(), fc.anything()])('should never throw on arbitrary fields', (now, token) => {
    // @ts-expect-error -- deliberately breaks the static type
    const result = decideTokenRefresh({ now, token });
    expect(result.isOk() || result.isErr()).toBe(true);
  });
});

describe('mergeRefreshedToken', () => {
  const previous: OAuthToken = { accessToken: 'old', issuedAt: 0, expiresAt: 3_600_000, refreshToken: 'rt-old', scope: ['user:all'] };
  it.each([
    {
      ref: 'RFC 6749 §6 (refresh token and scope kept when omitted)',
      refreshed: { accessToken: 'new', issuedAt: 3_300_000, expiresAt: 6_900_000 },
      expected: ok({ accessToken: 'new', issuedAt: 3_300_000, expiresAt: 6_900_000, refreshToken: 'rt-old', scope: ['user:all'] }),
    },
    {
      ref: 'RFC 6749 §6 (a new refresh token replaces the old one)',
      refreshed: { accessToken: 'new', issuedAt: 3_300_000, expiresAt: 6_900_000, refreshToken: 'rt-new' },
      expected: ok({ accessToken: 'new', issuedAt: 3_300_000, expiresAt: 6_900_000, refreshToken: 'rt-new', scope: ['user:all'] }),
    },
    {
      ref: 'RFC 6749 §6 (a returned scope replaces the old one, even when empty)',
      refreshed: { accessToken: 'new', issuedAt: 3_300_000, expiresAt: 6_900_000, scope: [] },
      expected: ok({ accessToken: 'new', issuedAt: 3_300_000, expiresAt: 6_900_000, refreshToken: 'rt-old', scope: [] }),
    },
  ])('should follow $ref', ({ refreshed, expected }) => {
    expect(mergeRefreshedToken(previous, refreshed)).toStrictEqual(expected);
  });

  it('should leave both out when neither token has them', () => {
    expect(mergeRefreshedToken(hourNoRefresh, { accessToken: 'n', issuedAt: 1, expiresAt: 2 })).toStrictEqual(
      ok({ accessToken: 'n', issuedAt: 1, expiresAt: 2 }),
    );
  });

  it('should keep the old refresh token across a parsed refresh response that omits it', () => {
    const refreshed = parseTokenResponse({ access_token: 'new', token_type: 'Bearer', expires_in: 3600 }, 3_300_000)._unsafeUnwrap();
    const merged = mergeRefreshedToken(previous, refreshed)._unsafeUnwrap();
    expect(decideTokenRefresh({ now: 6_900_000, token: merged })).toStrictEqual(ok({ kind: 'refresh', refreshToken: 'rt-old' }));
  });

  it.each([
    { previous: null, refreshed: hour, expected: err({ code: 'invalid_token', token: 'previous', field: 'token' }) },
    { previous: hour, refreshed: { ...hour, expiresAt: -1 }, expected: err({ code: 'invalid_token', token: 'refreshed', field: 'expiresAt' }) },
    { previous: { ...hour, refreshToken: 5 }, refreshed: hour, expected: err({ code: 'invalid_token', token: 'previous', field: 'refreshToken' }) },
  ])('should reject malformed tokens ($expected.error.token)', ({ previous: p, refreshed, expected }) => {
    // @ts-expect-error -- deliberately breaks the static type
    expect(mergeRefreshedToken(p, refreshed)).toStrictEqual(expected);
  });

  test.prop([oauthToken, oauthToken])('should take the access token and times from the refresh, the rest when present', (old, next) => {
    const merged = mergeRefreshedToken(old, next)._unsafeUnwrap();
    expect(merged.accessToken).toBe(next.accessToken);
    expect(merged.issuedAt).toBe(next.issuedAt);
    expect(merged.expiresAt).toBe(next.expiresAt);
    expect(merged.refreshToken).toBe(next.refreshToken ?? old.refreshToken);
    expect(merged.scope).toStrictEqual(next.scope ?? old.scope);
  });

  test.prop([oauthToken, oauthToken])('should be idempotent and neutral on itself', (old, next) => {
    const merged = mergeRefreshedToken(old, next)._unsafeUnwrap();
    expect(mergeRefreshedToken(merged, next)).toStrictEqual(ok(merged));
    expect(mergeRefreshedToken(old, old)).toStrictEqual(ok(old));
  });

  test.prop([fc.anything(), fc.anything()])('should never throw on arbitrary input', (a, b) => {
    // @ts-expect-error -- deliberately breaks the static type
    const result = mergeRefreshedToken(a, b);
    expect(result.isOk() || result.isErr()).toBe(true);
  });
});
