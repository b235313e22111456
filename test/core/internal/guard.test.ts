import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import {
  fieldPath,
  readArray,
  readBoolean,
  readOptionalString,
  readOptionalStringArray,
  readRecord,
  readString,
  readStringArray,
} from '../../../src/core/internal/guard.js';

describe('plain-fields', () => {
  it.each([
    { ref: 'root path', actual: fieldPath('', 'emails'), expected: 'emails' },
    { ref: 'nested path', actual: fieldPath('emails[0]', 'verified'), expected: 'emails[0].verified' },
  ])('should join paths: $ref', ({ actual, expected }) => {
    expect(actual).toBe(expected);
  });

  it.each([
    { ref: 'readRecord (object)', actual: readRecord({ a: 1 }, 'x'), expected: ok({ a: 1 }) },
    { ref: 'readRecord (array)', actual: readRecord([], 'x'), expected: err({ path: 'x', expected: 'object' }) },
    { ref: 'readRecord (null)', actual: readRecord(null, ''), expected: err({ path: '', expected: 'object' }) },
    { ref: 'readString', actual: readString({ a: 'x' }, 'p', 'a', true), expected: ok('x') },
    { ref: 'readString (empty allowed)', actual: readString({ a: '' }, 'p', 'a', false), expected: ok('') },
    { ref: 'readString (empty refused)', actual: readString({ a: '' }, 'p', 'a', true), expected: err({ path: 'p.a', expected: 'non-empty string' }) },
    { ref: 'readString (missing)', actual: readString({}, '', 'a', false), expected: err({ path: 'a', expected: 'string' }) },
    { ref: 'readString (inherited)', actual: readString(Object.create({ a: 'x' }), '', 'a', false), expected: err({ path: 'a', expected: 'string' }) },
    { ref: 'readOptionalString (absent)', actual: readOptionalString({}, '', 'a', true), expected: ok(undefined) },
    { ref: 'readOptionalString (wrong type)', actual: readOptionalString({ a: 1 }, '', 'a', true), expected: err({ path: 'a', expected: 'non-empty string' }) },
    { ref: 'readBoolean', actual: readBoolean({ v: false }, 'e', 'v'), expected: ok(false) },
    { ref: 'readBoolean (text)', actual: readBoolean({ v: 'true' }, 'e', 'v'), expected: err({ path: 'e.v', expected: 'boolean' }) },
    { ref: 'readStringArray', actual: readStringArray(['a', 'b'], 'orgs'), expected: ok(['a', 'b']) },
    { ref: 'readStringArray (element)', actual: readStringArray(['a', 1], 'orgs'), expected: err({ path: 'orgs[1]', expected: 'string' }) },
    { ref: 'readStringArray (hole)', actual: readStringArray(['a', , 'c'], 'orgs'), expected: err({ path: 'orgs[1]', expected: 'string' }) },
    { ref: 'readStringArray (not an array)', actual: readStringArray('a', 'orgs'), expected: err({ path: 'orgs', expected: 'array' }) },
    { ref: 'readOptionalStringArray (absent)', actual: readOptionalStringArray({}, '', 'orgs'), expected: ok(undefined) },
    { ref: 'readOptionalStringArray', actual: readOptionalStringArray({ orgs: ['x'] }, 'p', 'orgs'), expected: ok(['x']) },
  ])('should read fields: $ref', ({ actual, expected }) => {
    expect(actual).toStrictEqual(expected);
  });

  it('should never invoke a getter', () => {
    let calls = 0;
    const value = Object.defineProperty({}, 'a', {
      get: () => {
        calls++;
        return 'x';
      },
    });
    expect(readString(value, '', 'a', false)).toStrictEqual(err({ path: 'a', expected: 'string' }));
    expect(readArray([value], 'list', (element, path) => readString(element ?? {}, path, 'a', false))).toStrictEqual(
      err({ path: 'list[0].a', expected: 'string' }),
    );
    expect(calls).toBe(0);
  });

  test.prop([fc.anything(), fc.string(), fc.string()])('should never throw', (value, parent, key) => {
    expect(() => readRecord(value, parent)).not.toThrow();
    expect(() => readStringArray(value, parent)).not.toThrow();
    if (typeof value === 'object' && value !== null) {
      expect(() => readString(value, parent, key, true)).not.toThrow();
      expect(() => readBoolean(value, parent, key)).not.toThrow();
      expect(() => readOptionalStringArray(value, parent, key)).not.toThrow();
    }
  });

  test.prop([fc.array(fc.string())])('should return a fresh copy of a string array', (list) => {
    const read = readStringArray(list, 'x')._unsafeUnwrap();
    expect(read).toStrictEqual(list);
    expect(read).not.toBe(list);
  });
});
