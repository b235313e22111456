import { createHash } from 'node:crypto';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import {
  ACCESS_TOKEN_LENGTH,
  ACCESS_TOKEN_PREFIX,
  ACCESS_TOKEN_RANDOM_BYTES,
  ACCESS_TOKEN_SCOPES,
  REQUEST_CREDENTIALS,
  accessTokenDigestsEqual,
  authorizeAccessTokenCreation,
  generateAccessToken,
  hashAccessToken,
  MAX_ACCESS_TOKEN_NOTE_LENGTH,
  MAX_ACCESS_TOKENS_PER_ACCOUNT,
  parseAccessToken,
  type AccessTokenCreationDecision,
  type AccessTokenCreationError,
  type AccessTokenCreationInput,
} from '../../src/core/access-token.js';
import { accessTokenSecret, anyScopeName, tokenRandomBytes } from '../arbitraries/tokens.js';
import type { Result } from 'neverthrow';

const sha256 = (bytes: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(bytes).digest());

/** RFC 4648 base32 digits of a non-negative integer, most significant first, left-padded with `a` (zero). */
const RFC_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
function rfcBase32Digits(value: bigint, width: number): string {
  const native = value.toString(32).padStart(width, '0'); // 0-9a-v digits
  return [...native].map((d) => RFC_ALPHABET.charAt(Number.parseInt(d, 32))).join('');
}
function rfcBase32ToBytes(digits: string): Uint8Array {
  const value = [...digits].reduce((acc, d) => acc * 32n + BigInt(RFC_ALPHABET.indexOf(d)), 0n);
  return Uint8Array.from(Buffer.from(value.toString(16).padStart(40, '0'), 'hex'));
}
/** The token format written out independently: prefix, 160-bit big-endian base32, 32-bit CRC in 7 digits. */
function expectedToken(bytes: Uint8Array): string {
  const payload = bytes.slice(0, 20);
  const value = BigInt('0x' + Buffer.from(payload).toString('hex'));
  return 'gat_' + rfcBase32Digits(value, 32) + rfcBase32Digits(BigInt(zlibCrc32(payload)), 7);
}

const admin = { id: 'admin', siteAdmin: true } as const;
const user = { id: 'alice', siteAdmin: false } as const;

