import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { decideSiteAdminChange, SITE_ADMIN_CHANGES } from '../../src/core/site-admin.js';
import type { SiteAdminChange, SiteAdminChangeDecision, SiteAdminChangeError, SiteAdminChangeInput } from '../../src/core/site-admin.js';
import type { Result } from 'neverthrow';

type Expected = Result<SiteAdminChangeDecision, SiteAdminChangeError>;
const allow: Expected = ok({ kind: 'allow' });
const deny: Expected = ok({ kind: 'deny', reason: 'last_site_admin' });
const inconsistent: Expected = err({ code: 'inconsistent_count', siteAdminCount: 0 });

// The model: one row per (change, target is a site admin, site admin count 0..3). "never the last site
// administrator": revoking or deleting the only site admin is denied; an admin target with a count of 0 means the
// facts were not read together, which the rule cannot decide.
const MODEL: readonly { change: SiteAdminChange; siteAdmin: boolean; count: number; expected: Expected }[] = [
  { change: 'grant', siteAdmin: false, count: 0, expected: allow },
  { change: 'grant', siteAdmin: false, count: 1, expected: allow },
  { change: 'grant', siteAdmin: false, count: 2, expected: allow },
  { change: 'grant', siteAdmin: false, count: 3, expected: allow },
  { change: 'grant', siteAdmin: true, count: 0, expected: inconsistent },
  { change: 'grant', siteAdmin: true, count: 1, expected: allow },
  { change: 'grant', siteAdmin: true, count: 2, expected: allow },
  { change: 'grant', siteAdmin: true, count: 3, expected: allow },
  { change: 'revoke', siteAdmin: false, count: 0, expected: allow },
  { change: 'revoke', siteAdmin: false, count: 1, expected: allow },
  { change: 'revoke', siteAdmin: false, count: 2, expected: allow },
  { change: 'revoke', siteAdmin: false, count: 3, expected: allow },
  { change: 'revoke', siteAdmin: true, count: 0, expected: inconsistent },
  { change: 'revoke', siteAdmin: true, count: 1, expected: deny },
  { change: 'revoke', siteAdmin: true, count: 2, expected: allow },
  { change: 'revoke', siteAdmin: true, count: 3, expected: allow },
  { change: 'delete', siteAdmin: false, count: 0, expected: allow },
  { change: 'delete', siteAdmin: false, count: 1, expected: allow },
  { change: 'delete', siteAdmin: false, count: 2, expected: allow },
  { change: 'delete', siteAdmin: false, count: 3, expected: allow },
  { change: 'delete', siteAdmin: true, count: 0, expected: inconsistent },
  { change: 'delete', siteAdmin: true, count: 1, expected: deny },
  { change: 'delete', siteAdmin: true, count: 2, expected: allow },
  { change: 'delete', siteAdmin: true, count: 3, expected: allow },
];

const input = (change: SiteAdminChange, siteAdmin: boolean, count: number): SiteAdminChangeInput => ({ change, target: { siteAdmin }, siteAdminCount: count });

