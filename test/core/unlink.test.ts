import { fc, test } from '@fast-check/vitest';
import { ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { countSignInMethods, decideUnlink, type LinkedIdentity } from '../../src/core/unlink.js';

const hosta: LinkedIdentity = { serviceType: 'hosta', serviceId: 'https://hosta.example.com', accountId: '1' };
const hostb: LinkedIdentity = { serviceType: 'hostb', serviceId: 'https://hostb.example.com', accountId: '2' };
const review: LinkedIdentity = { serviceType: 'reviewhost', serviceId: 'https://review.example.com', accountId: 'r' };

describe('countSignInMethods', () => {
  it.each([
    { ref: '§5.4 rule 4: a password counts when builtin is configured', links: [], hasPassword: true, providerTypes: ['builtin'], expected: 1 },
    { ref: '§5.4 rule 4: a password does not count without builtin', links: [], hasPassword: true, providerTypes: ['hosta'], expected: 0 },
    { ref: '§5.4 rule 4: a link of a configured type counts', links: [hosta], hasPassword: false, providerTypes: ['hosta'], expected: 1 },
    { ref: '§5.4 rule 4: a link of a type no longer configured does not count', links: [hosta], hasPassword: false, providerTypes: ['hostb'], expected: 0 },
    { ref: '§5.3 reviewhost: a review host link is not a way to sign in', links: [review], hasPassword: false, providerTypes: ['reviewhost'], expected: 0 },
    { ref: '§5.4 rule 4: every way counts', links: [hosta, hostb], hasPassword: true, providerTypes: ['builtin', 'hosta', 'hostb'], expected: 3 },
  ])('should count $expected: $ref', ({ links, hasPassword, providerTypes, expected }) => {
    expect(countSignInMethods({ links, hasPassword, providerTypes })).toBe(expected);
  });
});

describe('decideUnlink', () => {
  it.each([
    {
      ref: '§5.4 rule 4: the only way to sign in is kept',
      input: { links: [hosta], hasPassword: false, providerTypes: ['hosta'], target: hosta },
      expected: ok({ kind: 'deny', reason: 'last_way_to_sign_in' }),
    },
    {
      ref: '§5.4 rule 4: a link may go while a password remains',
      input: { links: [hosta], hasPassword: true, providerTypes: ['hosta', 'builtin'], target: hosta },
      expected: ok({ kind: 'allow' }),
    },
    {
      ref: '§5.4 rule 4: a link may go while another link remains',
      input: { links: [hosta, hostb], hasPassword: false, providerTypes: ['hosta', 'hostb'], target: hosta },
      expected: ok({ kind: 'allow' }),
    },
    {
      ref: '§5.4 rule 4: a review host link does not keep the account reachable',
      input: { links: [hosta, review], hasPassword: false, providerTypes: ['hosta', 'reviewhost'], target: hosta },
      expected: ok({ kind: 'deny', reason: 'last_way_to_sign_in' }),
    },
    {
      ref: '§5.4 rule 4: a review host link may always go while a way to sign in remains',
      input: { links: [hosta, review], hasPassword: false, providerTypes: ['hosta', 'reviewhost'], target: review },
      expected: ok({ kind: 'allow' }),
    },
    {
      ref: 'a link the account does not have',
      input: { links: [hosta], hasPassword: true, providerTypes: ['hosta', 'builtin'], target: hostb },
      expected: ok({ kind: 'deny', reason: 'not_linked' }),
    },
    {
      ref: 'the same provider type and account id at another provider is another link',
      input: { links: [hosta], hasPassword: true, providerTypes: ['hosta', 'builtin'], target: { ...hosta, serviceId: 'https://other.example.com' } },
      expected: ok({ kind: 'deny', reason: 'not_linked' }),
    },
  ])('should decide $expected.value.kind: $ref', ({ input, expected }) => {
    expect(decideUnlink(input)).toStrictEqual(expected);
  });

  const identity = fc.record(
    { serviceType: fc.constantFrom('hosta', 'hostb', 'saml', 'reviewhost'), serviceId: fc.constantFrom('', 'a'), accountId: fc.constantFrom('1', '2') },
    { noNullPrototype: true },
  );
  const input = fc.record(
    {
      links: fc.uniqueArray(identity, { selector: (l) => `${l.serviceType} ${l.serviceId} ${l.accountId}`, maxLength: 5 }),
      hasPassword: fc.boolean(),
      providerTypes: fc.subarray(['builtin', 'hosta', 'hostb', 'saml', 'reviewhost']),
      target: identity,
    },
    { noNullPrototype: true },
  );

  test.prop([input])('should never leave an account with no way to sign in that had one', (i) => {
    const decision = decideUnlink(i)._unsafeUnwrap();
    if (decision.kind !== 'allow') return;
    const remaining = i.links.filter((l) => !(l.serviceType === i.target.serviceType && l.serviceId === i.target.serviceId && l.accountId === i.target.accountId));
    expect(remaining).toHaveLength(i.links.length - 1);
    expect(countSignInMethods({ ...i, links: remaining })).toBeGreaterThanOrEqual(1);
  });

  test.prop([input])('should allow every linked identity whose removal keeps a way to sign in', (i) => {
    const linked = i.links.some((l) => l.serviceType === i.target.serviceType && l.serviceId === i.target.serviceId && l.accountId === i.target.accountId);
    const remaining = i.links.filter((l) => l !== i.links.find((m) => m.serviceType === i.target.serviceType && m.serviceId === i.target.serviceId && m.accountId === i.target.accountId));
    fc.pre(linked && countSignInMethods({ ...i, links: remaining }) >= 1);
    expect(decideUnlink(i)).toStrictEqual(ok({ kind: 'allow' }));
  });
});
