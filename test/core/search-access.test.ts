import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { authorizeSearch, DEFAULT_MAX_SEARCH_FIELDS } from '../../src/core/search-access.js';
import type { SearchAccessInput } from '../../src/core/search-access.js';

describe('authorizeSearch', () => {
  // The model: one row per input combination.
  const model = [
    { viewer: 'user', authPublic: false, expected: { kind: 'allow' } },
    { viewer: 'user', authPublic: true, expected: { kind: 'allow' } },
    { viewer: 'anonymous', authPublic: true, expected: { kind: 'allow' } },
    { viewer: 'anonymous', authPublic: false, expected: { kind: 'deny', reason: 'sign_in_required' } },
  ] as const;

  it('should have exactly one model row per input combination', () => {
    expect(new Set(model.map((r) => `${r.viewer}/${String(r.authPublic)}`)).size).toBe(2 * 2);
  });

  it.each(model)('should decide §2.2 search for a $viewer viewer with auth.public $authPublic', ({ viewer, authPublic, expected }) => {
    expect(authorizeSearch({ viewer, authPublic })).toStrictEqual(ok(expected));
  });

  it('should allow at most 5 search fields per operation by default', () => {
    expect(DEFAULT_MAX_SEARCH_FIELDS).toBe(5);
  });

  it.each([
    { ref: 'not an object', input: null, field: 'input' },
    { ref: 'an unknown viewer', input: { viewer: 'admin', authPublic: false }, field: 'viewer' },
    { ref: 'auth.public as a string', input: { viewer: 'anonymous', authPublic: 'true' }, field: 'authPublic' },
  ])('should refuse malformed input: $ref', ({ input, field }) => {
    expect(authorizeSearch(input as unknown as SearchAccessInput)).toStrictEqual(err({ code: 'invalid_input', field }));
  });

  test.prop([fc.anything()])('should never throw on arbitrary input', (input) => {
    const result = authorizeSearch(input as SearchAccessInput);
    expect(result.isOk() || result.isErr()).toBe(true);
  });

  test.prop([fc.anything()])('should never allow an anonymous viewer when auth.public is anything but true', (authPublic) => {
    const result = authorizeSearch({ viewer: 'anonymous', authPublic } as SearchAccessInput);
    if (authPublic !== true) expect(result.isOk() && result.value.kind === 'allow').toBe(false);
  });
});
