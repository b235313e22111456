import { fc, test } from '@fast-check/vitest';
import { err, ok, type Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import {
  CB,
  CB2,
  codeGrant,
  codeRecord,
  issued,
  NOW,
  refreshGrant,
  refreshRecord,
  rotated,
  s256,
  sha256,
  VERIFIER,
} from './fixtures.js';
import { decideAuthorizationCodeGrant, decideRefreshTokenGrant } from '../../../../src/core/oauth/server/grants.js';
import { decideOAuthAccessTokenUse } from '../../../../src/core/oauth/server/access-tokens.js';
import type { AuthorizationCodeGrant } from '../../../../src/core/oauth/server/token-request.js';
import type { AuthorizationCodeRecord, OAuthAccessTokenRecord, RefreshTokenRecord } from '../../../../src/core/oauth/server/records.js';

describe('decideAuthorizationCodeGrant', () => {
  const rows: {
    ref: string;
    now?: number;
    clientId?: string;
    grant?: Partial<AuthorizationCodeGrant>;
    record?: Partial<AuthorizationCodeRecord> | null;
    expected: Result<unknown, unknown>;
  }[] = [
    { ref: 'RFC 6749 §4.1.3 (valid code)', expected: issued },
    { ref: 'RFC 6749 §5.2 (unknown code)', record: null, expected: err({ code: 'unknown_code' }) },
    { ref: 'RFC 6749 §4.1.3 (bound to the client)', clientId: 'gai_other', expected: err({ code: 'code_client_mismatch' }) },
    { ref: 'RFC 6749 §4.1.2 (reuse revokes its tokens)', record: { used: true }, expected: ok({ kind: 'revoke_family', familyId: 'fam', reason: 'authorization_code_reused' }) },
    { ref: 'RFC 6749 §4.1.2 (reuse after expiry still revokes)', record: { used: true, expiresAt: NOW }, expected: ok({ kind: 'revoke_family', familyId: 'fam', reason: 'authorization_code_reused' }) },
    { ref: 'RFC 6749 §4.1.2 (short TTL, boundary)', now: NOW + 60_000, expected: err({ code: 'code_expired' }) },
    { ref: 'RFC 6749 §4.1.2 (short TTL, last ms)', now: NOW + 59_999, expected: issued },
    { ref: 'RFC 6749 §4.1.3 (redirect_uri identical)', grant: { redirectUri: `${CB}/` }, expected: err({ code: 'redirect_uri_mismatch' }) },
    { ref: 'RFC 6749 §4.1.3 (redirect_uri required when sent)', grant: { redirectUri: null }, expected: err({ code: 'redirect_uri_mismatch' }) },
    { ref: 'RFC 6749 §4.1.3 (omitted at authorize: may be omitted)', grant: { redirectUri: null }, record: { redirectUriGiven: false }, expected: issued },
    { ref: 'RFC 6749 §4.1.3 (omitted at authorize: may be repeated)', record: { redirectUriGiven: false }, expected: issued },
    { ref: 'RFC 6749 §4.1.3 (omitted at authorize: must still match)', grant: { redirectUri: CB2 }, record: { redirectUriGiven: false }, expected: err({ code: 'redirect_uri_mismatch' }) },
    { ref: 'RFC 7636 §4.6 (wrong verifier)', grant: { codeVerifier: VERIFIER.replace('d', 'e') }, expected: err({ code: 'code_verifier_mismatch' }) },
    { ref: 'RFC 7636 §4.6 (plain challenge never matches)', record: { codeChallenge: VERIFIER }, expected: err({ code: 'code_verifier_mismatch' }) },
  ];
  it.each(rows)('should follow $ref', ({ now, clientId, grant, record, expected }) => {
    const r = record === null ? null : { ...codeRecord, ...record };
    expect(
      decideAuthorizationCodeGrant({ now: now ?? NOW, clientId: clientId ?? 'gai_client', grant: { ...codeGrant, ...grant }, record: r, sha256 }),
    ).toStrictEqual(expected);
  });

  // Every combination of the five conditions, against the table written from the doc comment.
  const bools = [false, true] as const;
  const combos = bools.flatMap((sameClient) =>
    bools.flatMap((used) =>
      bools.flatMap((expired) => bools.flatMap((redirectOk) => bools.map((verifierOk) => ({ sameClient, used, expired, redirectOk, verifierOk })))),
    ),
  );
  it('should enumerate 32 combinations', () => expect(combos).toHaveLength(32));
  it.each(combos)('should decide %o as the table says', ({ sameClient, used, expired, redirectOk, verifierOk }) => {
    const expected = !sameClient
      ? 'code_client_mismatch'
      : used
        ? 'revoke_family'
        : expired
          ? 'code_expired'
          : !redirectOk
            ? 'redirect_uri_mismatch'
            : !verifierOk
              ? 'code_verifier_mismatch'
              : 'issue';
    const result = decideAuthorizationCodeGrant({
      now: expired ? codeRecord.expiresAt : NOW,
      clientId: sameClient ? 'gai_client' : 'gai_other',
      grant: { ...codeGrant, redirectUri: redirectOk ? CB : CB2, codeVerifier: verifierOk ? VERIFIER : 'x'.repeat(43) },
      record: { ...codeRecord, used },
      sha256,
    });
    expect(result.match((d) => d.kind as string, (e) => e.code)).toBe(expected);
  });

  test.prop([fc.stringMatching(/^[A-Za-z0-9._~-]{43,128}$/), fc.stringMatching(/^[A-Za-z0-9._~-]{43,128}$/)])(
    'should accept a verifier exactly when it hashes to the challenge (RFC 7636 §4.6)',
    (verifier, other) => {
      const record = { ...codeRecord, codeChallenge: s256(verifier) };
      const decide = (v: string) => decideAuthorizationCodeGrant({ now: NOW, clientId: 'gai_client', grant: { ...codeGrant, codeVerifier: v }, record, sha256 });
      expect(decide(verifier)).toStrictEqual(issued);
      expect(decide(other).isOk()).toBe(other === verifier);
    },
  );

  test.prop([fc.anything(), fc.anything(), fc.anything()])('should never throw', (record, grant, now) => {
    expect(() => decideAuthorizationCodeGrant({ now, clientId: 'gai_client', grant, record, sha256 } as never)).not.toThrow();
    expect(() => decideAuthorizationCodeGrant(record as never)).not.toThrow();
  });
});

// -----------------------------------------------------------------------------------------------

describe('decideRefreshTokenGrant', () => {
  const rows: { ref: string; now?: number; clientId?: string; scopes?: string[]; record?: Partial<RefreshTokenRecord> | null; expected: Result<unknown, unknown> }[] = [
    { ref: 'rotate on every use', expected: rotated },
    { ref: 'RFC 6749 §5.2 (unknown token)', record: null, expected: err({ code: 'unknown_refresh_token' }) },
    { ref: 'RFC 6749 §6 (bound to the client)', clientId: 'gai_other', expected: err({ code: 'refresh_token_client_mismatch' }) },
    { ref: 'RFC 6749 §6 (bound to the client, even when used)', clientId: 'gai_other', record: { used: true }, expected: err({ code: 'refresh_token_client_mismatch' }) },
    { ref: 'RFC 9700 §4.14.2 (replay revokes the family)', record: { used: true }, expected: ok({ kind: 'revoke_family', familyId: 'fam', reason: 'refresh_token_reused' }) },
    { ref: 'RFC 9700 §4.14.2 (replay after expiry revokes too)', record: { used: true, expiresAt: NOW }, expected: ok({ kind: 'revoke_family', familyId: 'fam', reason: 'refresh_token_reused' }) },
    { ref: 'RFC 9700 §4.14.2 (revoked family stays dead)', record: { familyRevoked: true }, expected: err({ code: 'family_revoked' }) },
    { ref: 'RFC 9700 §4.14.2 (revoked family, replay)', record: { familyRevoked: true, used: true }, expected: err({ code: 'family_revoked' }) },
    { ref: 'refresh tokens expire, boundary', now: NOW + 1000, expected: err({ code: 'refresh_token_expired' }) },
    { ref: 'refresh tokens expire, last ms', now: NOW + 999, expected: rotated },
    { ref: 'RFC 6749 §6 (same scope)', scopes: ['user:all'], expected: rotated },
    { ref: 'RFC 6749 §6 (no broader scope)', scopes: ['user:all', 'site-admin:sudo'], expected: err({ code: 'scope_not_granted' }) },
    {
      ref: 'RFC 6749 §6 (narrower access token, refresh token keeps the grant)',
      scopes: ['user:all'],
      record: { scopes: ['user:all', 'read'] },
      expected: ok({ ...rotated._unsafeUnwrap(), accessTokenScopes: ['user:all'], refreshTokenScopes: ['user:all', 'read'] }),
    },
    { ref: '§2.4 (user:all kept)', scopes: ['read'], record: { scopes: ['user:all', 'read'] }, expected: err({ code: 'missing_user_all_scope' }) },
  ];
  it.each(rows)('should follow $ref', ({ now, clientId, scopes, record, expected }) => {
    const r = record === null ? null : { ...refreshRecord, ...record };
    expect(
      decideRefreshTokenGrant({ now: now ?? NOW, clientId: clientId ?? 'gai_client', grant: { ...refreshGrant, scopes: scopes ?? null }, record: r }),
    ).toStrictEqual(expected);
  });

  const bools = [false, true] as const;
  const combos = bools.flatMap((sameClient) =>
    bools.flatMap((familyRevoked) => bools.flatMap((used) => bools.map((expired) => ({ sameClient, familyRevoked, used, expired })))),
  );
  it.each(combos)('should decide %o as the table says', ({ sameClient, familyRevoked, used, expired }) => {
    const expected = !sameClient
      ? 'refresh_token_client_mismatch'
      : familyRevoked
        ? 'family_revoked'
        : used
          ? 'revoke_family'
          : expired
            ? 'refresh_token_expired'
            : 'rotate';
    const result = decideRefreshTokenGrant({
      now: expired ? refreshRecord.expiresAt : NOW,
      clientId: sameClient ? 'gai_client' : 'gai_other',
      grant: refreshGrant,
      record: { ...refreshRecord, used, familyRevoked },
    });
    expect(result.match((d) => d.kind as string, (e) => e.code)).toBe(expected);
  });

  test.prop([fc.integer({ min: NOW - 10_000, max: NOW + 10_000 }), fc.integer({ min: 0, max: 20_000 })])(
    'should be monotonic in time: refused at t means refused at every later t',
    (t, dt) => {
      const at = (now: number) => decideRefreshTokenGrant({ now, clientId: 'gai_client', grant: refreshGrant, record: refreshRecord }).isOk();
      if (!at(t)) expect(at(t + dt)).toBe(false);
    },
  );

  test.prop([fc.anything(), fc.anything()])('should never throw', (record, grant) => {
    expect(() => decideRefreshTokenGrant({ now: NOW, clientId: 'gai_client', grant, record } as never)).not.toThrow();
    expect(() => decideRefreshTokenGrant(record as never)).not.toThrow();
  });

  // --- Model-based test of a refresh-token family (RFC 9700 §4.14.2) ---------------------------
  // System: the module's decisions applied to a tiny in-memory store by the simplest possible
  // effects (mark used, insert successor, mark family revoked). Model: per family, the list of
  // refresh tokens handed out and a dead flag; only the newest token of a live family works, any
  // older one kills the family; access tokens work exactly while their family lives.
  interface Store {
    codes: Map<string, AuthorizationCodeRecord>;
    refresh: Map<string, Omit<RefreshTokenRecord, 'familyRevoked'>>;
    access: Map<string, Omit<OAuthAccessTokenRecord, 'familyRevoked'>>;
    revoked: Set<string>;
    counter: number;
  }
  interface Model {
    families: { code: string; refresh: string[]; access: string[]; dead: boolean }[];
  }
  interface Real {
    store: Store;
  }
  const issue = (s: Store, familyId: string) => {
    s.counter++;
    const r = `r${s.counter}`;
    const a = `a${s.counter}`;
    s.refresh.set(r, { tokenHash: r, familyId, clientId: 'gai_client', userId: 'u1', scopes: ['user:all'], expiresAt: NOW + 1000, used: false });
    s.access.set(a, { tokenHash: a, familyId, clientId: 'gai_client', userId: 'u1', scopes: ['user:all'], expiresAt: NOW + 1000 });
    return { r, a };
  };
  const redeem = (s: Store, code: string): { r: string; a: string } | null => {
    const record = s.codes.get(code) ?? null;
    const d = decideAuthorizationCodeGrant({ now: NOW, clientId: 'gai_client', grant: { ...codeGrant, code }, record, sha256 });
    if (d.isErr()) return null;
    if (d.value.kind === 'revoke_family') {
      s.revoked.add(d.value.familyId);
      return null;
    }
    if (record !== null) s.codes.set(code, { ...record, used: true });
    return issue(s, d.value.familyId);
  };
  const refresh = (s: Store, token: string): { r: string; a: string } | null => {
    const row = s.refresh.get(token);
    const record = row === undefined ? null : { ...row, familyRevoked: s.revoked.has(row.familyId) };
    const d = decideRefreshTokenGrant({ now: NOW, clientId: 'gai_client', grant: { ...refreshGrant, refreshToken: token }, record });
    if (d.isErr()) return null;
    if (d.value.kind === 'revoke_family') {
      s.revoked.add(d.value.familyId);
      return null;
    }
    if (row !== undefined) s.refresh.set(token, { ...row, used: true });
    return issue(s, d.value.familyId);
  };
  const accessWorks = (s: Store, token: string): boolean => {
    const row = s.access.get(token);
    const record = row === undefined ? null : { ...row, familyRevoked: s.revoked.has(row.familyId) };
    return decideOAuthAccessTokenUse({ now: NOW, record })._unsafeUnwrap().kind === 'allow';
  };

  class StartFamily implements fc.Command<Model, Real> {
    check = (): boolean => true;
    run(m: Model, r: Real): void {
      const code = `c${m.families.length}`;
      r.store.codes.set(code, { ...codeRecord, codeHash: code, familyId: `f${m.families.length}` });
      const got = redeem(r.store, code);
      expect(got).not.toBeNull();
      if (got !== null) m.families.push({ code, refresh: [got.r], access: [got.a], dead: false });
    }
    toString = (): string => 'StartFamily';
  }
  class Refresh implements fc.Command<Model, Real> {
    readonly family: number;
    readonly token: number;
    constructor(family: number, token: number) {
      this.family = family;
      this.token = token;
    }
    check = (m: Readonly<Model>): boolean => m.families.length > 0;
    run(m: Model, r: Real): void {
      const f = m.families[this.family % m.families.length];
      if (f === undefined) return;
      const i = this.token < 0 ? f.refresh.length - 1 : this.token % f.refresh.length;
      const presented = f.refresh[i] ?? '';
      const newest = i === f.refresh.length - 1;
      const got = refresh(r.store, presented);
      if (!f.dead && newest) {
        expect(got).not.toBeNull();
        if (got !== null) {
          f.refresh.push(got.r);
          f.access.push(got.a);
        }
      } else {
        expect(got).toBeNull();
        f.dead = true;
      }
    }
    toString = (): string => `Refresh(${this.family}, ${this.token})`;
  }
  class ReplayCode implements fc.Command<Model, Real> {
    readonly family: number;
    constructor(family: number) {
      this.family = family;
    }
    check = (m: Readonly<Model>): boolean => m.families.length > 0;
    run(m: Model, r: Real): void {
      const f = m.families[this.family % m.families.length];
      if (f === undefined) return;
      expect(redeem(r.store, f.code)).toBeNull();
      f.dead = true;
    }
    toString = (): string => `ReplayCode(${this.family})`;
  }
  class PresentUnknown implements fc.Command<Model, Real> {
    readonly token: string;
    constructor(token: string) {
      this.token = token;
    }
    check = (): boolean => true;
    run(_m: Model, r: Real): void {
      expect(refresh(r.store, `unknown-${this.token}`)).toBeNull();
    }
    toString = (): string => `PresentUnknown(${JSON.stringify(this.token)})`;
  }
  class UseAccess implements fc.Command<Model, Real> {
    readonly family: number;
    readonly token: number;
    constructor(family: number, token: number) {
      this.family = family;
      this.token = token;
    }
    check = (m: Readonly<Model>): boolean => m.families.length > 0;
    run(m: Model, r: Real): void {
      const f = m.families[this.family % m.families.length];
      if (f === undefined) return;
      const token = f.access[this.token % f.access.length] ?? '';
      expect(accessWorks(r.store, token)).toBe(!f.dead);
    }
    toString = (): string => `UseAccess(${this.family}, ${this.token})`;
  }

  it('should rotate on every use and revoke the whole family on any replay (model-based)', () => {
    const commands = [
      fc.constant(new StartFamily()),
      fc.tuple(fc.nat({ max: 4 }), fc.nat({ max: 4 })).map(([f, t]) => new Refresh(f, t)),
      fc.nat({ max: 4 }).map((f) => new Refresh(f, -1)), // the newest token
      fc.nat({ max: 4 }).map((f) => new Refresh(f, -1)),
      fc.nat({ max: 4 }).map((f) => new ReplayCode(f)),
      fc.string().map((t) => new PresentUnknown(t)),
      fc.tuple(fc.nat({ max: 4 }), fc.nat({ max: 4 })).map(([f, t]) => new UseAccess(f, t)),
    ];
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 60, size: '+1' }), (cmds) => {
        const setup = () => ({
          model: { families: [] } as Model,
          real: { store: { codes: new Map(), refresh: new Map(), access: new Map(), revoked: new Set<string>(), counter: 0 } },
        });
        fc.modelRun(setup, cmds);
      }),
      { numRuns: 200 },
    );
  });
});