describe('authorizeAccessTokenCreation', () => {
  const rows: { ref: string; input: AccessTokenCreationInput; expected: Result<AccessTokenCreationDecision, AccessTokenCreationError> }[] = [
    {
      ref: '§2.3 (a user creates a token for themselves)',
      input: { actor: user, subject: { id: 'alice' }, scopes: ['user:all'] },
      expected: ok({ kind: 'allow', scopes: ['user:all'] }),
    },
    {
      ref: '§2.3, §5.1 rule 2 (site-admin:sudo by administrators only)',
      input: { actor: user, subject: { id: 'alice' }, scopes: ['user:all', 'site-admin:sudo'] },
      expected: ok({ kind: 'deny', reason: 'sudo_requires_site_admin' }),
    },
    {
      ref: '§5.1 rule 2 (an admin may create a sudo token; scopes in canonical order)',
      input: { actor: admin, subject: { id: 'admin' }, scopes: ['site-admin:sudo', 'user:all'] },
      expected: ok({ kind: 'allow', scopes: ['user:all', 'site-admin:sudo'] }),
    },
    {
      ref: '§1 service accounts (an admin creates tokens for another account)',
      input: { actor: admin, subject: { id: 'svc-ci' }, scopes: ['user:all'] },
      expected: ok({ kind: 'allow', scopes: ['user:all'] }),
    },
    {
      ref: 'a user creates tokens only for themselves',
      input: { actor: user, subject: { id: 'bob' }, scopes: ['user:all'] },
      expected: ok({ kind: 'deny', reason: 'not_token_owner' }),
    },
    {
      ref: 'ownership is reported before sudo',
      input: { actor: user, subject: { id: 'bob' }, scopes: ['user:all', 'site-admin:sudo'] },
      expected: ok({ kind: 'deny', reason: 'not_token_owner' }),
    },
    {
      ref: 'every token carries user:all',
      input: { actor: admin, subject: { id: 'admin' }, scopes: ['site-admin:sudo'] },
      expected: err({ code: 'missing_user_all_scope' }),
    },
    {
      ref: 'every token carries user:all; no scopes at all',
      input: { actor: user, subject: { id: 'alice' }, scopes: [] },
      expected: err({ code: 'missing_user_all_scope' }),
    },
    {
      ref: 'unknown scopes are errors',
      input: { actor: admin, subject: { id: 'admin' }, scopes: ['user:all', 'repo'] },
      expected: err({ code: 'unknown_scope', scope: 'repo' }),
    },
    {
      ref: 'scope names are case-sensitive',
      input: { actor: admin, subject: { id: 'admin' }, scopes: ['USER:ALL'] },
      expected: err({ code: 'unknown_scope', scope: 'USER:ALL' }),
    },
    {
      ref: 'duplicated scopes are errors',
      input: { actor: admin, subject: { id: 'admin' }, scopes: ['user:all', 'site-admin:sudo', 'user:all'] },
      expected: err({ code: 'duplicate_scope', scope: 'user:all' }),
    },
    {
      ref: 'the first problem in request order wins',
      input: { actor: admin, subject: { id: 'admin' }, scopes: ['user:all', 'user:all', 'repo'] },
      expected: err({ code: 'duplicate_scope', scope: 'user:all' }),
    },
    {
      ref: 'malformed requests are errors even when the policy would deny',
      input: { actor: user, subject: { id: 'bob' }, scopes: ['repo'] },
      expected: err({ code: 'unknown_scope', scope: 'repo' }),
    },
    {
      ref: '§2.4, §5.1 rule 3 (an OAuth access token is short-lived: it may not mint a personal access token)',
      input: { actor: user, subject: { id: 'alice' }, scopes: ['user:all'], credential: 'oauth' },
      expected: ok({ kind: 'deny', reason: 'short_lived_credential' }),
    },
    {
      ref: '§2.4, §5.1 rule 3 (not even for a site admin)',
      input: { actor: admin, subject: { id: 'admin' }, scopes: ['user:all', 'site-admin:sudo'], credential: 'oauth' },
      expected: ok({ kind: 'deny', reason: 'short_lived_credential' }),
    },
    {
      ref: '§2.4, §5.1 rule 3 (not for a service account either)',
      input: { actor: admin, subject: { id: 'svc-ci' }, scopes: ['user:all'], credential: 'oauth' },
      expected: ok({ kind: 'deny', reason: 'short_lived_credential' }),
    },
    {
      ref: '§2.4, §5.1 rule 3 (the short-lived credential is reported before ownership)',
      input: { actor: user, subject: { id: 'bob' }, scopes: ['user:all'], credential: 'oauth' },
      expected: ok({ kind: 'deny', reason: 'short_lived_credential' }),
    },
    {
      ref: '§2.4, §5.1 rule 3 (malformed requests are errors before the credential is considered)',
      input: { actor: admin, subject: { id: 'admin' }, scopes: ['site-admin:sudo'], credential: 'oauth' },
      expected: err({ code: 'missing_user_all_scope' }),
    },
    {
      ref: '§2.3 (a personal access token may create another)',
      input: { actor: user, subject: { id: 'alice' }, scopes: ['user:all'], credential: 'access_token' },
      expected: ok({ kind: 'allow', scopes: ['user:all'] }),
    },
    {
      ref: '§2.3 (a browser session may create a token; settings area "Access tokens")',
      input: { actor: admin, subject: { id: 'admin' }, scopes: ['user:all', 'site-admin:sudo'], credential: 'session' },
      expected: ok({ kind: 'allow', scopes: ['user:all', 'site-admin:sudo'] }),
    },
  ];

  it.each(rows)('should follow $ref', ({ input, expected }) => {
    expect(authorizeAccessTokenCreation(input)).toStrictEqual(expected);
  });

  it.each([
    { ref: 'total function', input: null, expected: err({ code: 'invalid_input', field: 'input' }) },
    { ref: 'total function', input: { subject: { id: 'a' }, scopes: ['user:all'] }, expected: err({ code: 'invalid_input', field: 'actor' }) },
    { ref: 'total function', input: { actor: { id: '', siteAdmin: true }, subject: { id: 'a' }, scopes: [] }, expected: err({ code: 'invalid_input', field: 'actor.id' }) },
    { ref: 'total function', input: { actor: { id: 'a', siteAdmin: 'yes' }, subject: { id: 'a' }, scopes: [] }, expected: err({ code: 'invalid_input', field: 'actor.siteAdmin' }) },
    { ref: 'total function', input: { actor: user, subject: 'alice', scopes: [] }, expected: err({ code: 'invalid_input', field: 'subject' }) },
    { ref: 'total function', input: { actor: user, subject: { id: 7 }, scopes: [] }, expected: err({ code: 'invalid_input', field: 'subject.id' }) },
    { ref: 'total function', input: { actor: user, subject: { id: 'alice' }, scopes: 'user:all' }, expected: err({ code: 'invalid_input', field: 'scopes' }) },
    { ref: 'total function', input: { actor: user, subject: { id: 'alice' }, scopes: ['user:all', 3] }, expected: err({ code: 'invalid_input', field: 'scopes' }) },
    { ref: 'total function', input: { actor: user, subject: { id: 'alice' }, scopes: ['user:all'], credential: 'bearer' }, expected: err({ code: 'invalid_input', field: 'credential' }) },
    { ref: 'total function', input: { actor: user, subject: { id: 'alice' }, scopes: ['user:all'], credential: null }, expected: err({ code: 'invalid_input', field: 'credential' }) },
    { ref: 'total function', input: { actor: user, subject: { id: 'alice' }, scopes: ['repo'], credential: 'OAUTH' }, expected: err({ code: 'invalid_input', field: 'credential' }) },
  ])('should reject a malformed input ($expected.error.field)', ({ input, expected }) => {
    // @ts-expect-error -- deliberately breaks the static type, as untyped callers can
    expect(authorizeAccessTokenCreation(input)).toStrictEqual(expected);
  });

  // Model: the whole decision space over small scope lists, enumerated, against an oracle written
  // from the sentences.
  const scopeAlphabet = ['user:all', 'site-admin:sudo', 'repo'] as const;
  const scopeLists: string[][] = [[]];
  for (let length = 1; length <= 3; length++) {
    for (const prefix of scopeLists.filter((l) => l.length === length - 1)) {
      for (const s of scopeAlphabet) scopeLists.push([...prefix, s]);
    }
  }
  // `credential` column: absent (undefined), or how the asking request authenticated (§2.4, §5.1 rule 3).
  const credentials = ['absent', 'access_token', 'oauth', 'session'] as const;
  function oracle(
    forSelf: boolean,
    isAdmin: boolean,
    scopes: readonly string[],
    credential: (typeof credentials)[number],
  ): Result<AccessTokenCreationDecision, AccessTokenCreationError> {
    const seen: string[] = [];
    for (const s of scopes) {
      if (s !== 'user:all' && s !== 'site-admin:sudo') return err({ code: 'unknown_scope', scope: s });
      if (seen.includes(s)) return err({ code: 'duplicate_scope', scope: s });
      seen.push(s);
    }
    if (!seen.includes('user:all')) return err({ code: 'missing_user_all_scope' });
    // An OAuth access token is always short-lived: whatever it would mint would outlive it.
    if (credential === 'oauth') return ok({ kind: 'deny', reason: 'short_lived_credential' });
    if (!isAdmin && !forSelf) return ok({ kind: 'deny', reason: 'not_token_owner' });
    if (!isAdmin && seen.includes('site-admin:sudo')) return ok({ kind: 'deny', reason: 'sudo_requires_site_admin' });
    return ok({ kind: 'allow', scopes: seen.includes('site-admin:sudo') ? ['user:all', 'site-admin:sudo'] : ['user:all'] });
  }
  const space = scopeLists.flatMap((scopes) =>
    [true, false].flatMap((forSelf) =>
      [true, false].flatMap((isAdmin) => credentials.map((credential) => ({ forSelf, isAdmin, scopes, credential }))),
    ),
  );

  it('should enumerate every input of the model exactly once', () => {
    expect(space).toHaveLength(4 * 4 * (1 + 3 + 9 + 27));
    expect(new Set(space.map((r) => JSON.stringify(r))).size).toBe(space.length);
  });

  it.each(space)(
    'should equal the model (self=$forSelf admin=$isAdmin scopes=$scopes credential=$credential)',
    ({ forSelf, isAdmin, scopes, credential }) => {
      const result = authorizeAccessTokenCreation({
        actor: { id: 'actor', siteAdmin: isAdmin },
        subject: { id: forSelf ? 'actor' : 'other' },
        scopes,
        ...(credential === 'absent' ? {} : { credential }),
      });
      expect(result).toStrictEqual(oracle(forSelf, isAdmin, scopes, credential));
    },
  );

  test.prop([fc.anything()])('should never throw on arbitrary input', (input) => {
    // @ts-expect-error -- deliberately breaks the static type
    const result = authorizeAccessTokenCreation(input);
    expect(result.isOk() || result.isErr()).toBe(true);
  });

  test.prop([fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.boolean(), fc.array(anyScopeName, { maxLength: 5 })])(
    'should only ever allow user:all first, each scope once, and sudo only for admins',
    (actorId, subjectId, siteAdmin, scopes) => {
      const result = authorizeAccessTokenCreation({ actor: { id: actorId, siteAdmin }, subject: { id: subjectId }, scopes });
      if (result.isOk() && result.value.kind === 'allow') {
        expect(result.value.scopes[0]).toBe('user:all');
        expect(new Set(result.value.scopes).size).toBe(result.value.scopes.length);
        expect([...result.value.scopes].sort()).toStrictEqual([...scopes].sort());
        if (!siteAdmin) {
          expect(result.value.scopes).not.toContain('site-admin:sudo');
          expect(actorId).toBe(subjectId);
        }
      }
    },
  );

  const anyCredential = fc.constantFrom(...REQUEST_CREDENTIALS);

  test.prop([fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.boolean(), fc.array(anyScopeName, { maxLength: 5 })])(
    'should never allow a request authenticated with an OAuth access token (§2.4, §5.1 rule 3)',
    (actorId, subjectId, siteAdmin, scopes) => {
      const result = authorizeAccessTokenCreation({ actor: { id: actorId, siteAdmin }, subject: { id: subjectId }, scopes, credential: 'oauth' });
      if (result.isOk()) expect(result.value).toStrictEqual({ kind: 'deny', reason: 'short_lived_credential' });
    },
  );

  test.prop([fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.boolean(), fc.array(anyScopeName, { maxLength: 5 }), anyCredential])(
    'should decide an absent credential as a personal access token and a session are decided, and only OAuth differently',
    (actorId, subjectId, siteAdmin, scopes, credential) => {
      const base = { actor: { id: actorId, siteAdmin }, subject: { id: subjectId }, scopes };
      const absent = authorizeAccessTokenCreation(base);
      const stated = authorizeAccessTokenCreation({ ...base, credential });
      if (credential !== 'oauth' || absent.isErr()) expect(stated).toStrictEqual(absent);
    },
  );

  test.prop([fc.record({ actor: fc.anything(), subject: fc.anything(), scopes: fc.anything(), credential: fc.anything() })])(
    'should never throw on arbitrary input with a credential field',
    (input) => {
      // @ts-expect-error -- deliberately breaks the static type
      const result = authorizeAccessTokenCreation(input);
      expect(result.isOk() || result.isErr()).toBe(true);
    },
  );

  test.prop([fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.array(anyScopeName, { maxLength: 5 })])(
    'should be monotonic in admin rights: whatever a user may create, an admin may too',
    (actorId, subjectId, scopes) => {
      const asUser = authorizeAccessTokenCreation({ actor: { id: actorId, siteAdmin: false }, subject: { id: subjectId }, scopes });
      const asAdmin = authorizeAccessTokenCreation({ actor: { id: actorId, siteAdmin: true }, subject: { id: subjectId }, scopes });
      if (asUser.isOk() && asUser.value.kind === 'allow') expect(asAdmin).toStrictEqual(asUser);
      if (asUser.isErr()) expect(asAdmin).toStrictEqual(asUser);
    },
  );
});

