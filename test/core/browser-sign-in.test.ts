import { describe, expect, it } from 'vitest';
import { mayUsePassword } from '../../src/core/browser-sign-in.js';

describe('mayUsePassword (§1: service accounts authenticate with access tokens only)', () => {
  it.each([
    { ref: 'a person with a password', serviceAccount: false, passwordHash: 'scrypt$x', may: true },
    { ref: 'a person without a password', serviceAccount: false, passwordHash: null, may: false },
    { ref: 'a service account with a password hash', serviceAccount: true, passwordHash: 'scrypt$x', may: false },
    { ref: 'a service account without one', serviceAccount: true, passwordHash: null, may: false },
  ])('should answer $may for $ref', ({ serviceAccount, passwordHash, may }) => {
    expect(mayUsePassword({ serviceAccount, passwordHash })).toBe(may);
  });
});