// -----------------------------------------------------------------------------------------------

describe('stored records the grant decisions read (malformed records are refused, never trusted)', () => {
  const without = <T extends object>(record: T, key: keyof T): Partial<T> => {
    const copy: Partial<T> = { ...record };
    delete copy[key];
    return copy;
  };
  const codeKeys = Object.keys(codeRecord) as (keyof AuthorizationCodeRecord)[];
  const refreshKeys = Object.keys(refreshRecord) as (keyof RefreshTokenRecord)[];

  it.each(codeKeys)('should refuse a code record without %s as invalid_input', (key) => {
    const decide = (record: unknown) => decideAuthorizationCodeGrant({ now: NOW, clientId: 'gai_client', grant: codeGrant, record: record as never, sha256 });
    expect(decide(without(codeRecord, key))).toStrictEqual(err({ code: 'invalid_input', field: 'record' }));
    expect(decide({ ...codeRecord, [key]: Symbol('wrong type') })).toStrictEqual(err({ code: 'invalid_input', field: 'record' }));
  });

  it.each(refreshKeys)('should refuse a refresh token record without %s as invalid_input', (key) => {
    const decide = (record: unknown) => decideRefreshTokenGrant({ now: NOW, clientId: 'gai_client', grant: refreshGrant, record: record as never });
    expect(decide(without(refreshRecord, key))).toStrictEqual(err({ code: 'invalid_input', field: 'record' }));
    expect(decide({ ...refreshRecord, [key]: Symbol('wrong type') })).toStrictEqual(err({ code: 'invalid_input', field: 'record' }));
  });
});