describe('generateAccessToken', () => {
  it.each([
    { ref: 'at least 160 bits', input: new Uint8Array(19), expected: err({ code: 'insufficient_entropy', required: 20, received: 19 }) },
    { ref: 'at least 160 bits', input: new Uint8Array(0), expected: err({ code: 'insufficient_entropy', required: 20, received: 0 }) },
    { ref: '(prefix, base32, CRC-32); pinned vector', input: new Uint8Array(20), expected: ok('gat_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaah5lg4n') },
    {
      ref: '(prefix, base32, CRC-32); pinned vector',
      input: Uint8Array.from({ length: 20 }, (_, i) => i * 13),
      expected: ok('gat_aagrujzuifhfw2dvqkhzzknwypin32xxaxodg3a'),
    },
  ])('should follow $ref', ({ input, expected }) => {
    expect(generateAccessToken(input)).toStrictEqual(expected);
  });

  it('should encode all-one bytes as all-7 base32 and the checksum as zlib computes it', () => {
    const ones = new Uint8Array(20).fill(255);
    expect(generateAccessToken(ones)._unsafeUnwrap().slice(4, 36)).toBe('7'.repeat(32));
    expect(generateAccessToken(ones)._unsafeUnwrap().slice(36)).toBe(rfcBase32Digits(BigInt(zlibCrc32(ones)), 7));
  });

  it('should reject a value that is not a Uint8Array', () => {
    // @ts-expect-error -- deliberately breaks the static type
    expect(generateAccessToken(Array.from({ length: 20 }, () => 1))).toStrictEqual(err({ code: 'invalid_input', field: 'randomBytes' }));
  });

  test.prop([tokenRandomBytes])('should match the format written out independently', (bytes) => {
    expect(generateAccessToken(bytes)).toStrictEqual(ok(expectedToken(bytes)));
  });

  test.prop([tokenRandomBytes])('should always produce a token that passes its own checks', (bytes) => {
    const secret = generateAccessToken(bytes)._unsafeUnwrap();
    expect(secret).toHaveLength(ACCESS_TOKEN_LENGTH);
    expect(secret.startsWith(ACCESS_TOKEN_PREFIX)).toBe(true);
    expect(parseAccessToken(secret)).toStrictEqual(ok(secret));
  });

  test.prop([tokenRandomBytes, tokenRandomBytes])('should be injective on distinct 20-byte inputs', (a, b) => {
    const same = Buffer.from(a).equals(Buffer.from(b));
    expect(generateAccessToken(a)._unsafeUnwrap() === generateAccessToken(b)._unsafeUnwrap()).toBe(same);
  });

  test.prop([tokenRandomBytes, fc.nat({ max: 19 }), fc.integer({ min: 1, max: 255 })])(
    'should give a different token when any one byte changes',
    (bytes, index, flip) => {
      const other = Uint8Array.from(bytes);
      other[index] = (other[index] ?? 0) ^ flip;
      expect(generateAccessToken(other)._unsafeUnwrap()).not.toBe(generateAccessToken(bytes)._unsafeUnwrap());
    },
  );

  test.prop([fc.uint8Array({ minLength: 20, maxLength: 64 })])('should use exactly the first 20 bytes', (bytes) => {
    expect(generateAccessToken(bytes)).toStrictEqual(generateAccessToken(bytes.slice(0, ACCESS_TOKEN_RANDOM_BYTES)));
  });

  test.prop([fc.anything()])('should never throw on arbitrary input', (input) => {
    // @ts-expect-error -- deliberately breaks the static type
    expect(generateAccessToken(input).isErr()).toBe(true);
  });
});

