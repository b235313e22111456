import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_CONTROLS, ACCOUNT_USES, decideAccountControl, decideAccountUse } from '../../src/core/account-controls.js';
import type { AccountControl, AccountControlDecision, AccountControlError, AccountControlInput } from '../../src/core/account-controls.js';
import type { Result } from 'neverthrow';

type Expected = Result<AccountControlDecision, AccountControlError>;
const A: Expected = ok({ kind: 'apply' });
const U: Expected = ok({ kind: 'unchanged' });
const D: Expected = ok({ kind: 'deny', reason: 'last_site_admin' });
const X: Expected = err({ code: 'inconsistent_count', activeSiteAdminCount: 0 });

// The model, written out: one row per (control, target is a site admin, target is suspended), with the answer for
// 0, 1, 2 and 3 active site administrators. An active administrator (admin, not suspended) with a count of 0 means
// the facts were not read together; the one active administrator is never suspended nor stripped of its sessions
// or tokens; suspending a suspended account and reinstating an active one change nothing.
const MODEL: readonly { control: AccountControl; siteAdmin: boolean; suspended: boolean; byCount: readonly [Expected, Expected, Expected, Expected] }[] = [
  { control: 'suspend', siteAdmin: false, suspended: false, byCount: [A, A, A, A] },
  { control: 'suspend', siteAdmin: false, suspended: true, byCount: [U, U, U, U] },
  { control: 'suspend', siteAdmin: true, suspended: false, byCount: [X, D, A, A] },
  { control: 'suspend', siteAdmin: true, suspended: true, byCount: [U, U, U, U] },
  { control: 'reinstate', siteAdmin: false, suspended: false, byCount: [U, U, U, U] },
  { control: 'reinstate', siteAdmin: false, suspended: true, byCount: [A, A, A, A] },
  { control: 'reinstate', siteAdmin: true, suspended: false, byCount: [X, U, U, U] },
  { control: 'reinstate', siteAdmin: true, suspended: true, byCount: [A, A, A, A] },
  { control: 'end_sessions', siteAdmin: false, suspended: false, byCount: [A, A, A, A] },
  { control: 'end_sessions', siteAdmin: false, suspended: true, byCount: [A, A, A, A] },
  { control: 'end_sessions', siteAdmin: true, suspended: false, byCount: [X, D, A, A] },
  { control: 'end_sessions', siteAdmin: true, suspended: true, byCount: [A, A, A, A] },
  { control: 'revoke_tokens', siteAdmin: false, suspended: false, byCount: [A, A, A, A] },
  { control: 'revoke_tokens', siteAdmin: false, suspended: true, byCount: [A, A, A, A] },
  { control: 'revoke_tokens', siteAdmin: true, suspended: false, byCount: [X, D, A, A] },
  { control: 'revoke_tokens', siteAdmin: true, suspended: true, byCount: [A, A, A, A] },
];

const input = (control: AccountControl, siteAdmin: boolean, suspended: boolean, count: number): AccountControlInput => ({
  control,
  target: { siteAdmin, suspended },
  activeSiteAdminCount: count,
});

const ROWS = MODEL.flatMap((row) => row.byCount.map((expected, count) => ({ ...row, count, expected })));

