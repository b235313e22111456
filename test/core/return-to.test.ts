import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { MAX_RETURN_TO_LENGTH, safeReturnTo } from '../../src/core/return-to.js';

describe('safeReturnTo', () => {
  it.each([
    { ref: 'a path on this site is kept', input: '/search?q=repo:x', expected: '/search?q=repo:x' },
    { ref: 'the root is kept', input: '/', expected: '/' },
    { ref: 'percent-encoded characters are kept', input: '/a%20b', expected: '/a%20b' },
    { ref: 'absent: the fallback', input: null, expected: '/fallback' },
    { ref: 'undefined: the fallback', input: undefined, expected: '/fallback' },
    { ref: 'empty: the fallback', input: '', expected: '/fallback' },
    { ref: 'relative path: the fallback', input: 'search', expected: '/fallback' },
    { ref: 'absolute URL: the fallback', input: 'https://evil.example/', expected: '/fallback' },
    { ref: 'scheme-relative URL: the fallback', input: '//evil.example/', expected: '/fallback' },
    { ref: 'backslash host: the fallback', input: '/\\evil.example/', expected: '/fallback' },
    { ref: 'backslash anywhere: the fallback', input: '/a\\b', expected: '/fallback' },
    { ref: 'a control character: the fallback', input: '/a\nb', expected: '/fallback' },
    { ref: 'non-ASCII: the fallback', input: '/é', expected: '/fallback' },
    { ref: 'at the length bound: kept', input: `/${'a'.repeat(MAX_RETURN_TO_LENGTH - 1)}`, expected: `/${'a'.repeat(MAX_RETURN_TO_LENGTH - 1)}` },
    { ref: 'past the length bound: the fallback', input: `/${'a'.repeat(MAX_RETURN_TO_LENGTH)}`, expected: '/fallback' },
  ])('should answer $expected for $ref', ({ input, expected }) => {
    expect(safeReturnTo(input, '/fallback')).toBe(expected);
  });

  test.prop([fc.string({ unit: 'binary', maxLength: 64 })])('should return the value itself or the fallback, never anything else', (value) => {
    const kept = safeReturnTo(value, '/fallback');
    expect(kept === value || kept === '/fallback').toBe(true);
  });

  test.prop([fc.string({ unit: 'binary', maxLength: 64 })])('should only ever return a path a browser keeps on this origin', (value) => {
    const kept = safeReturnTo(value, '/');
    expect(new URL(kept, 'https://gatehouse.example').origin).toBe('https://gatehouse.example');
    expect(/[^\u0020-\u007e]|\\/.test(kept)).toBe(false);
  });

  test.prop([fc.webPath({ size: 'small' })])('should keep every ASCII path that starts with a single slash', (path) => {
    const value = `/x${path}`;
    fc.pre(!value.includes('\\') && value.length <= MAX_RETURN_TO_LENGTH);
    expect(safeReturnTo(value, '/fallback')).toBe(value);
  });
});
