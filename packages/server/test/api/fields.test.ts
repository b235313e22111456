import { GraphQLError } from 'graphql';
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { answer, auditQuery, requireSiteAdmin, requireUser, str, strList } from '../../src/api/fields.js';
import type { Context } from '../../src/api/fields.js';
import type { UserRecord } from '../../src/store/types.js';

const user = (siteAdmin: boolean): UserRecord => ({
  id: '1', username: 'ann', origin: 'admin_created', siteAdmin, serviceAccount: false, emails: [], passwordHash: null, createdAt: 0,
});
const signedIn = (siteAdmin: boolean): Context => ({ viewer: { kind: 'user', user: user(siteAdmin), actor: user(siteAdmin), via: 'token' } });
const anonymous: Context = { viewer: { kind: 'anonymous' } };

/** The `extensions.code` of a result's error, or `ok`. */
const codeOf = (result: Result<unknown, GraphQLError>): unknown => result.match(() => 'ok', (e) => e.extensions['code']);

describe('the viewer checks', () => {
  it.each([
    { ref: 'anonymous, requireUser', result: () => requireUser(anonymous), expected: 'UNAUTHENTICATED' },
    { ref: 'signed in, requireUser', result: () => requireUser(signedIn(false)), expected: 'ok' },
    { ref: 'anonymous, requireSiteAdmin', result: () => requireSiteAdmin(anonymous), expected: 'UNAUTHENTICATED' },
    { ref: 'not an administrator, requireSiteAdmin', result: () => requireSiteAdmin(signedIn(false)), expected: 'FORBIDDEN' },
    { ref: 'an administrator, requireSiteAdmin', result: () => requireSiteAdmin(signedIn(true)), expected: 'ok' },
  ])('should return $expected for $ref', ({ result, expected }) => {
    expect(codeOf(result())).toBe(expected);
  });
});

describe('the argument readers', () => {
  it.each([
    { ref: 'a string within its bound', result: () => str({ name: 'x' }, 'name'), expected: 'ok' },
    { ref: 'a string past its bound', result: () => str({ name: 'x'.repeat(257) }, 'name'), expected: 'BAD_USER_INPUT' },
    { ref: 'a list past its item bound', result: () => strList({ scopes: Array.from({ length: 21 }, () => 'a') }, 'scopes'), expected: 'BAD_USER_INPUT' },
    { ref: 'a list with an item past its bound', result: () => strList({ scopes: ['a', 'b'.repeat(65)] }, 'scopes'), expected: 'BAD_USER_INPUT' },
    { ref: 'an audit cursor that is no entry id', result: () => auditQuery({ before: 'abc' }), expected: 'BAD_USER_INPUT' },
  ])('should return $expected for $ref', ({ result, expected }) => {
    expect(codeOf(result())).toBe(expected);
  });

  it('should read an absent string as empty and a list in order', () => {
    expect(str({}, 'note')).toStrictEqual(ok(''));
    expect(strList({ scopes: ['user:all', 'site-admin:sudo'] }, 'scopes')).toStrictEqual(ok(['user:all', 'site-admin:sudo']));
    expect(auditQuery({ before: '10', entity: 'user' })).toStrictEqual(ok({ before: '10', entity: 'user' }));
  });
});

describe('answer', () => {
  it('should give a resolver its value or its error, of a result or of a promise of one', async () => {
    const e = new GraphQLError('No such access token.');
    expect(answer(ok(1))).toBe(1);
    expect(answer(err(e))).toBe(e);
    expect(await answer(Promise.resolve(ok(2)))).toBe(2);
    expect(await answer(Promise.resolve(err(e)))).toBe(e);
  });
});
