import { deepStrictEqual } from 'node:assert/strict';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { jsonObject } from '../../src/kernel/json-object.js';

describe('jsonObject', () => {
  it.each([
    ['{"count":2,"at":3}', { count: 2, at: 3 }],
    ['{}', {}],
    ['[1,2]', null],
    ['null', null],
    ['"text"', null],
    ['7', null],
    ['{"unterminated":', null],
    ['', null],
  ])('should read %j as %j', (text, expected) => {
    expect(jsonObject(text)).toStrictEqual(expected);
  });

  test.prop([fc.string()])('should never throw, whatever the text', (text) => {
    expect(() => jsonObject(text)).not.toThrow();
  });

  // node's deep strict equality, not toStrictEqual: fast-check generates keys such as `constructor`, which
  // toStrictEqual reads as the object's type and compares by identity. It throws with a diff when they differ.
  test.prop([fc.dictionary(fc.string(), fc.jsonValue())])('should give back the fields of every JSON object it is given as text', (object) => {
    deepStrictEqual(jsonObject(JSON.stringify(object)), JSON.parse(JSON.stringify(object)));
  });

  it('should keep a "constructor" key as a plain field', () => {
    const read = jsonObject('{"constructor":["a"],"nested":{"constructor":1}}');
    deepStrictEqual(read, { constructor: ['a'], nested: { constructor: 1 } });
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
  });

  test.prop([fc.oneof(fc.array(fc.jsonValue()), fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null))])(
    'should answer null for every JSON value that is not an object',
    (value) => {
      expect(jsonObject(JSON.stringify(value))).toBeNull();
    },
  );

  it('should keep a "__proto__" key as a plain field, changing no prototype', () => {
    const read = jsonObject('{"__proto__":{"polluted":true}}');
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
