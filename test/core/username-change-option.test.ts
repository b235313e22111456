/**
 * `auth.enableUsernameChanges` (default false, as the service the spec describes; §5.3 http-header rule 3 warns
 * that mutable usernames let a user elevate privileges): site administrators may always rename.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { decideUsernameChangeOption, DEFAULT_ENABLE_USERNAME_CHANGES } from '../../src/core/username-change-option.js';

describe('decideUsernameChangeOption (§5.3 http-header rule 3)', () => {
  test.each([
    ['the default is off', DEFAULT_ENABLE_USERNAME_CHANGES, false, { kind: 'refuse', reason: 'username_changes_disabled' }],
    ['off, a site admin', false, true, { kind: 'allow' }],
    ['on, a member', true, false, { kind: 'allow' }],
    ['on, a site admin', true, true, { kind: 'allow' }],
  ])('%s', (_name, enableUsernameChanges, actorSiteAdmin, expected) => {
    expect(DEFAULT_ENABLE_USERNAME_CHANGES).toBe(false);
    expect(decideUsernameChangeOption({ enableUsernameChanges, actorSiteAdmin })._unsafeUnwrap()).toStrictEqual(expected);
  });

  test.prop([fc.anything(), fc.anything()])('never throws; anything but booleans is invalid_input', (a, b) => {
    const d = decideUsernameChangeOption({ enableUsernameChanges: a as boolean, actorSiteAdmin: b as boolean });
    expect(d.isOk()).toBe(typeof a === 'boolean' && typeof b === 'boolean');
  });
});

describe('malformed inputs', () => {
  test.prop([fc.anything()])('decideUsernameChangeOption never throws on any input', (input) => {
    expect(() => decideUsernameChangeOption(input as never)).not.toThrow();
  });
});
