/**
 * A throw inside gatehouse's own site-configuration reader is a defect in gatehouse: it is reported as
 * `internal_error` with a message that says so, never as the administrator's syntax error.
 */
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../../src/core/site-configuration/providers.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../src/core/site-configuration/providers.js')>();
  return {
    ...actual,
    readProviders: (): never => {
      throw new TypeError('a defect in the provider reader');
    },
  };
});

const { parseSiteConfiguration } = await import('../../../src/core/site-configuration/parse.js');

describe('parseSiteConfiguration when its own reader throws', () => {
  it('should report internal_error, never syntax_error', () => {
    const result = parseSiteConfiguration('{"auth.providers": [{"type": "builtin"}]}');
    expect(result.isErr()).toBe(true);
    const error = result._unsafeUnwrapErr();
    expect(error.code).toBe('internal_error');
    expect(error.problems.map((p) => p.code)).toStrictEqual(['internal_error']);
    expect(error.problems[0]?.message).toMatch(/defect in gatehouse/);
  });

  it('should still report a syntax error of the text as syntax_error', () => {
    const result = parseSiteConfiguration('{"auth.providers": [');
    expect(result._unsafeUnwrapErr().code).toBe('invalid_site_configuration');
    expect(result._unsafeUnwrapErr().problems.map((p) => p.code)).toContain('syntax_error');
  });
});
