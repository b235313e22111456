/**
 * Parse once at the boundary: values the core's own parsers produced are frozen and recognised by kind, so the
 * decisions take them as they are; look-alike values stay foreign and are read defensively.
 */
import { describe, expect, it } from 'vitest';
import { parseExternalIdentity } from '../../../src/core/external-identity.js';
import { invalidInput, isParsed, markParsed } from '../../../src/core/internal/guard.js';
import { readProviderFacts } from '../../../src/core/internal/provider-facts.js';
import { parseSiteConfiguration } from '../../../src/core/site-configuration/parse.js';

const identityInput = { accountId: '7', username: 'octavia', emails: [{ address: 'o@example.com', verified: true, primary: true }] };

describe('parse once', () => {
  it('should freeze and recognise a parsed identity, and take it as it is when given again', () => {
    const parsed = parseExternalIdentity(identityInput)._unsafeUnwrap();
    expect(parsed).not.toBe(identityInput);
    expect(Object.isFrozen(parsed)).toBe(true);
    expect(Object.isFrozen(parsed.emails[0])).toBe(true);
    expect(isParsed(parsed, 'identity')).toBe(true);
    expect(parseExternalIdentity(parsed)._unsafeUnwrap()).toBe(parsed);
  });

  it('should not recognise a look-alike, nor a value parsed as another kind', () => {
    const parsed = parseExternalIdentity(identityInput)._unsafeUnwrap();
    expect(isParsed({ ...parsed }, 'identity')).toBe(false);
    expect(isParsed(parsed, 'provider')).toBe(false);
    expect(isParsed(null, 'identity')).toBe(false);
    expect(parseExternalIdentity({ ...parsed, accountId: '' }).isErr()).toBe(true);
  });

  it('should read the facts of a parsed provider entry once', () => {
    const config = parseSiteConfiguration(
      '{"auth.providers": [{"type": "hostb", "url": "https://hostb.example.com/", "clientID": "i", "clientSecret": "s", "allowGroups": ["a/b"]}]}',
    )._unsafeUnwrap();
    const provider = config.authProviders[0];
    expect(isParsed(provider, 'provider')).toBe(true);
    expect(Object.isFrozen(provider)).toBe(true);
    const first = readProviderFacts(provider)._unsafeUnwrap();
    expect(readProviderFacts(provider)._unsafeUnwrap()).toBe(first);
    expect(first).toStrictEqual({ type: 'hostb', allowSignup: true, serviceId: 'https://hostb.example.com', gate: { kind: 'groups', paths: ['a/b'] } });
    // A copy is foreign: read again, field by field, to equal facts.
    const copy = { ...provider };
    expect(readProviderFacts(copy)._unsafeUnwrap()).not.toBe(first);
    expect(readProviderFacts(copy)._unsafeUnwrap()).toStrictEqual(first);
  });

  it('should mark only what it is given, deeply frozen', () => {
    const value = markParsed('provider_facts', { list: [{ a: 1 }] });
    expect(Object.isFrozen(value.list)).toBe(true);
    expect(Object.isFrozen(value.list[0])).toBe(true);
  });

  it('should build the one bad-input error shape from a field problem', () => {
    expect(invalidInput({ path: 'emails[0].verified', expected: 'boolean' })).toStrictEqual({
      code: 'invalid_input',
      path: 'emails[0].verified',
      expected: 'boolean',
    });
  });
});
