/**
 * Go duration strings (`time.ParseDuration`), as `auth.sessionExpiry` and `auth.sessionIdleTimeout` take them.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { formatDuration, MAX_DURATION_MS, parseDuration } from '../../src/core/duration.js';

describe('parseDuration (Go notation)', () => {
  test.each([
    ['2160h (the auth.sessionExpiry default)', '2160h', 2160 * 3_600_000],
    ['168h', '168h', 168 * 3_600_000],
    ['1h30m', '1h30m', 5_400_000],
    ['fractions', '1.5h', 5_400_000],
    ['a leading dot', '.5s', 500],
    ['a trailing dot', '5.s', 5000],
    ['every unit', '1h1m1s1ms1us1ns', 3_661_001.001001],
    ['µs (micro sign)', '1000\u00b5s', 1],
    ['μs (Greek mu)', '1000\u03bcs', 1],
    ['a plus sign', '+30m', 1_800_000],
    ['zero without a unit', '0', 0],
    ['zero with a unit', '0s', 0],
    ['units repeated, as Go allows', '1h1h', 7_200_000],
  ])('%s', (_name, text, ms) => {
    expect(parseDuration(text)._unsafeUnwrap()).toBeCloseTo(ms, 9);
  });

  test.each([
    ['empty', ''],
    ['no unit', '90'],
    ['a space', '90 m'],
    ['days are no Go unit', '90d'],
    ['negative', '-1h'],
    ['just a sign', '+'],
    ['a unit alone', 'h'],
    ['a dot alone', '.h'],
    ['upper case unit', '1H'],
    ['past the largest Go duration', '2562048h'],
    ['too long a text', `${'1'.repeat(70)}h`],
    ['not a string', 90],
  ])('refuses %s', (_name, text) => {
    expect(parseDuration(text)._unsafeUnwrapErr().code).toBe('invalid_duration');
  });
});

describe('formatDuration', () => {
  test.each([
    [2160 * 3_600_000, '2160h'],
    [5_400_000, '1h30m'],
    [0, '0s'],
    [1500, '1.5s'],
    [61_000, '1m1s'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  test.prop([fc.integer({ min: 0, max: MAX_DURATION_MS })])('round-trips whole milliseconds through parseDuration', (ms) => {
    expect(parseDuration(formatDuration(ms))._unsafeUnwrap()).toBeCloseTo(ms, 3);
  });

  // Oracle: an independent sum of h/m/s parts.
  test.prop([fc.nat({ max: 100_000 }), fc.nat({ max: 59 }), fc.nat({ max: 59 })])('h, m and s parts add up', (h, m, s) => {
    expect(parseDuration(`${h}h${m}m${s}s`)._unsafeUnwrap()).toBe(h * 3_600_000 + m * 60_000 + s * 1000);
  });

  test.each([
    ['an object whose toString is not a function', { toString: false }, 'a value of type object'],
    ['an object with no prototype', Object.create(null) as unknown, 'a value of type object'],
    ['a symbol', Symbol('d'), 'a value of type symbol'],
    ['a number', 5, '5'],
    ['null', null, 'null'],
    ['an array', ['1h'], 'an array'],
  ])('refuses %s without calling its toString', (_name, input, value) => {
    expect(parseDuration(input)._unsafeUnwrapErr()).toEqual({ code: 'invalid_duration', value });
  });

  test.prop([fc.oneof(fc.string(), fc.anything({ withObjectString: true, withNullPrototype: true }))])('never throws', (input) => {
    expect(() => parseDuration(input)).not.toThrow();
  });
});
