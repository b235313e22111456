/**
 * An account's email addresses: add (unverified), mark verified, make primary, and which one is the primary address
 * (only ever a verified one) and where the account's own mail goes.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  accountMailAddressOf,
  addAccountEmail,
  makePrimaryEmail,
  markEmailVerified,
  MAX_EMAILS_PER_ACCOUNT,
  primaryEmailOf,
} from '../../src/core/account-emails.js';
import type { StoredEmail } from '../../src/core/account-emails.js';

const u = (email: string): StoredEmail => ({ email, verified: false });
const v = (email: string): StoredEmail => ({ email, verified: true });

describe('primaryEmailOf and accountMailAddressOf (a primary email can only be a verified one)', () => {
  const rows: readonly (readonly [string, readonly StoredEmail[], string | null, string | null])[] = [
    ['no address', [], null, null],
    ['one unverified address (just signed up): no primary, mail goes to it', [u('a@x.io')], null, 'a@x.io'],
    ['one verified address', [v('a@x.io')], 'a@x.io', 'a@x.io'],
    ['verified first, then unverified', [v('a@x.io'), u('b@x.io')], 'a@x.io', 'a@x.io'],
    ['two verified: the first is primary', [v('a@x.io'), v('b@x.io')], 'a@x.io', 'a@x.io'],
    ['unverified first, a verified one later (a provider\'s order): the verified one', [u('a@x.io'), v('b@x.io')], 'b@x.io', 'b@x.io'],
    ['all unverified: mail goes to the first', [u('a@x.io'), u('b@x.io')], null, 'a@x.io'],
  ];
  it.each(rows)('%s', (_name, emails, primary, mailTo) => {
    expect(primaryEmailOf(emails)).toBe(primary);
    expect(accountMailAddressOf(emails)).toBe(mailTo);
  });

  it('should answer null for a list that is not an array, without throwing', () => {
    expect(primaryEmailOf(null as unknown as StoredEmail[])).toBeNull();
    expect(accountMailAddressOf('a@x.io' as unknown as StoredEmail[])).toBeNull();
  });
});

describe('the changes', () => {
  it('should add an unverified address at the end, refusing a duplicate by match key, a malformed one and an eleventh', () => {
    expect(addAccountEmail([v('a@x.io')], 'b@x.io')._unsafeUnwrap()).toEqual([v('a@x.io'), u('b@x.io')]);
    expect(addAccountEmail([v('a@x.io')], 'A@X.io')._unsafeUnwrapErr()).toEqual({ code: 'already_added' });
    expect(addAccountEmail([], 'not an address')._unsafeUnwrapErr()).toEqual({ code: 'invalid_email' });
    const full = Array.from({ length: MAX_EMAILS_PER_ACCOUNT }, (_, i) => u(`p${i}@x.io`));
    expect(addAccountEmail(full, 'q@x.io')._unsafeUnwrapErr()).toEqual({ code: 'too_many_emails', max: MAX_EMAILS_PER_ACCOUNT });
  });

  it('should make the first verified address the primary one when there was none', () => {
    const verified = markEmailVerified([u('a@x.io'), u('b@x.io')], 'b@x.io')._unsafeUnwrap();
    expect(verified).toEqual([v('b@x.io'), u('a@x.io')]);
    expect(primaryEmailOf(verified)).toBe('b@x.io');
  });

  it('should keep the primary address when another one is verified', () => {
    expect(markEmailVerified([v('a@x.io'), u('b@x.io')], 'b@x.io')._unsafeUnwrap()).toEqual([v('a@x.io'), v('b@x.io')]);
  });

  it('should make only a verified address primary', () => {
    expect(makePrimaryEmail([v('a@x.io'), u('b@x.io')], 'b@x.io')._unsafeUnwrapErr()).toEqual({ code: 'not_verified' });
    expect(makePrimaryEmail([v('a@x.io')], 'c@x.io')._unsafeUnwrapErr()).toEqual({ code: 'unknown_email' });
    expect(makePrimaryEmail([v('a@x.io'), v('b@x.io')], 'B@x.io')._unsafeUnwrap()).toEqual([v('b@x.io'), v('a@x.io')]);
  });
});

/** One step a person or a mailed link takes on the account's addresses. */
type Step = { readonly kind: 'add' | 'verify' | 'make_primary'; readonly address: number };
const ADDRESSES = ['a@x.io', 'b@x.io', 'C@x.io', 'c@X.io', 'd@x.io'] as const;
const stepArbitrary: fc.Arbitrary<Step> = fc.record({ kind: fc.constantFrom('add', 'verify', 'make_primary'), address: fc.integer({ min: 0, max: ADDRESSES.length - 1 }) });

/** The model: a set of addresses (by lower-case key), the verified ones, and the primary one chosen by hand. */
interface Model {
  readonly added: string[];
  readonly verified: Set<string>;
  primary: string | null;
}

function applyToModel(model: Model, step: Step): void {
  const key = (ADDRESSES[step.address] ?? '').toLowerCase();
  const known = model.added.includes(key);
  if (step.kind === 'add' && !known) model.added.push(key);
  if (step.kind === 'verify' && known) {
    model.verified.add(key);
    if (model.primary === null) model.primary = key;
  }
  if (step.kind === 'make_primary' && known && model.verified.has(key)) model.primary = key;
}

function applyToList(emails: StoredEmail[], step: Step): StoredEmail[] {
  const address = ADDRESSES[step.address] ?? '';
  const next = step.kind === 'add' ? addAccountEmail(emails, address) : step.kind === 'verify' ? markEmailVerified(emails, address) : makePrimaryEmail(emails, address);
  return next.unwrapOr(emails);
}

describe('properties', () => {
  test.prop([fc.array(stepArbitrary, { maxLength: 30 })])('should agree with the model: the primary, when any, is always verified and the one chosen', (steps) => {
    const model: Model = { added: [], verified: new Set(), primary: null };
    let emails: StoredEmail[] = [];
    for (const step of steps) {
      applyToModel(model, step);
      emails = applyToList(emails, step);
      const primary = primaryEmailOf(emails);
      expect(primary === null ? null : primary.toLowerCase()).toBe(model.primary);
      if (primary !== null) expect(emails.find((e) => e.email === primary)?.verified).toBe(true);
      expect(emails.map((e) => e.email.toLowerCase()).sort()).toEqual([...model.added].sort());
      expect(emails.filter((e) => e.verified).map((e) => e.email.toLowerCase()).sort()).toEqual([...model.verified].sort());
    }
  });

  test.prop([fc.anything(), fc.anything()])('should never throw on any input', (emails, email) => {
    const list = emails as StoredEmail[];
    expect(() => [primaryEmailOf(list), accountMailAddressOf(list), addAccountEmail(list, email as string), markEmailVerified(list, email as string), makePrimaryEmail(list, email as string)]).not.toThrow();
  });
});