describe('parseAccessToken', () => {
  const valid = generateAccessToken(Uint8Array.from({ length: 20 }, (_, i) => i * 13))._unsafeUnwrap();
  const firstChecksumIndex = ACCESS_TOKEN_LENGTH - 7;

  it.each([
    { ref: 'valid token', input: valid, expected: ok(valid) },
    { ref: 'recognisable prefix', input: 'ghp_' + valid.slice(4), expected: err({ code: 'bad_prefix' }) },
    { ref: 'prefix is case-sensitive', input: 'GAT_' + valid.slice(4), expected: err({ code: 'bad_prefix' }) },
    { ref: 'empty', input: '', expected: err({ code: 'bad_prefix' }) },
    { ref: 'truncated', input: valid.slice(0, -1), expected: err({ code: 'bad_length', expected: 43, received: 42 }) },
    { ref: 'too long', input: valid + 'a', expected: err({ code: 'bad_length', expected: 43, received: 44 }) },
    { ref: 'uppercase is not base32 here', input: valid.slice(0, 10) + 'A' + valid.slice(11), expected: err({ code: 'bad_characters', index: 10 }) },
    { ref: 'digits 0, 1, 8, 9 are not base32', input: valid.slice(0, 4) + '0' + valid.slice(5), expected: err({ code: 'bad_characters', index: 4 }) },
    { ref: 'non-ASCII', input: valid.slice(0, 42) + 'é', expected: err({ code: 'bad_characters', index: 42 }) },
    {
      ref: 'checksum over 32 bits',
      input: valid.slice(0, firstChecksumIndex) + 'e' + valid.slice(firstChecksumIndex + 1),
      expected: err({ code: 'bad_checksum' }),
    },
    {
      ref: 'mistyped payload',
      input: valid.slice(0, 5) + (valid.charAt(5) === 'b' ? 'c' : 'b') + valid.slice(6),
      expected: err({ code: 'bad_checksum' }),
    },
  ])('should follow $ref', ({ input, expected }) => {
    expect(parseAccessToken(input)).toStrictEqual(expected);
  });

  const substitutes = [...RFC_ALPHABET, 'A', 'Z', '0', '1', '_', '-', ' '];

  test.prop([accessTokenSecret], { numRuns: 60 })(
    'should reject every single-character substitution (enumerated over all positions and characters)',
    (secret) => {
      for (let i = 0; i < secret.length; i++) {
        for (const c of substitutes) {
          if (c === secret.charAt(i)) continue;
          const typo = secret.slice(0, i) + c + secret.slice(i + 1);
          expect(parseAccessToken(typo).isErr()).toBe(true);
        }
      }
    },
  );

  test.prop([accessTokenSecret], { numRuns: 200 })('should reject every transposition of two adjacent different characters', (secret) => {
    for (let i = 0; i + 1 < secret.length; i++) {
      if (secret.charAt(i) === secret.charAt(i + 1)) continue;
      const swapped = secret.slice(0, i) + secret.charAt(i + 1) + secret.charAt(i) + secret.slice(i + 2);
      expect(parseAccessToken(swapped).isErr()).toBe(true);
    }
  });

  test.prop([accessTokenSecret, fc.nat({ max: 42 })])('should reject every truncation and extension', (secret, cut) => {
    expect(parseAccessToken(secret.slice(0, cut))._unsafeUnwrapErr().code).toMatch(/^bad_(prefix|length)$/);
    expect(parseAccessToken(secret + secret.slice(0, cut + 1))._unsafeUnwrapErr().code).toBe('bad_length');
  });

  const candidate = fc.oneof(
    accessTokenSecret,
    fc
      .tuple(accessTokenSecret, fc.nat({ max: 42 }), fc.constantFrom(...substitutes))
      .map(([secret, i, c]) => secret.slice(0, i) + c + secret.slice(i + 1)),
    fc.string().map((tail) => 'gat_' + tail),
    fc.string(),
  );

  test.prop([candidate])('should accept exactly the strings generateAccessToken produces', (text) => {
    const issued = /^gat_[a-z2-7]{39}$/.test(text) ? expectedToken(rfcBase32ToBytes(text.slice(4, 36))) : null;
    expect(parseAccessToken(text).isOk()).toBe(issued === text);
  });

  test.prop([fc.anything()])('should never throw on arbitrary input', (input) => {
    // @ts-expect-error -- deliberately breaks the static type
    expect(parseAccessToken(input).isErr()).toBe(true);
  });
});

