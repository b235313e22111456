import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { booleanTable } from '../../../src/core/internal/decision-table.js';

const PAIRS = [
  [false, false],
  [false, true],
  [true, false],
  [true, true],
] as const;

describe('booleanTable', () => {
  it.each(PAIRS)('should answer (%s, %s) as the decision does, asking it once per pair in all', (a, b) => {
    const asked: string[] = [];
    const table = booleanTable((x, y) => {
      asked.push(`${String(x)},${String(y)}`);
      return { x, y };
    });
    expect(table(a, b)).toEqual({ x: a, y: b });
    expect(table(a, b)).toBe(table(a, b));
    expect([...asked].sort()).toEqual(['false,false', 'false,true', 'true,false', 'true,true']);
  });

  it('should freeze an object answer and leave a primitive or null as it is', () => {
    const table = booleanTable((a, b) => (a ? { code: 'refused' } : b ? null : 'ok'));
    expect(Object.isFrozen(table(true, false))).toBe(true);
    expect(table(false, true)).toBeNull();
    expect(table(false, false)).toBe('ok');
  });

  // model: any decision over two booleans (fast-check's fc.func is the oracle) reads back unchanged
  test.prop([fc.func(fc.oneof(fc.integer(), fc.constant(null), fc.string())), fc.boolean(), fc.boolean()])(
    'should agree with any decision it tabulates',
    (decide, a, b) => {
      expect(booleanTable(decide)(a, b)).toBe(decide(a, b));
    },
  );
});