describe('decideSiteAdminChange', () => {
  it.each([
    { ref: 'the only site admin is not demoted', input: input('revoke', true, 1), expected: deny },
    { ref: 'the only site admin is not deleted', input: input('delete', true, 1), expected: deny },
    { ref: 'one of two site admins may be demoted', input: input('revoke', true, 2), expected: allow },
    { ref: 'one of two site admins may be deleted (themselves included)', input: input('delete', true, 2), expected: allow },
    { ref: 'a member may be deleted while one site admin remains', input: input('delete', false, 1), expected: allow },
    { ref: 'granting is always allowed', input: input('grant', false, 0), expected: allow },
    { ref: 'an admin target with no admins counted: facts not read together', input: input('revoke', true, 0), expected: inconsistent },
  ])('should decide: $ref', ({ input: given, expected }) => {
    expect(decideSiteAdminChange(given)).toStrictEqual(expected);
  });

  it('should hold exactly one model row per input combination', () => {
    const keys = MODEL.map((r) => `${r.change}/${r.siteAdmin}/${r.count}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.length).toBe(SITE_ADMIN_CHANGES.length * 2 * 4);
  });

  it.each(MODEL)('should match the model: $change, target site admin $siteAdmin, $count site admins', ({ change, siteAdmin, count, expected }) => {
    expect(decideSiteAdminChange(input(change, siteAdmin, count))).toStrictEqual(expected);
  });

  it.each([
    { ref: 'not an object', given: null, field: 'input' },
    { ref: 'unknown change', given: { change: 'promote', target: { siteAdmin: true }, siteAdminCount: 1 }, field: 'change' },
    { ref: 'no target', given: { change: 'grant', siteAdminCount: 1 }, field: 'target' },
    { ref: 'siteAdmin not a boolean', given: { change: 'grant', target: { siteAdmin: 'yes' }, siteAdminCount: 1 }, field: 'target.siteAdmin' },
    { ref: 'negative count', given: { change: 'grant', target: { siteAdmin: false }, siteAdminCount: -1 }, field: 'siteAdminCount' },
    { ref: 'fractional count', given: { change: 'grant', target: { siteAdmin: false }, siteAdminCount: 1.5 }, field: 'siteAdminCount' },
    { ref: 'NaN count', given: { change: 'grant', target: { siteAdmin: false }, siteAdminCount: Number.NaN }, field: 'siteAdminCount' },
  ])('should refuse malformed input at run time: $ref', ({ given, field }) => {
    // @ts-expect-error -- deliberately malformed at run time
    expect(decideSiteAdminChange(given)).toStrictEqual(err({ code: 'invalid_input', field }));
  });

  test.prop([fc.anything()])('should never throw, whatever it is given', (given) => {
    // @ts-expect-error -- any value at run time
    const result = decideSiteAdminChange(given);
    expect(result.isOk() || result.isErr()).toBe(true);
  });

  // The oracle: a site of `count` site administrators (the target among them when it is one); apply the change
  // to that set; it is allowed exactly when a site that had a site administrator still has one.
  function oracle(change: SiteAdminChange, siteAdmin: boolean, count: number): 'allow' | 'deny' {
    const admins = new Set<string>(Array.from({ length: count }, (_, i) => (siteAdmin && i === 0 ? 'target' : `other-${i}`)));
    const before = admins.size;
    if (change === 'grant') admins.add('target');
    else admins.delete('target');
    return before > 0 && admins.size === 0 ? 'deny' : 'allow';
  }

  test.prop([fc.constantFrom(...SITE_ADMIN_CHANGES), fc.boolean(), fc.nat({ max: 40 })])(
    'should agree with the set model for every consistent input',
    (change, siteAdmin, count) => {
      fc.pre(!siteAdmin || count >= 1);
      const decided = decideSiteAdminChange(input(change, siteAdmin, count))._unsafeUnwrap();
      expect(decided.kind).toBe(oracle(change, siteAdmin, count));
    },
  );

  test.prop([fc.constantFrom(...SITE_ADMIN_CHANGES), fc.boolean(), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER - 1 })])(
    'should be monotonic in the count: allowed with n site admins means allowed with n + 1',
    (change, siteAdmin, count) => {
      const at = decideSiteAdminChange(input(change, siteAdmin, count))._unsafeUnwrap();
      const above = decideSiteAdminChange(input(change, siteAdmin, count + 1))._unsafeUnwrap();
      if (at.kind === 'allow') expect(above.kind).toBe('allow');
    },
  );

  // Sequences: a site of accounts, each a site admin or not; random grants, revocations and deletions go through
  // the rule (reading the count the way a store transaction would); a site that starts with an admin keeps one.
  test.prop([
    fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }).map((flags) => (flags.includes(true) ? flags : [true, ...flags])),
    fc.array(fc.record({ change: fc.constantFrom(...SITE_ADMIN_CHANGES), target: fc.nat({ max: 6 }) }, { noNullPrototype: true }), { maxLength: 30 }),
  ])('should never leave a site without a site administrator over any sequence of changes', (flags, steps) => {
    const accounts = new Map<number, boolean>(flags.map((admin, i) => [i, admin]));
    for (const step of steps) {
      const target = accounts.get(step.target);
      if (target === undefined) continue;
      const count = [...accounts.values()].filter(Boolean).length;
      const decided = decideSiteAdminChange(input(step.change, target, count))._unsafeUnwrap();
      if (decided.kind === 'deny') continue;
      if (step.change === 'delete') accounts.delete(step.target);
      else accounts.set(step.target, step.change === 'grant');
      expect([...accounts.values()].some(Boolean)).toBe(true);
    }
  });
});
