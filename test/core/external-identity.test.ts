import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { GROUP_ACCESS_LEVEL, parseExternalIdentity, type ExternalIdentity } from '../../src/core/external-identity.js';
import { externalIdentity } from '../arbitraries/identity.js';

const minimal: ExternalIdentity = { accountId: '7', username: null, emails: [] };
const full: ExternalIdentity = {
  accountId: '7',
  username: 'octo',
  emails: [
    { address: 'octo@example.com', verified: true },
    { address: 'o@example.org', verified: false },
  ],
  orgs: ['acme'],
  teams: [{ org: 'acme', name: 'Core Team' }],
  groups: [{ fullPath: 'acme/platform', accessLevel: GROUP_ACCESS_LEVEL.guest }],
  membershipComplete: false,
};
const invalid = (path: string, expected: string) => err({ code: 'invalid_identity', path, expected });

describe('GROUP_ACCESS_LEVEL', () => {
  it('should hold the code host levels named in §5.3 hostb rules 5 and 7', () => {
    expect(GROUP_ACCESS_LEVEL).toStrictEqual({ minimalAccess: 5, guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 });
  });
});

describe('parseExternalIdentity', () => {
  it.each([
    { ref: 'the smallest identity', value: minimal, expected: ok(minimal) },
    { ref: 'every field', value: full, expected: ok(full) },
    { ref: 'unknown fields are dropped', value: { ...minimal, avatar: 'x.png' }, expected: ok(minimal) },
    { ref: 'optional lists may be undefined', value: { ...minimal, orgs: undefined, membershipComplete: undefined }, expected: ok(minimal) },
    { ref: 'any finite access level', value: { ...minimal, groups: [{ fullPath: 'a', accessLevel: 7.5 }] }, expected: ok({ ...minimal, groups: [{ fullPath: 'a', accessLevel: 7.5 }] }) },
    { ref: 'not an object', value: [minimal], expected: invalid('', 'object') },
    { ref: 'accountId missing', value: { username: null, emails: [] }, expected: invalid('accountId', 'non-empty string') },
    { ref: 'accountId empty', value: { ...minimal, accountId: '' }, expected: invalid('accountId', 'non-empty string') },
    { ref: 'accountId a number', value: { ...minimal, accountId: 7 }, expected: invalid('accountId', 'non-empty string') },
    { ref: 'username undefined', value: { accountId: '7', emails: [] }, expected: invalid('username', 'string or null') },
    { ref: 'emails missing', value: { accountId: '7', username: null }, expected: invalid('emails', 'array') },
    { ref: 'an email not an object', value: { ...minimal, emails: [{ address: 'a@b.c', verified: true }, null] }, expected: invalid('emails[1]', 'object') },
    { ref: 'an empty address', value: { ...minimal, emails: [{ address: '', verified: true }] }, expected: invalid('emails[0].address', 'non-empty string') },
    { ref: 'verified missing', value: { ...minimal, emails: [{ address: 'a@b.c' }] }, expected: invalid('emails[0].verified', 'boolean') },
    { ref: 'a hole in emails', value: { ...minimal, emails: [, { address: 'a@b.c', verified: true }] }, expected: invalid('emails[0]', 'object') },
    { ref: 'orgs an object', value: { ...minimal, orgs: { acme: true } }, expected: invalid('orgs', 'array') },
    { ref: 'an org a number', value: { ...minimal, orgs: ['acme', 1] }, expected: invalid('orgs[1]', 'string') },
    { ref: 'a team without a name', value: { ...minimal, teams: [{ org: 'acme' }] }, expected: invalid('teams[0].name', 'string') },
    { ref: 'an access level as text', value: { ...minimal, groups: [{ fullPath: 'a', accessLevel: '10' }] }, expected: invalid('groups[0].accessLevel', 'finite number') },
    { ref: 'an infinite access level', value: { ...minimal, groups: [{ fullPath: 'a', accessLevel: Infinity }] }, expected: invalid('groups[0].accessLevel', 'finite number') },
    { ref: 'membershipComplete as text', value: { ...minimal, membershipComplete: 'false' }, expected: invalid('membershipComplete', 'boolean') },
  ])('should follow $ref', ({ value, expected }) => {
    expect(parseExternalIdentity(value)).toStrictEqual(expected);
  });

  it('should never invoke a getter', () => {
    let called = false;
    const value = {
      username: null,
      emails: [],
      get accountId(): string {
        called = true;
        return '7';
      },
    };
    expect(parseExternalIdentity(value)).toStrictEqual(invalid('accountId', 'non-empty string'));
    expect(called).toBe(false);
  });

  it('should return a copy that later changes to the input do not reach', () => {
    const emails = [{ address: 'a@b.c', verified: true }];
    const parsed = parseExternalIdentity({ ...minimal, emails })._unsafeUnwrap();
    emails.push({ address: 'x@y.z', verified: true });
    expect(parsed.emails).toStrictEqual([{ address: 'a@b.c', verified: true }]);
  });

  test.prop([fc.anything()])('should never throw', (value) => {
    expect(() => parseExternalIdentity(value)).not.toThrow();
  });

  test.prop([externalIdentity])('should accept every well-formed identity unchanged', (identity) => {
    expect(parseExternalIdentity(identity)).toStrictEqual(ok(identity));
  });

  test.prop([fc.anything()])('should be idempotent', (value) => {
    const once = parseExternalIdentity(value);
    if (once.isOk()) expect(parseExternalIdentity(once.value)).toStrictEqual(once);
  });
});
