/**
 * Sealed outbox bodies: AES-256-GCM under a key derived from the server's `credentialsKey`, recipient and subject
 * bound, the key named by its id.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { mailKeyOf, mailSealing, openMailText, sealMailText } from '../../src/store/sealed-mail.js';
import { openSecret } from '../../src/store/credentials.js';

const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));
const KEY = mailKeyOf(new Uint8Array(32).fill(1));
const OTHER = mailKeyOf(new Uint8Array(32).fill(2));
const mailArbitrary = fc.record({ to: fc.string(), subject: fc.string(), text: fc.string({ unit: 'grapheme', maxLength: 500 }) });

describe('mailKeyOf', () => {
  it('should derive a key of its own from credentialsKey (not the key itself), named by 16 hex digits', () => {
    const credentialsKey = new Uint8Array(32).fill(1);
    expect(KEY.key).toHaveLength(32);
    expect(Buffer.from(KEY.key).equals(Buffer.from(credentialsKey))).toBe(false);
    expect(KEY.id).toMatch(/^[0-9a-f]{16}$/u);
    expect(mailKeyOf(credentialsKey)).toStrictEqual(KEY);
    expect(OTHER.id).not.toBe(KEY.id);
  });

  it('should not open with the credentials key what it seals (a key per purpose)', () => {
    const sealed = sealMailText(KEY, random(12), { to: 'a@x.io', subject: 's', text: 'token' }) ?? '';
    const inner = sealed.split('.').slice(2).join('.');
    expect(openSecret(new Uint8Array(32).fill(1), inner, JSON.stringify(['a@x.io', 's']))).toBeNull();
  });

  it('should refuse an IV of the wrong length', () => {
    expect(sealMailText(KEY, random(11), { to: 'a@x.io', subject: 's', text: 't' })).toBeNull();
  });
});

describe('properties', () => {
  test.prop([mailArbitrary])('should round-trip, and never show the body in the sealed text', (mail) => {
    const sealed = sealMailText(KEY, random(12), mail);
    expect(sealed).not.toBeNull();
    expect(openMailText(KEY, { ...mail, text: sealed ?? '' })).toStrictEqual({ kind: 'opened', text: mail.text });
    if (mail.text.length >= 8) expect(sealed).not.toContain(mail.text);
  });

  test.prop([mailArbitrary, fc.nat(), fc.integer({ min: 1, max: 60 })])('should refuse the sealed text with any one character changed', (mail, at, shift) => {
    const sealed = sealMailText(KEY, random(12), mail) ?? '';
    const i = at % sealed.length;
    const changed = sealed.slice(0, i) + String.fromCharCode(((sealed.charCodeAt(i) + shift - 32) % 95) + 32) + sealed.slice(i + 1);
    fc.pre(changed !== sealed);
    expect(openMailText(KEY, { ...mail, text: changed }).kind).not.toBe('opened');
  });

  test.prop([mailArbitrary, fc.string()])('should refuse a body moved to another recipient or subject', (mail, other) => {
    fc.pre(other !== mail.to && other !== mail.subject);
    const sealed = sealMailText(KEY, random(12), mail) ?? '';
    expect(openMailText(KEY, { ...mail, to: other, text: sealed })).toStrictEqual({ kind: 'unreadable' });
    expect(openMailText(KEY, { ...mail, subject: other, text: sealed })).toStrictEqual({ kind: 'unreadable' });
  });

  test.prop([mailArbitrary])('should tell a body sealed by another key from a damaged one', (mail) => {
    const sealed = sealMailText(OTHER, random(12), mail) ?? '';
    expect(openMailText(KEY, { ...mail, text: sealed })).toStrictEqual({ kind: 'other_key', keyId: OTHER.id });
  });

  test.prop([fc.anything(), fc.anything(), fc.anything()])('should never throw on any stored row', (to, subject, text) => {
    const row = { to, subject, text } as { to: string; subject: string; text: string };
    expect(() => openMailText(KEY, row)).not.toThrow();
    expect(() => mailSealing(new Uint8Array(32), random).open(row)).not.toThrow();
  });
});
