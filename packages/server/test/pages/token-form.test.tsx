/**
 * The token form both token pages share (spec §2.3): reading a post, against an oracle written here.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { readTokenForm, TOKEN_EXPIRY_CHOICES, TOKEN_NOTE_MAX_LENGTH } from '../../src/pages/token-form.js';

const NOW = 1_700_000_000_000;
const DAY = 86_400_000;

describe('readTokenForm', () => {
  test.each([
    ['a note and an expiry', 'note=ci&scopes=user:all&expires=30', { note: 'ci', scopes: ['user:all'], expiresAt: NOW + 30 * DAY }],
    ['never expires', 'note=ci&expires=never', { note: 'ci', scopes: [], expiresAt: null }],
    ['no expiry posted: the default', 'note=ci', { note: 'ci', scopes: [], expiresAt: NOW + 90 * DAY }],
    ['both scopes, as posted (the core decides)', 'note=x&scopes=user:all&scopes=site-admin:sudo', { note: 'x', scopes: ['user:all', 'site-admin:sudo'], expiresAt: NOW + 90 * DAY }],
    ['a trimmed note', 'note=%20%20laptop%20', { note: 'laptop', scopes: [], expiresAt: NOW + 90 * DAY }],
  ])('%s', (_name, body, expected) => {
    expect(readTokenForm(new URLSearchParams(body), NOW, '90').request._unsafeUnwrap()).toEqual(expected);
  });

  test.each([
    ['no note', 'expires=7', 'Enter a note'],
    ['a blank note', 'note=%20%20', 'Enter a note'],
    ['a line break', 'note=a%0Ab', 'control characters'],
    ['an expiry the form does not offer', 'note=a&expires=3', 'Choose when the token expires.'],
    ['201 characters', `note=${'é'.repeat(201)}`, 'at most 200 characters'],
  ])('refuses %s, keeping what was typed', (_name, body, message) => {
    const read = readTokenForm(new URLSearchParams(body), NOW, '90');
    expect(read.request._unsafeUnwrapErr()).toContain(message);
    expect(read.values.note).toBe(new URLSearchParams(body).get('note') ?? '');
  });

  // Oracle: the rule written out again, independently of the module's order of checks.
  test.prop([fc.string({ unit: 'grapheme', maxLength: 220 }), fc.constantFrom('7', '30', '90', '365', 'never', '', '3', 'x'), fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 })])(
    'accepts exactly the notes and expiries the rule allows, and never throws',
    (note, expires, scopes) => {
      const form = new URLSearchParams();
      form.set('note', note);
      if (expires !== '') form.set('expires', expires);
      for (const s of scopes) form.append('scopes', s);
      const read = readTokenForm(form, NOW, 'never');
      const trimmed = note.trim();
      const choice = TOKEN_EXPIRY_CHOICES.find((c) => c.value === (expires === '' ? 'never' : expires));
      const allowed = trimmed !== '' && [...trimmed].length <= TOKEN_NOTE_MAX_LENGTH && !/[\p{Cc}\u2028\u2029]/u.test(trimmed) && choice !== undefined;
      expect(read.request.isOk()).toBe(allowed);
      if (read.request.isOk()) {
        expect(read.request.value).toEqual({ note: trimmed, scopes, expiresAt: choice?.days === null || choice === undefined ? null : NOW + choice.days * DAY });
      }
    },
  );
});
