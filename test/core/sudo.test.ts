import { fc, test } from '@fast-check/vitest';
import { err, ok, type Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import type { AccessTokenScope } from '../../src/core/access-token.js';
import { authorizeSudo, type SudoError } from '../../src/core/sudo.js';

interface Account {
  readonly id: string;
  readonly username: string;
}
const alice: Account = { id: 'u2', username: 'alice' };

const withSudo: readonly AccessTokenScope[] = ['user:all', 'site-admin:sudo'];
const withoutSudo: readonly AccessTokenScope[] = ['user:all'];

/** The model of §5.1 rule 2, one row per combination, written as plain data. */
const model: readonly { hasSudoScope: boolean; ownerIsAdmin: boolean; targetExists: boolean; expected: Result<Account, SudoError> }[] = [
  { hasSudoScope: true, ownerIsAdmin: true, targetExists: true, expected: ok(alice) },
  { hasSudoScope: true, ownerIsAdmin: true, targetExists: false, expected: err({ code: 'unknown_user' }) },
  { hasSudoScope: true, ownerIsAdmin: false, targetExists: true, expected: err({ code: 'owner_not_site_admin' }) },
  { hasSudoScope: true, ownerIsAdmin: false, targetExists: false, expected: err({ code: 'owner_not_site_admin' }) },
  { hasSudoScope: false, ownerIsAdmin: true, targetExists: true, expected: err({ code: 'missing_sudo_scope' }) },
  { hasSudoScope: false, ownerIsAdmin: true, targetExists: false, expected: err({ code: 'missing_sudo_scope' }) },
  { hasSudoScope: false, ownerIsAdmin: false, targetExists: true, expected: err({ code: 'missing_sudo_scope' }) },
  { hasSudoScope: false, ownerIsAdmin: false, targetExists: false, expected: err({ code: 'missing_sudo_scope' }) },
];

describe('authorizeSudo', () => {
  it.each([
    {
      ref: '§5.1 rule 2 (sudo token of a site admin, existing user)',
      input: { token: { scopes: withSudo }, tokenOwner: { siteAdmin: true }, target: alice },
      expected: ok(alice),
    },
    {
      ref: '§5.1 rule 2 (token-sudo works only with site-admin:sudo)',
      input: { token: { scopes: withoutSudo }, tokenOwner: { siteAdmin: true }, target: alice },
      expected: err({ code: 'missing_sudo_scope' }),
    },
    {
      ref: '§5.1 rule 2 (an owner demoted after creating the token loses sudo)',
      input: { token: { scopes: withSudo }, tokenOwner: { siteAdmin: false }, target: alice },
      expected: err({ code: 'owner_not_site_admin' }),
    },
    {
      ref: '§5.1 rule 2 (the named user must exist)',
      input: { token: { scopes: withSudo }, tokenOwner: { siteAdmin: true }, target: null },
      expected: err({ code: 'unknown_user' }),
    },
    {
      ref: 'only a working sudo token learns whether a username exists',
      input: { token: { scopes: withoutSudo }, tokenOwner: { siteAdmin: false }, target: null },
      expected: err({ code: 'missing_sudo_scope' }),
    },
    {
      ref: '§5.1 rule 2 (scope order in the record is irrelevant)',
      input: { token: { scopes: ['site-admin:sudo', 'user:all'] as const }, tokenOwner: { siteAdmin: true }, target: alice },
      expected: ok(alice),
    },
  ])('should follow $ref', ({ input, expected }) => {
    expect(authorizeSudo(input)).toStrictEqual(expected);
  });

  it('should hold exactly one model row per combination of the three conditions', () => {
    const keys = model.map((r) => `${r.hasSudoScope}/${r.ownerIsAdmin}/${r.targetExists}`);
    expect(new Set(keys).size).toBe(8);
    expect(model).toHaveLength(8);
  });

  it.each(model.map((row) => ({ ref: '§5.1 rule 2', ...row })))(
    'should equal the model ($ref): scope=$hasSudoScope owner=$ownerIsAdmin target=$targetExists',
    ({ hasSudoScope, ownerIsAdmin, targetExists, expected }) => {
      const result = authorizeSudo<Account>({
        token: { scopes: hasSudoScope ? withSudo : withoutSudo },
        tokenOwner: { siteAdmin: ownerIsAdmin },
        target: targetExists ? alice : null,
      });
      expect(result).toStrictEqual(expected);
    },
  );

  it('should return the very target object it was given (generic)', () => {
    const target = { anything: [1, 2, 3] };
    const result = authorizeSudo({ token: { scopes: withSudo }, tokenOwner: { siteAdmin: true }, target });
    expect(result._unsafeUnwrap()).toBe(target);
    expect(authorizeSudo({ token: { scopes: withSudo }, tokenOwner: { siteAdmin: true }, target: 'alice' })).toStrictEqual(ok('alice'));
  });

  it.each([
    { input: null, field: 'input' },
    { input: { tokenOwner: { siteAdmin: true }, target: alice }, field: 'token' },
    { input: { token: { scopes: 'site-admin:sudo' }, tokenOwner: { siteAdmin: true }, target: alice }, field: 'token.scopes' },
    { input: { token: { scopes: withSudo }, target: alice }, field: 'tokenOwner' },
    { input: { token: { scopes: withSudo }, tokenOwner: { siteAdmin: 'true' }, target: alice }, field: 'tokenOwner.siteAdmin' },
  ])('should reject a malformed input ($field)', ({ input, field }) => {
    // @ts-expect-error -- deliberately breaks the static type
    expect(authorizeSudo(input)).toStrictEqual(err({ code: 'invalid_input', field }));
  });

  it('should treat a missing or undefined target like null', () => {
    // @ts-expect-error -- deliberately breaks the static type
    expect(authorizeSudo({ token: { scopes: withSudo }, tokenOwner: { siteAdmin: true } })).toStrictEqual(err({ code: 'unknown_user' }));
    // @ts-expect-error -- deliberately breaks the static type
    expect(authorizeSudo({ token: { scopes: withSudo }, tokenOwner: { siteAdmin: true }, target: undefined })).toStrictEqual(
      err({ code: 'unknown_user' }),
    );
  });

  const scopeList = fc.array(fc.constantFrom<AccessTokenScope>('user:all', 'site-admin:sudo'), { maxLength: 4 });
  const target = fc.option(fc.record({ id: fc.string(), username: fc.string() }, { noNullPrototype: true }), { nil: null });

  test.prop([scopeList, fc.boolean(), target])(
    'should be monotonic: removing the sudo scope or demoting the owner never turns a denial into an allow',
    (scopes, siteAdmin, user) => {
      const before = authorizeSudo({ token: { scopes }, tokenOwner: { siteAdmin }, target: user });
      const withoutScope = authorizeSudo({ token: { scopes: scopes.filter((s) => s !== 'site-admin:sudo') }, tokenOwner: { siteAdmin }, target: user });
      const demoted = authorizeSudo({ token: { scopes }, tokenOwner: { siteAdmin: false }, target: user });
      if (before.isErr()) {
        expect(withoutScope.isErr()).toBe(true);
        expect(demoted.isErr()).toBe(true);
      }
      expect(withoutScope).toStrictEqual(err({ code: 'missing_sudo_scope' }));
      expect(demoted.isOk()).toBe(false);
    },
  );

  test.prop([scopeList, fc.boolean(), target])('should allow exactly when all three conditions hold, returning the target', (scopes, siteAdmin, user) => {
    const result = authorizeSudo({ token: { scopes }, tokenOwner: { siteAdmin }, target: user });
    const allowed = scopes.includes('site-admin:sudo') && siteAdmin && user !== null;
    expect(result.isOk()).toBe(allowed);
    if (result.isOk()) expect(result.value).toBe(user);
  });

  test.prop([fc.anything()])('should never throw on arbitrary input', (input) => {
    // @ts-expect-error -- deliberately breaks the static type
    const result = authorizeSudo(input);
    expect(result.isOk() || result.isErr()).toBe(true);
  });

  test.prop([fc.array(fc.anything(), { maxLength: 5 }), fc.anything(), fc.anything()])(
    'should never throw when only the fields are arbitrary, and allow only real sudo',
    (scopes, siteAdmin, user) => {
      // @ts-expect-error -- deliberately breaks the static type
      const result = authorizeSudo({ token: { scopes }, tokenOwner: { siteAdmin }, target: user });
      if (result.isOk()) {
        expect(scopes).toContain('site-admin:sudo');
        expect(siteAdmin).toBe(true);
        expect(result.value).toBe(user);
      }
    },
  );
});
