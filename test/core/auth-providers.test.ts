import { describe, expect, it } from 'vitest';
import { CODE_HOST_PROVIDER_TYPES, PROVIDER_TYPES } from '../../src/core/auth-providers.js';

describe('PROVIDER_TYPES', () => {
  it('should list every provider type of §2.5 and §5.2 exactly once', () => {
    expect([...PROVIDER_TYPES].sort()).toStrictEqual(
      ['builtin', 'hosta', 'hostb', 'hostccloud', 'hostcserver', 'http-header', 'openidconnect', 'reviewhost', 'saml'],
    );
  });
  it('should treat exactly the four OAuth code hosts as code hosts (§5.4 rule 3)', () => {
    expect(CODE_HOST_PROVIDER_TYPES.every((t) => (PROVIDER_TYPES as readonly string[]).includes(t))).toBe(true);
    expect([...CODE_HOST_PROVIDER_TYPES]).toStrictEqual(['hosta', 'hostb', 'hostccloud', 'hostcserver']);
  });
});
