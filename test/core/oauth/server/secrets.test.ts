import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { generateOAuthSecret, parseOAuthSecret } from '../../../../src/core/oauth/server/secrets.js';
import { OAUTH_SECRET_KINDS } from '../../../../src/core/oauth/server/records.js';

describe('generateOAuthSecret and parseOAuthSecret', () => {
  const rows = [
    { ref: 'prefix per kind', kind: 'client_id', prefix: 'gai_' },
    { ref: 'prefix per kind', kind: 'client_secret', prefix: 'gas_' },
    { ref: 'prefix per kind', kind: 'authorization_code', prefix: 'gac_' },
    { ref: 'prefix per kind', kind: 'access_token', prefix: 'gao_' },
    { ref: 'prefix per kind', kind: 'refresh_token', prefix: 'gar_' },
  ] as const;
  it.each(rows)('should prefix $kind with $prefix ($ref)', ({ kind, prefix }) => {
    const secret = generateOAuthSecret(kind, new Uint8Array(20))._unsafeUnwrap();
    expect(secret.startsWith(prefix)).toBe(true);
    expect(secret).toHaveLength(43);
  });
  it('should refuse too few random bytes (§2.3: at least 160 bits)', () => {
    expect(generateOAuthSecret('access_token', new Uint8Array(19))).toStrictEqual(err({ code: 'insufficient_entropy', required: 20, received: 19 }));
  });
  test.prop([fc.constantFrom(...OAUTH_SECRET_KINDS), fc.constantFrom(...OAUTH_SECRET_KINDS), fc.uint8Array({ minLength: 20, maxLength: 20 })])(
    'should round-trip within a kind and refuse across kinds',
    (kind, other, bytes) => {
      const secret = generateOAuthSecret(kind, bytes)._unsafeUnwrap();
      expect(parseOAuthSecret(kind, secret)).toStrictEqual(ok(secret));
      expect(parseOAuthSecret(other, secret).isOk()).toBe(kind === other);
    },
  );
  test.prop([fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.nat(), fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz234567')])(
    'should reject any single-character typo (checksum)',
    (bytes, at, ch) => {
      const secret = generateOAuthSecret('refresh_token', bytes)._unsafeUnwrap();
      const i = 4 + (at % 39);
      fc.pre(secret.charAt(i) !== ch);
      const typo = secret.slice(0, i) + ch + secret.slice(i + 1);
      expect(parseOAuthSecret('refresh_token', typo)).toStrictEqual(err({ code: 'malformed' }));
    },
  );
  test.prop([fc.anything(), fc.anything()])('should never throw', (a, b) => {
    expect(() => generateOAuthSecret(a as never, b as never)).not.toThrow();
    expect(() => parseOAuthSecret(a as never, b as never)).not.toThrow();
  });
});
