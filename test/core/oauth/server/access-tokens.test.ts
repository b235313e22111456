import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { NOW } from './fixtures.js';
import { decideOAuthAccessTokenUse, resolveAccessTokenTtl } from '../../../../src/core/oauth/server/access-tokens.js';
import {
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  MAX_ACCESS_TOKEN_TTL_SECONDS,
  type OAuthAccessTokenRecord,
} from '../../../../src/core/oauth/server/records.js';

describe('decideOAuthAccessTokenUse', () => {
  const record: OAuthAccessTokenRecord = {
    tokenHash: 'ah',
    familyId: 'fam',
    clientId: 'gai_client',
    userId: 'u1',
    scopes: ['user:all'],
    expiresAt: NOW + 3_600_000,
    familyRevoked: false,
  };
  const rows = [
    { ref: '§5.1 (Bearer token works)', now: NOW, record, expected: ok({ kind: 'allow', userId: 'u1', clientId: 'gai_client', scopes: ['user:all'] }) },
    { ref: '§2.4 (short-lived, boundary)', now: NOW + 3_600_000, record, expected: ok({ kind: 'deny', reason: 'expired' }) },
    { ref: 'RFC 9700 §4.14.2 (revoked family)', now: NOW, record: { ...record, familyRevoked: true }, expected: ok({ kind: 'deny', reason: 'family_revoked' }) },
    { ref: '§5.1 (unknown token)', now: NOW, record: null, expected: ok({ kind: 'deny', reason: 'unknown_token' }) },
    { ref: 'time is a number', now: Number.NaN, record, expected: err({ code: 'invalid_input', field: 'now' }) },
  ];
  it.each(rows)('should follow $ref', ({ now, record: r, expected }) => {
    expect(decideOAuthAccessTokenUse({ now, record: r })).toStrictEqual(expected);
  });
  test.prop([fc.integer(), fc.nat()])('should be monotonic in time', (t, dt) => {
    const kind = (now: number) => decideOAuthAccessTokenUse({ now, record: { ...record, expiresAt: 0 } })._unsafeUnwrap().kind;
    if (kind(t) === 'deny') expect(kind(t + dt)).toBe('deny');
  });
  test.prop([fc.anything(), fc.anything()])('should never throw', (now, r) => {
    expect(() => decideOAuthAccessTokenUse({ now, record: r } as never)).not.toThrow();
    expect(() => decideOAuthAccessTokenUse(r as never)).not.toThrow();
  });
});

// -----------------------------------------------------------------------------------------------

describe('resolveAccessTokenTtl', () => {
  const rows = [
    { ref: 'default 3600', input: undefined, expected: ok(DEFAULT_ACCESS_TOKEN_TTL_SECONDS) },
    { ref: 'configurable', input: 60, expected: ok(60) },
    { ref: '§5.1 rule 3 (always short-lived)', input: MAX_ACCESS_TOKEN_TTL_SECONDS, expected: ok(MAX_ACCESS_TOKEN_TTL_SECONDS) },
    { ref: '§5.1 rule 3 (always short-lived)', input: MAX_ACCESS_TOKEN_TTL_SECONDS + 1, expected: err({ code: 'invalid_access_token_ttl', max: MAX_ACCESS_TOKEN_TTL_SECONDS }) },
    { ref: 'positive', input: 0, expected: err({ code: 'invalid_access_token_ttl', max: MAX_ACCESS_TOKEN_TTL_SECONDS }) },
    { ref: 'whole seconds', input: 1.5, expected: err({ code: 'invalid_access_token_ttl', max: MAX_ACCESS_TOKEN_TTL_SECONDS }) },
    { ref: 'finite', input: Number.POSITIVE_INFINITY, expected: err({ code: 'invalid_access_token_ttl', max: MAX_ACCESS_TOKEN_TTL_SECONDS }) },
  ];
  it.each(rows)('should follow $ref for $input', ({ input, expected }) => {
    expect(resolveAccessTokenTtl(input)).toStrictEqual(expected);
  });
  test.prop([fc.anything()])('should never throw', (v) => {
    expect(() => resolveAccessTokenTtl(v as never)).not.toThrow();
  });
});