describe('hashAccessToken', () => {
  it.each([
    {
      ref: 'only a SHA-256 digest is stored; FIPS 180-2 vector',
      input: 'abc',
      expected: ok('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'),
    },
    {
      ref: 'empty string vector',
      input: '',
      expected: ok('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    },
  ])('should follow $ref', ({ input, expected }) => {
    expect(hashAccessToken(input, sha256)).toStrictEqual(expected);
  });

  it.each([
    { ref: 'digest function throws', digest: (): Uint8Array => { throw new Error('boom'); } },
    { ref: 'digest too short', digest: (): Uint8Array => new Uint8Array(31) },
    { ref: 'digest too long', digest: (): Uint8Array => new Uint8Array(33) },
  ])('should report digest_failed when the $ref', ({ digest }) => {
    expect(hashAccessToken('gat_x', digest)).toStrictEqual(err({ code: 'digest_failed' }));
  });

  it('should report digest_failed when the digest is not a Uint8Array', () => {
    // @ts-expect-error -- deliberately breaks the static type
    expect(hashAccessToken('gat_x', () => Array.from({ length: 32 }, () => 0))).toStrictEqual(err({ code: 'digest_failed' }));
  });

  it('should reject arguments of the wrong type', () => {
    // @ts-expect-error -- deliberately breaks the static type
    expect(hashAccessToken(42, sha256)).toStrictEqual(err({ code: 'invalid_input', field: 'secret' }));
    // @ts-expect-error -- deliberately breaks the static type
    expect(hashAccessToken('x', 'sha256')).toStrictEqual(err({ code: 'invalid_input', field: 'sha256' }));
  });

  const anyUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)), maxLength: 40 });

  test.prop([fc.oneof(accessTokenSecret, fc.string({ unit: 'binary' }), anyUnits)])(
    'should equal the hex SHA-256 of the UTF-8 bytes (Node, lone surrogates included)',
    (secret) => {
      expect(hashAccessToken(secret, sha256)).toStrictEqual(ok(createHash('sha256').update(secret, 'utf8').digest('hex')));
    },
  );

  test.prop([fc.anything(), fc.anything()])('should never throw on arbitrary input', (secret, digest) => {
    // @ts-expect-error -- deliberately breaks the static type
    const result = hashAccessToken(secret, digest);
    expect(result.isOk() || result.isErr()).toBe(true);
  });
});