describe('decideAccountControl', () => {
  it.each([
    { ref: 'the only active site admin is not suspended', given: input('suspend', true, false, 1), expected: D },
    { ref: 'the only active site admin keeps its sessions', given: input('end_sessions', true, false, 1), expected: D },
    { ref: 'the only active site admin keeps its tokens', given: input('revoke_tokens', true, false, 1), expected: D },
    { ref: 'one of two active site admins may be suspended', given: input('suspend', true, false, 2), expected: A },
    { ref: 'a suspended site admin is not the active one: its sessions may end', given: input('end_sessions', true, true, 1), expected: A },
    { ref: 'a suspended site admin may be reinstated', given: input('reinstate', true, true, 1), expected: A },
    { ref: 'a member may be suspended', given: input('suspend', false, false, 1), expected: A },
    { ref: 'suspending twice changes nothing', given: input('suspend', false, true, 1), expected: U },
    { ref: 'reinstating an active account changes nothing', given: input('reinstate', false, false, 1), expected: U },
  ])('should decide: $ref', ({ given, expected }) => {
    expect(decideAccountControl(given)).toStrictEqual(expected);
  });

  it('should hold exactly one model row per input combination', () => {
    const keys = MODEL.map((r) => `${r.control}/${r.siteAdmin}/${r.suspended}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.length).toBe(ACCOUNT_CONTROLS.length * 2 * 2);
  });

  it.each(ROWS)('should match the model: $control, site admin $siteAdmin, suspended $suspended, $count active site admins', ({ control, siteAdmin, suspended, count, expected }) => {
    const decided = decideAccountControl(input(control, siteAdmin, suspended, count));
    expect(decided).toStrictEqual(expected.isErr() ? err({ code: 'inconsistent_count', activeSiteAdminCount: count }) : expected);
  });

  it.each([
    { ref: 'not an object', given: null, field: 'input' },
    { ref: 'unknown control', given: { control: 'delete', target: { siteAdmin: false, suspended: false }, activeSiteAdminCount: 1 }, field: 'control' },
    { ref: 'no target', given: { control: 'suspend', activeSiteAdminCount: 1 }, field: 'target' },
    { ref: 'siteAdmin not a boolean', given: { control: 'suspend', target: { siteAdmin: 1, suspended: false }, activeSiteAdminCount: 1 }, field: 'target.siteAdmin' },
    { ref: 'suspended not a boolean', given: { control: 'suspend', target: { siteAdmin: false, suspended: 'no' }, activeSiteAdminCount: 1 }, field: 'target.suspended' },
    { ref: 'negative count', given: { control: 'suspend', target: { siteAdmin: false, suspended: false }, activeSiteAdminCount: -1 }, field: 'activeSiteAdminCount' },
    { ref: 'fractional count', given: { control: 'suspend', target: { siteAdmin: false, suspended: false }, activeSiteAdminCount: 0.5 }, field: 'activeSiteAdminCount' },
  ])('should refuse malformed input at run time: $ref', ({ given, field }) => {
    // @ts-expect-error -- deliberately malformed at run time
    expect(decideAccountControl(given)).toStrictEqual(err({ code: 'invalid_input', field }));
  });

  test.prop([fc.anything()])('should never throw, whatever it is given', (given) => {
    // @ts-expect-error -- any value at run time
    const result = decideAccountControl(given);
    expect(result.isOk() || result.isErr()).toBe(true);
  });

  // The oracle: a site of accounts, each an administrator or not and suspended or not. Apply the control to the
  // target; "can administer" means an administrator that is not suspended and keeps its sessions and tokens. A
  // control is refused exactly when it takes the last such account away; it changes nothing when the state stays.
  function oracle(control: AccountControl, siteAdmin: boolean, suspended: boolean, count: number): 'apply' | 'unchanged' | 'deny' {
    const others = count - (siteAdmin && !suspended ? 1 : 0);
    const after = { suspended: control === 'suspend' ? true : control === 'reinstate' ? false : suspended, stripped: control === 'end_sessions' || control === 'revoke_tokens' };
    if ((control === 'suspend' || control === 'reinstate') && after.suspended === suspended) return 'unchanged';
    const targetAdministersAfter = siteAdmin && !after.suspended && !after.stripped;
    const administeredBefore = others + (siteAdmin && !suspended ? 1 : 0) > 0;
    return administeredBefore && others === 0 && !targetAdministersAfter ? 'deny' : 'apply';
  }

  test.prop([fc.constantFrom(...ACCOUNT_CONTROLS), fc.boolean(), fc.boolean(), fc.nat({ max: 50 })])(
    'should agree with the oracle for every consistent input',
    (control, siteAdmin, suspended, count) => {
      fc.pre(!(siteAdmin && !suspended) || count >= 1);
      expect(decideAccountControl(input(control, siteAdmin, suspended, count))._unsafeUnwrap().kind).toBe(oracle(control, siteAdmin, suspended, count));
    },
  );

  test.prop([fc.constantFrom(...ACCOUNT_CONTROLS), fc.boolean(), fc.boolean(), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER - 1 })])(
    'should be monotonic in the count: not denied with n active site admins means not denied with n + 1',
    (control, siteAdmin, suspended, count) => {
      const at = decideAccountControl(input(control, siteAdmin, suspended, count))._unsafeUnwrap();
      const above = decideAccountControl(input(control, siteAdmin, suspended, count + 1))._unsafeUnwrap();
      if (at.kind !== 'deny') expect(above).toStrictEqual(at);
    },
  );

  // Sequences: accounts, each an administrator or not; random suspensions and reinstatements go through the rule
  // (reading the active count as a store transaction would); a site that starts with an active admin keeps one,
  // and applying a control twice is the same as once (idempotence).
  test.prop([
    fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }).map((flags) => (flags.includes(true) ? flags : [true, ...flags])),
    fc.array(fc.record({ control: fc.constantFrom<AccountControl>('suspend', 'reinstate'), target: fc.nat({ max: 6 }) }, { noNullPrototype: true }), { maxLength: 30 }),
  ])('should never leave a site without an active site administrator, and be idempotent', (admins, steps) => {
    const accounts = admins.map((siteAdmin) => ({ siteAdmin, suspended: false }));
    const activeCount = (): number => accounts.filter((a) => a.siteAdmin && !a.suspended).length;
    for (const step of steps) {
      const target = accounts[step.target];
      if (target === undefined) continue;
      const decided = decideAccountControl(input(step.control, target.siteAdmin, target.suspended, activeCount()))._unsafeUnwrap();
      if (decided.kind === 'apply') target.suspended = step.control === 'suspend';
      expect(activeCount()).toBeGreaterThan(0);
      const again = decideAccountControl(input(step.control, target.siteAdmin, target.suspended, activeCount()))._unsafeUnwrap();
      expect(again.kind).not.toBe('apply');
    }
  });
});

describe('decideAccountUse', () => {
  it.each(ACCOUNT_USES.flatMap((use) => [
    { use, suspended: false, expected: { kind: 'allow' } },
    { use, suspended: true, expected: { kind: 'deny', reason: 'account_suspended' } },
  ]))('should decide $use of an account suspended $suspended', ({ use, suspended, expected }) => {
    expect(decideAccountUse({ suspended, use })).toStrictEqual(expected);
  });

  test.prop([fc.anything()])('should never throw, and allow only a well-formed use of an account that is not suspended', (given) => {
    // @ts-expect-error -- any value at run time
    const decided = decideAccountUse(given);
    const wellFormed = typeof given === 'object' && given !== null && Object.getOwnPropertyDescriptor(given, 'suspended')?.value === false
      && ACCOUNT_USES.some((u) => u === Object.getOwnPropertyDescriptor(given, 'use')?.value);
    expect(decided.kind).toBe(wellFormed ? 'allow' : 'deny');
  });
});