describe('accessTokenDigestsEqual', () => {
  const digest = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
  it.each([
    { ref: 'constant-time comparison', a: digest, b: digest, expected: true },
    { ref: 'last character differs', a: digest, b: digest.slice(0, -1) + 'e', expected: false },
    { ref: 'first character differs', a: digest, b: 'c' + digest.slice(1), expected: false },
    { ref: 'prefix of the other', a: digest, b: digest.slice(0, 32), expected: false },
    { ref: 'trailing NUL is not ignored', a: 'ab', b: 'ab\u0000', expected: false },
    { ref: 'empty strings', a: '', b: '', expected: true },
  ])('should compare: $ref', ({ a, b, expected }) => {
    expect(accessTokenDigestsEqual(a, b)).toBe(expected);
  });

  it.each([
    { ref: 'first character differs', b: 'c' + digest.slice(1) },
    { ref: 'last character differs', b: digest.slice(0, -1) + 'e' },
    { ref: 'equal', b: digest },
    { ref: 'truncated', b: digest.slice(0, 8) },
  ])('should compare in constant time: every position is read, whatever differs ($ref)', ({ b }) => {
    const original = String.prototype.charCodeAt;
    let reads = 0;
    String.prototype.charCodeAt = function (this: string, index: number): number {
      reads++;
      return original.call(this, index);
    };
    try {
      accessTokenDigestsEqual(digest, b);
    } finally {
      String.prototype.charCodeAt = original;
    }
    expect(reads).toBe(2 * digest.length);
  });

  const similarPair = fc.oneof(
    fc.tuple(fc.string(), fc.string()),
    fc.string().map((s) => [s, s] as const),
    fc.tuple(fc.string(), fc.string(), fc.string()).map(([p, x, y]) => [p + x, p + y] as const),
    fc.tuple(fc.string(), fc.string({ unit: fc.constant('\u0000'), minLength: 1 })).map(([s, z]) => [s, s + z] as const),
  );

  test.prop([similarPair])('should equal === on all strings', ([a, b]) => {
    expect(accessTokenDigestsEqual(a, b)).toBe(a === b);
  });

  test.prop([fc.anything(), fc.anything()])('should never throw and be false unless both are equal strings', (a, b) => {
    // @ts-expect-error -- deliberately breaks the static type
    expect(accessTokenDigestsEqual(a, b)).toBe(typeof a === 'string' && a === b);
  });
});

describe('REQUEST_CREDENTIALS', () => {
  it('should list a personal access token, an OAuth access token (§2.4) and a browser session', () => {
    expect([...REQUEST_CREDENTIALS]).toStrictEqual(['access_token', 'oauth', 'session']);
  });
});

describe('ACCESS_TOKEN_SCOPES', () => {
  it('should list exactly the two scopes of §2.3 and §5.1 rule 2, user:all first', () => {
    expect([...ACCESS_TOKEN_SCOPES]).toStrictEqual(['user:all', 'site-admin:sudo']);
  });
});

describe('authorizeAccessTokenCreation: quota and note length (§2.3)', () => {
  const self = { actor: { id: 'u', siteAdmin: false }, subject: { id: 'u' }, scopes: ['user:all'] } as const;
  const admin = { actor: { id: 'a', siteAdmin: true }, subject: { id: 'svc' }, scopes: ['user:all', 'site-admin:sudo'] } as const;

  it('should hold 100 tokens per account, 256 characters per note', () => {
    expect(MAX_ACCESS_TOKENS_PER_ACCOUNT).toBe(100);
    expect(MAX_ACCESS_TOKEN_NOTE_LENGTH).toBe(256);
  });

  it.each([
    { ref: '§2.3 below the quota', input: { ...self, existingTokenCount: 99 }, expected: ok({ kind: 'allow', scopes: ['user:all'] }) },
    { ref: '§2.3 at the quota', input: { ...self, existingTokenCount: 100 }, expected: ok({ kind: 'deny', reason: 'quota_exceeded' }) },
    { ref: '§2.3 above the quota', input: { ...self, existingTokenCount: 5000 }, expected: ok({ kind: 'deny', reason: 'quota_exceeded' }) },
    { ref: '§2.3 a site admin for another account meets it too', input: { ...admin, existingTokenCount: 100 }, expected: ok({ kind: 'deny', reason: 'quota_exceeded' }) },
    { ref: '§2.3 no count: not checked', input: self, expected: ok({ kind: 'allow', scopes: ['user:all'] }) },
    {
      ref: '§5.1 rule 3 an OAuth token is refused for that reason first',
      input: { ...self, existingTokenCount: 100, credential: 'oauth' },
      expected: ok({ kind: 'deny', reason: 'short_lived_credential' }),
    },
    {
      ref: '§2.3 another account is refused for that reason first',
      input: { ...self, subject: { id: 'v' }, existingTokenCount: 100 },
      expected: ok({ kind: 'deny', reason: 'not_token_owner' }),
    },
    { ref: '§2.3 a negative count', input: { ...self, existingTokenCount: -1 }, expected: err({ code: 'invalid_input', field: 'existingTokenCount' }) },
    { ref: '§2.3 a fractional count', input: { ...self, existingTokenCount: 1.5 }, expected: err({ code: 'invalid_input', field: 'existingTokenCount' }) },
    { ref: '§2.3 a note of 256 characters', input: { ...self, note: 'n'.repeat(256) }, expected: ok({ kind: 'allow', scopes: ['user:all'] }) },
    { ref: '§2.3 a note of 256 astral characters', input: { ...self, note: '😀'.repeat(256) }, expected: ok({ kind: 'allow', scopes: ['user:all'] }) },
    { ref: '§2.3 a note of 257 characters', input: { ...self, note: 'n'.repeat(257) }, expected: err({ code: 'note_too_long', maxLength: 256 }) },
    { ref: '§2.3 a note of a megabyte', input: { ...self, note: 'n'.repeat(1 << 20) }, expected: err({ code: 'note_too_long', maxLength: 256 }) },
  ])('should decide $ref', ({ input, expected }) => {
    expect(authorizeAccessTokenCreation(input as AccessTokenCreationInput)).toStrictEqual(expected);
  });

  it('should refuse a note that is not a string', () => {
    expect(authorizeAccessTokenCreation({ ...self, note: unsafeInput(3) })).toStrictEqual(err({ code: 'invalid_input', field: 'note' }));
  });

  test.prop([fc.boolean(), fc.boolean(), fc.subarray(['site-admin:sudo']), fc.constantFrom(...REQUEST_CREDENTIALS), fc.nat({ max: 300 })])(
    'should equal the decision without a count, except that an allow at 100 or more becomes quota_exceeded (§2.3)',
    (forSelf, siteAdmin, extra, credential, count) => {
      const base = { actor: { id: 'a', siteAdmin }, subject: { id: forSelf ? 'a' : 'b' }, scopes: ['user:all', ...extra], credential };
      const without = authorizeAccessTokenCreation(base)._unsafeUnwrap();
      const counted = authorizeAccessTokenCreation({ ...base, existingTokenCount: count })._unsafeUnwrap();
      const expected = without.kind === 'allow' && count >= 100 ? { kind: 'deny', reason: 'quota_exceeded' } : without;
      expect(counted).toStrictEqual(expected);
    },
  );
});

/** Deliberately breaks the static type, to check the function is total at run time. */
function unsafeInput<T>(value: unknown): T {
  return value as T;
}
