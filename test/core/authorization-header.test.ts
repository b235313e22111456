import { test } from '@fast-check/vitest';
import fc from 'fast-check';
import { err, ok, type Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import {
  type AuthorizationHeaderError,
  type Credentials,
  type CredentialsScheme,
  CREDENTIALS_SCHEMES,
  formatAuthorizationHeader,
  INVALID_AUTHORIZATION_HEADER_AUDIT,
  MAX_AUTHORIZATION_HEADER_LENGTH,
  parseAuthorizationHeader,
  validateCredentials,
} from '../../src/core/authorization-header.js';
import {
  commonHeaderishArb,
  headerishArb,
  owsArb,
  quotableArb,
  randomCasing,
  sudoHeaderishArb,
  token68Arb,
  tokenArb,
  validCredentialsArb,
  writtenValueArb,
} from '../arbitraries/authorization-header.js';

type Parsed = Result<Credentials | null, AuthorizationHeaderError>;

const AUDIT = { entity: 'auth.accessToken', action: 'failed', reason: 'invalid Authorization header' } as const;
// The scheme an unsupported_scheme error carries is lowercased by the parser: a documented narrowing.
const unsupported = (scheme: string): Parsed => err({ code: 'unsupported_scheme', scheme: scheme as Lowercase<string>, audit: AUDIT });
const malformed = (reason: string): Parsed =>
  err({ code: 'malformed_header', reason } as AuthorizationHeaderError);
const bad = (scheme: CredentialsScheme, reason: string): Parsed =>
  err({ code: 'malformed_header', scheme, reason } as AuthorizationHeaderError);
const param = (scheme: 'token' | 'token-sudo', reason: 'missing_parameter' | 'duplicate_parameter', parameter: 'user' | 'token'): Parsed =>
  err({ code: 'malformed_header', scheme, reason, parameter });
const token = (t: string): Parsed => ok({ scheme: 'token', token: t });
const bearer = (t: string): Parsed => ok({ scheme: 'bearer', token: t });
const sudo = (user: string, t: string): Parsed => ok({ scheme: 'token-sudo', token: t, user });

// ------------------------------------------------------------------------------------------------
// An independent oracle: RFC 9110 §11 transcribed into regular expressions (fine for the short
// generated inputs of the properties; the implementation under test uses none).

const TOKEN = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
const QSTRING = '"(?:[\\t \\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t \\x21-\\x7e\\x80-\\xff])*"';
const PARAM = `(${TOKEN})[ \\t]*=[ \\t]*(${TOKEN}|${QSTRING})`;
const PARAM_LIST = new RegExp(`^(?:${PARAM})?(?:[ \\t]*,[ \\t]*(?:${PARAM})?)*$`);
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

type Verdict =
  | { readonly kind: 'ok'; readonly value: Credentials | null }
  | { readonly kind: 'unsupported'; readonly scheme: string }
  | { readonly kind: 'malformed' };

function oracle(header: string): Verdict {
  const malformedVerdict: Verdict = { kind: 'malformed' };
  if (header.length > MAX_AUTHORIZATION_HEADER_LENGTH) return malformedVerdict;
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(header) || /[^\x00-\xff]/.test(header)) return malformedVerdict;
  const trimmed = header.replace(/^[ \t]+/, '').replace(/[ \t]+$/, '');
  if (trimmed === '') return { kind: 'ok', value: null };
  const m = new RegExp(`^(${TOKEN})(?: +([^]*))?$`).exec(trimmed);
  if (m === null) return malformedVerdict;
  const scheme = (m[1] ?? '').toLowerCase();
  const rest = m[2];
  if (scheme !== 'token' && scheme !== 'bearer' && scheme !== 'token-sudo') return { kind: 'unsupported', scheme };
  if (rest === undefined) return malformedVerdict;
  if (TOKEN68.test(rest)) {
    if (scheme === 'token') return { kind: 'ok', value: { scheme, token: rest } };
    if (scheme === 'bearer') return { kind: 'ok', value: { scheme, token: rest } };
    return malformedVerdict;
  }
  if (scheme === 'bearer' || !PARAM_LIST.test(rest)) return malformedVerdict;
  const params = new Map<string, string>();
  for (const pm of rest.matchAll(new RegExp(PARAM, 'g'))) {
    const name = (pm[1] ?? '').toLowerCase();
    const raw = pm[2] ?? '';
    const value = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\([^])/g, '$1') : raw;
    if (params.has(name) || value === '') return malformedVerdict;
    params.set(name, value);
  }
  const allowed = scheme === 'token' ? ['token'] : ['token', 'user'];
  if ([...params.keys()].some((n) => !allowed.includes(n)) || params.size !== allowed.length) return malformedVerdict;
  const t = params.get('token') ?? '';
  return scheme === 'token'
    ? { kind: 'ok', value: { scheme, token: t } }
    : { kind: 'ok', value: { scheme, token: t, user: params.get('user') ?? '' } };
}

function expectAgreesWithOracle(header: string): void {
  const verdict = oracle(header);
  const actual = parseAuthorizationHeader(header);
  if (verdict.kind === 'ok') expect(actual).toStrictEqual(ok(verdict.value));
  else if (verdict.kind === 'unsupported') expect(actual).toStrictEqual(unsupported(verdict.scheme));
  else expect(actual.isErr() && actual.error.code).toBe('malformed_header');
}

/** ASCII-only random casing of the first word (the scheme) of a header. */
function recaseScheme(header: string, upper: readonly boolean[]): string {
  const space = header.indexOf(' ');
  const cut = space === -1 ? header.length : space;
  const scheme = [...header.slice(0, cut)]
    .map((ch, i) => (/[A-Za-z]/.test(ch) ? (upper[i % Math.max(upper.length, 1)] === true ? ch.toUpperCase() : ch.toLowerCase()) : ch))
    .join('');
  return scheme + header.slice(cut);
}

/** A string of exactly `length` characters: `prefix` followed by `unit` repeated and cut. */
function fill(prefix: string, unit: string, length: number): string {
  return (prefix + unit.repeat(Math.ceil(length / unit.length))).slice(0, length);
}

// ------------------------------------------------------------------------------------------------

describe('parseAuthorizationHeader', () => {
  interface Row {
    readonly ref: string;
    readonly input: string | readonly string[] | undefined | null;
    readonly expected: Parsed;
  }
  const rows: readonly Row[] = [
    // §5.1: the three schemes
    { ref: '§5.1 token', input: 'token sgp_0123456789abcdef', expected: token('sgp_0123456789abcdef') },
    { ref: '§5.1 token, RFC 9110 §11.2 token68 padding', input: 'token abc==', expected: token('abc==') },
    { ref: '§5.1 token, RFC 9110 §11.2 token68 characters', input: 'token a-b.c_d~e+f/g', expected: token('a-b.c_d~e+f/g') },
    { ref: '§5.1 token as a parameter', input: 'token token="abc"', expected: token('abc') },
    { ref: '§5.1 token parameter as a token', input: 'token token=abc', expected: token('abc') },
    { ref: 'RFC 9110 §5.6.4 quoted-pair unescaped', input: 'token token="a\\"b\\\\c\\d"', expected: token('a"b\\cd') },
    { ref: 'RFC 9110 §5.6.4 qdtext holds SP, HTAB, comma, obs-text', input: 'token token="a b\t,é"', expected: token('a b\t,é') },
    { ref: 'RFC 9110 §11.4 token68 wins when it spans the rest', input: 'token token=', expected: token('token=') },
    { ref: '§5.1 Bearer', input: 'Bearer ya29.a0AfB_byC', expected: bearer('ya29.a0AfB_byC') },
    { ref: '§5.1 token-sudo', input: 'token-sudo user="alice",token="sgp_abc"', expected: sudo('alice', 'sgp_abc') },
    { ref: '§5.1 token-sudo, either order', input: 'token-sudo token="sgp_abc",user="alice"', expected: sudo('alice', 'sgp_abc') },
    { ref: '§5.1 token-sudo, token values (RFC 9110 §11.4)', input: 'token-sudo user=alice,token=sgp_abc', expected: sudo('alice', 'sgp_abc') },
    { ref: 'RFC 9110 §11.4 BWS around =, OWS around ,', input: 'token-sudo user \t= "alice" \t,\t token= "t"', expected: sudo('alice', 't') },
    { ref: 'RFC 9110 §11.4 parameter names are case-insensitive', input: 'token-sudo USER="alice",Token="t"', expected: sudo('alice', 't') },
    { ref: 'RFC 9110 §5.6.1.2 empty list elements are ignored', input: 'token-sudo ,, user="a" ,, token="t",', expected: sudo('a', 't') },
    { ref: 'RFC 9110 §5.6.1.2 a list may start with OWS ","', input: 'token-sudo \t, user="a",token="t"', expected: sudo('a', 't') },
    { ref: 'RFC 9110 §5.6.4 quoted-string in token-sudo', input: 'token-sudo user="a\\"l,ice",token="t t"', expected: sudo('a"l,ice', 't t') },
    { ref: '§5.1 user is not normalized here', input: 'token-sudo user="Alice@Example",token=t', expected: sudo('Alice@Example', 't') },
    // RFC 9110 §11.1: the scheme is case-insensitive
    { ref: 'RFC 9110 §11.1 scheme case-insensitive', input: 'TOKEN abc', expected: token('abc') },
    { ref: 'RFC 9110 §11.1 scheme case-insensitive', input: 'bearer abc', expected: bearer('abc') },
    { ref: 'RFC 9110 §11.1 scheme case-insensitive', input: 'BEARER abc', expected: bearer('abc') },
    { ref: 'RFC 9110 §11.1 scheme case-insensitive', input: 'Token-Sudo user=a,token=t', expected: sudo('a', 't') },
    { ref: 'RFC 9110 §11.4 1*SP after the scheme', input: 'token    abc', expected: token('abc') },
    { ref: 'RFC 9110 §5.5 surrounding whitespace is not part of the value', input: ' \t token abc \t ', expected: token('abc') },
    // absent header: anonymous
    { ref: 'absent header', input: undefined, expected: ok(null) },
    { ref: 'absent header', input: null, expected: ok(null) },
    { ref: 'empty header', input: '', expected: ok(null) },
    { ref: 'blank header', input: ' \t  ', expected: ok(null) },
    { ref: 'no header values', input: [], expected: ok(null) },
    { ref: 'one header value', input: ['token abc'], expected: token('abc') },
    { ref: 'more than one header value', input: ['token abc', 'token abc'], expected: malformed('multiple_values') },
    { ref: 'more than one header value', input: ['', ''], expected: malformed('multiple_values') },
    // §5.1 rule 4, §6 rule 1, §7 rule 1: other schemes are unsupported and audited
    { ref: '§5.1 rule 4', input: 'Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==', expected: unsupported('basic') },
    { ref: '§5.1 rule 4, §5.1 rule 5 proxy Basic auth', input: 'basic Zm9vOmJhcg==', expected: unsupported('basic') },
    { ref: '§6 rule 1', input: 'Digest username="a", realm="r", nonce="n"', expected: unsupported('digest') },
    { ref: '§7 rule 1', input: 'Negotiate YIIB', expected: unsupported('negotiate') },
    { ref: '§7 rule 1 a scheme alone', input: 'Negotiate', expected: unsupported('negotiate') },
    { ref: '§7 rule 1 any token is a scheme', input: "X-Custom!#$%&'*+.^_`|~ whatever \"unterminated", expected: unsupported("x-custom!#$%&'*+.^_`|~") },
    { ref: '§7 rule 1 near-miss scheme', input: 'tokens abc', expected: unsupported('tokens') },
    { ref: '§7 rule 1 near-miss scheme', input: 'token_sudo user=a,token=t', expected: unsupported('token_sudo') },
    // header-level malformations: whatever the scheme
    { ref: 'over 8192 characters', input: fill('token ', 'a', MAX_AUTHORIZATION_HEADER_LENGTH + 1), expected: malformed('too_long') },
    { ref: '8192 characters are fine', input: fill('token ', 'a', MAX_AUTHORIZATION_HEADER_LENGTH), expected: token('a'.repeat(MAX_AUTHORIZATION_HEADER_LENGTH - 6)) },
    { ref: 'too long, even blank', input: ' '.repeat(MAX_AUTHORIZATION_HEADER_LENGTH + 1), expected: malformed('too_long') },
    { ref: 'too long, even unsupported', input: fill('Basic ', 'a', MAX_AUTHORIZATION_HEADER_LENGTH + 1), expected: malformed('too_long') },
    { ref: 'CR/LF (RFC 9110 §5.5)', input: 'token abc\r\nX-Injected: 1', expected: malformed('control_character') },
    { ref: 'NUL', input: 'token ab\u0000c', expected: malformed('control_character') },
    { ref: 'DEL', input: 'token abc\u007f', expected: malformed('control_character') },
    { ref: 'control character in a quoted-string', input: 'token token="a\u0001b"', expected: malformed('control_character') },
    { ref: 'control character under another scheme', input: 'Basic a\nb', expected: malformed('control_character') },
    { ref: 'control character only', input: '\r\n', expected: malformed('control_character') },
    { ref: 'RFC 9110 §5.5 nothing above U+00FF', input: 'token token="日本"', expected: malformed('invalid_character') },
    { ref: 'RFC 9110 §5.5 nothing above U+00FF', input: 'Basic 😀', expected: malformed('invalid_character') },
    { ref: 'RFC 9110 §5.5 control character reported before wide character', input: '日\n', expected: malformed('control_character') },
    { ref: 'first word not a token', input: '"token" abc', expected: malformed('invalid_scheme') },
    { ref: 'first word not a token', input: 'tok@en abc', expected: malformed('invalid_scheme') },
    { ref: 'RFC 9110 §11.4 scheme is followed by SP, not HTAB', input: 'token\tabc', expected: malformed('invalid_scheme') },
    { ref: 'RFC 9110 §11.4 scheme is followed by SP', input: 'token="abc"', expected: malformed('invalid_scheme') },
    { ref: 'first word not a token', input: '=abc', expected: malformed('invalid_scheme') },
    { ref: 'first word not a token (obs-text)', input: 'tökén abc', expected: malformed('invalid_scheme') },
    // a scheme and nothing after it
    { ref: 'empty token', input: 'token', expected: bad('token', 'empty_token') },
    { ref: 'empty token', input: 'Bearer ', expected: bad('bearer', 'empty_token') },
    { ref: 'empty token', input: 'token-sudo   ', expected: bad('token-sudo', 'empty_token') },
    { ref: 'empty token parameter', input: 'token token=""', expected: bad('token', 'empty_token') },
    { ref: 'empty token parameter', input: 'token token= ,', expected: bad('token', 'empty_token') },
    { ref: 'empty token parameter', input: 'token-sudo user="a",token=""', expected: bad('token-sudo', 'empty_token') },
    { ref: 'empty user parameter', input: 'token-sudo user="",token="t"', expected: bad('token-sudo', 'empty_user') },
    { ref: 'empty user parameter', input: 'token-sudo user=,token="t"', expected: bad('token-sudo', 'empty_user') },
    // unterminated quote
    { ref: 'unterminated quote', input: 'token token="abc', expected: bad('token', 'unterminated_quote') },
    { ref: 'unterminated quote (escaped closing quote)', input: 'token token="abc\\"', expected: bad('token', 'unterminated_quote') },
    { ref: 'unterminated quote (trailing backslash)', input: 'token-sudo user="a",token="t\\', expected: bad('token-sudo', 'unterminated_quote') },
    // duplicate, unknown, missing parameters
    { ref: 'duplicate parameter', input: 'token token=a,token=a', expected: param('token', 'duplicate_parameter', 'token') },
    { ref: 'duplicate parameter (case-insensitive names)', input: 'token-sudo user=a,USER=a,token=t', expected: param('token-sudo', 'duplicate_parameter', 'user') },
    { ref: 'duplicate parameter', input: 'token-sudo token=t,user=a,Token=t', expected: param('token-sudo', 'duplicate_parameter', 'token') },
    { ref: 'only token-sudo may name a user', input: 'token token="t",user="bob"', expected: bad('token', 'unknown_parameter') },
    { ref: 'only token-sudo may name a user', input: 'token user="bob"', expected: bad('token', 'unknown_parameter') },
    { ref: 'unknown parameter', input: 'token-sudo user=a,token=t,realm=x', expected: bad('token-sudo', 'unknown_parameter') },
    { ref: 'unknown parameter (token68-looking name)', input: 'token abc = x', expected: bad('token', 'unknown_parameter') },
    { ref: 'missing parameter', input: 'token-sudo token="t"', expected: param('token-sudo', 'missing_parameter', 'user') },
    { ref: 'missing parameter', input: 'token-sudo user="a"', expected: param('token-sudo', 'missing_parameter', 'token') },
    { ref: 'missing parameter (empty list)', input: 'token ,', expected: param('token', 'missing_parameter', 'token') },
    { ref: 'missing parameter (empty list)', input: 'token-sudo , ,', expected: param('token-sudo', 'missing_parameter', 'user') },
    // trailing garbage and other syntax errors
    { ref: 'trailing garbage after token68', input: 'token abc def', expected: bad('token', 'trailing_garbage') },
    { ref: 'trailing garbage after token68', input: 'Bearer abc,def', expected: bad('bearer', 'trailing_garbage') },
    { ref: 'trailing garbage after token68', input: 'Bearer abc, Bearer def', expected: bad('bearer', 'trailing_garbage') },
    { ref: 'trailing garbage after token68 padding', input: 'token abc==x', expected: bad('token', 'trailing_garbage') },
    { ref: 'trailing garbage after token68', input: 'token abc"def"', expected: bad('token', 'trailing_garbage') },
    { ref: 'trailing garbage after a quoted value', input: 'token-sudo user="a"x,token=t', expected: bad('token-sudo', 'trailing_garbage') },
    { ref: 'RFC 9110 §11.4 parameters need a comma between them', input: 'token-sudo user="a" token="t"', expected: bad('token-sudo', 'trailing_garbage') },
    { ref: 'RFC 9110 §11.2 not a token68', input: 'token a!b', expected: bad('token', 'unexpected_character') },
    { ref: 'RFC 9110 §11.4 nothing but token68 or auth-param', input: 'token "abc"', expected: bad('token', 'unexpected_character') },
    { ref: 'RFC 9110 §11.4 a list starts with a name or ","', input: 'token \tabc', expected: bad('token', 'unexpected_character') },
    { ref: 'RFC 9110 §11.4 a parameter needs a name', input: 'token-sudo user=a,=t', expected: bad('token-sudo', 'unexpected_character') },
    { ref: 'RFC 9110 §11.4 a name needs "="', input: 'token-sudo user=a,token', expected: bad('token-sudo', 'unexpected_character') },
    { ref: 'RFC 9110 §11.4 a value is a token or quoted-string', input: 'token-sudo user=@a,token=t', expected: bad('token-sudo', 'unexpected_character') },
    { ref: 'RFC 9110 §11.4 a parameter name is a token', input: 'token a/b=c', expected: bad('token', 'unexpected_character') },
    { ref: 'RFC 6750 §2.1 Bearer takes a token68 only', input: 'Bearer token="abc"', expected: bad('bearer', 'token68_required') },
    { ref: 'RFC 6750 §2.1 Bearer takes a token68 only', input: 'Bearer , ', expected: bad('bearer', 'token68_required') },
    { ref: '§5.1 token-sudo takes parameters', input: 'token-sudo abc', expected: bad('token-sudo', 'parameters_required') },
    { ref: 'first problem from left to right', input: 'token-sudo foo=1,user="unterminated', expected: bad('token-sudo', 'unknown_parameter') },
    { ref: 'first problem from left to right', input: 'token-sudo user="a",user="unterminated', expected: bad('token-sudo', 'unterminated_quote') },
  ];

  it.each(rows)('should follow $ref for $input', ({ input, expected }) => {
    // Act
    const actual = parseAuthorizationHeader(input);
    // Assert
    expect(actual).toStrictEqual(expected);
  });

  it('should carry the audit entry of §6 rule 1 on every unsupported scheme', () => {
    expect(INVALID_AUTHORIZATION_HEADER_AUDIT).toStrictEqual(AUDIT);
    expect(Object.isFrozen(INVALID_AUTHORIZATION_HEADER_AUDIT)).toBe(true);
  });

  it('should reject a run-time type error without throwing', () => {
    const inputs: readonly unknown[] = [0, true, {}, { length: 1, 0: 'token a' }, [1], [undefined], [['token a']], Symbol('x'), () => 'token a'];
    for (const input of inputs) {
      expect(parseAuthorizationHeader(input as string)).toStrictEqual(malformed('invalid_type'));
    }
  });

  // The whole decision table of scheme × shape of what follows it, written out row by row.
  describe('the fast paths (token, Bearer, token-sudo) and their edges (same results whichever path reads the header)', () => {
    const edges: readonly Row[] = [
      { ref: 'RFC 9110 §11.1 scheme case-insensitive', input: 'tOkEn abc', expected: token('abc') },
      { ref: 'RFC 9110 §11.2 every token68 character, padding', input: 'bEaReR a-b.c_d~e+f/g==', expected: bearer('a-b.c_d~e+f/g==') },
      { ref: 'RFC 9110 §5.5 trailing whitespace is not part of the value', input: 'token   abc \t', expected: token('abc') },
      { ref: 'RFC 9110 §5.5 trailing HTAB', input: 'Bearer abc\t', expected: bearer('abc') },
      { ref: 'RFC 9110 §5.5 leading SP', input: ' Bearer abc', expected: bearer('abc') },
      { ref: 'RFC 9110 §5.5 leading HTAB', input: '\ttoken abc', expected: token('abc') },
      { ref: 'RFC 9110 §11.4 scheme is followed by SP, not HTAB', input: 'Bearer\tabc', expected: malformed('invalid_scheme') },
      { ref: 'RFC 9110 §11.4 SP then HTAB before the token68', input: 'Bearer  \tabc', expected: bad('bearer', 'unexpected_character') },
      { ref: 'RFC 9110 §11.4 one "=" inside is a parameter', input: 'token abc=def', expected: bad('token', 'unknown_parameter') },
      { ref: 'RFC 6750 §2.1 one "=" inside is a parameter', input: 'Bearer abc=def', expected: bad('bearer', 'token68_required') },
      { ref: 'RFC 6750 §2.1 BWS "=" is a parameter', input: 'Bearer abc = x', expected: bad('bearer', 'token68_required') },
      { ref: 'RFC 9110 §11.2 a tchar that is no token68 character', input: 'Bearer abc!', expected: bad('bearer', 'unexpected_character') },
      { ref: 'RFC 9110 §11.2 padding only at the end', input: 'Bearer abc==x', expected: bad('bearer', 'trailing_garbage') },
      { ref: 'RFC 9110 §11.2 padding without a body', input: 'Bearer ==', expected: bad('bearer', 'unexpected_character') },
      { ref: 'trailing garbage after token68', input: 'Bearer abc d', expected: bad('bearer', 'trailing_garbage') },
      { ref: 'trailing garbage after token68 (obs-text)', input: 'Bearer abcé', expected: bad('bearer', 'trailing_garbage') },
      { ref: 'trailing garbage after token68 (comma)', input: 'Bearer abc,', expected: bad('bearer', 'trailing_garbage') },
      { ref: 'trailing garbage after token68 (backslash)', input: 'Bearer abc\\', expected: bad('bearer', 'trailing_garbage') },
      { ref: 'RFC 9110 §5.5 nothing above U+00FF', input: 'Bearer abc日', expected: malformed('invalid_character') },
      { ref: 'CR/LF', input: 'Bearer abc\r', expected: malformed('control_character') },
      { ref: 'empty token', input: 'Bearer   ', expected: bad('bearer', 'empty_token') },
      { ref: '§7 rule 1 near-miss scheme', input: 'bearerx abc', expected: unsupported('bearerx') },
      { ref: '§7 rule 1 near-miss scheme', input: 'beare abc', expected: unsupported('beare') },
      { ref: 'RFC 9110 §11.4 token68 wins when it spans the rest', input: 'token a=', expected: token('a=') },
      { ref: '§5.1 token-sudo as formatAuthorizationHeader writes it', input: 'token-sudo user="alice",token="sgp_abc"', expected: sudo('alice', 'sgp_abc') },
      { ref: 'RFC 9110 §11.1 scheme case-insensitive, §11.4 parameter names too', input: 'Token-SUDO USER="alice",tOkEn="t"', expected: sudo('alice', 't') },
      { ref: 'RFC 9110 §5.5 trailing whitespace is not part of the value', input: 'token-sudo user="a",token="t" \t', expected: sudo('a', 't') },
      { ref: 'RFC 9110 §5.6.4 a user with SP and punctuation', input: 'token-sudo user="a b,c=d",token="t"', expected: sudo('a b,c=d', 't') },
      { ref: 'RFC 9110 §5.6.4 a quoted-pair in the user', input: 'token-sudo user="a\\"b",token="t"', expected: sudo('a"b', 't') },
      { ref: 'RFC 9110 §5.6.4 obs-text in the user', input: 'token-sudo user="é",token="t"', expected: sudo('é', 't') },
      { ref: 'RFC 9110 §11.2 token68 padding inside the quotes', input: 'token-sudo user="a",token="t=="', expected: sudo('a', 't==') },
      { ref: 'RFC 9110 §5.6.4 a token that is no token68', input: 'token-sudo user="a",token="t!u"', expected: sudo('a', 't!u') },
      { ref: 'RFC 9110 §11.4 a token value, unquoted', input: 'token-sudo user="a",token=t', expected: sudo('a', 't') },
      { ref: 'RFC 9110 §11.4 OWS after the comma', input: 'token-sudo user="a", token="t"', expected: sudo('a', 't') },
      { ref: '§5.1 an empty user', input: 'token-sudo user="",token="t"', expected: bad('token-sudo', 'empty_user') },
      { ref: '§5.1 an empty token', input: 'token-sudo user="a",token=""', expected: bad('token-sudo', 'empty_token') },
      { ref: 'RFC 9110 §5.6.4 an unterminated token quote', input: 'token-sudo user="a",token="t', expected: bad('token-sudo', 'unterminated_quote') },
      { ref: 'RFC 9110 §5.6.4 an unterminated user quote', input: 'token-sudo user="a', expected: bad('token-sudo', 'unterminated_quote') },
      { ref: 'trailing garbage after the token', input: 'token-sudo user="a",token="t"x', expected: bad('token-sudo', 'trailing_garbage') },
      { ref: 'a third parameter', input: 'token-sudo user="a",token="t",realm="r"', expected: bad('token-sudo', 'unknown_parameter') },
      { ref: 'CR/LF in the user', input: 'token-sudo user="a\r",token="t"', expected: malformed('control_character') },
      { ref: 'RFC 9110 §5.5 nothing above U+00FF', input: 'token-sudo user="日",token="t"', expected: malformed('invalid_character') },
      { ref: '§7 rule 1 near-miss scheme', input: 'token-sudos user="a",token="t"', expected: unsupported('token-sudos') },
    ];

    it.each(edges)('should follow $ref for $input', ({ input, expected }) => {
      expect(parseAuthorizationHeader(input)).toStrictEqual(expected);
    });

    // many runs: a header the two paths could read differently needs every other piece of it to be valid
    test.prop([fc.oneof(commonHeaderishArb, sudoHeaderishArb, headerishArb), fc.constantFrom(' ', '\t', ' \t')], { numRuns: 5000 })(
      'should read a header as the general tokenizer does (a leading SP/HTAB forces the general path, RFC 9110 §5.5)',
      (header, lead) => {
        // Only headers that start with the scheme take the fast path; leading whitespace is not part of the
        // value, so the second parse is the general tokenizer's answer for the same header.
        expect(parseAuthorizationHeader(header)).toStrictEqual(parseAuthorizationHeader(lead + header));
      },
    );

    test.prop([commonHeaderishArb])('should agree with the RFC 9110 §11 oracle around token <token68> and Bearer <token68>', (header) => {
      expectAgreesWithOracle(header);
    });

    test.prop([sudoHeaderishArb], { numRuns: 1000 })('should agree with the RFC 9110 §11 oracle around token-sudo user="<user>",token="<token68>"', (header) => {
      expectAgreesWithOracle(header);
    });

    test.prop([fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1 }), token68Arb])(
      'should read back every user of visible ASCII that formatAuthorizationHeader writes (§5.1)',
      (user, t) => {
        expect(parseAuthorizationHeader(formatAuthorizationHeader({ scheme: 'token-sudo', user, token: t }))).toStrictEqual(sudo(user, t));
      },
    );

    test.prop([fc.constantFrom('token', 'bearer'), token68Arb, fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), owsArb])(
      'should read token68 credentials in any scheme casing with trailing whitespace',
      (scheme, t, upper, trailing) => {
        const header = recaseScheme(`${scheme} ${t}${trailing}`, upper);
        expect(parseAuthorizationHeader(header)).toStrictEqual(ok({ scheme, token: t }));
      },
    );
  });

  describe('scheme × credentials shape', () => {
    const shapes = {
      nothing: '',
      token68: ' abc=',
      tokenParam: ' token="t"',
      userAndToken: ' user="u",token="t"',
      userOnly: ' user="u"',
    } as const;
    type Shape = keyof typeof shapes;
    const table: Readonly<Record<CredentialsScheme, Readonly<Record<Shape, Parsed>>>> = {
      token: {
        nothing: bad('token', 'empty_token'),
        token68: token('abc='),
        tokenParam: token('t'),
        userAndToken: bad('token', 'unknown_parameter'),
        userOnly: bad('token', 'unknown_parameter'),
      },
      bearer: {
        nothing: bad('bearer', 'empty_token'),
        token68: bearer('abc='),
        tokenParam: bad('bearer', 'token68_required'),
        userAndToken: bad('bearer', 'token68_required'),
        userOnly: bad('bearer', 'token68_required'),
      },
      'token-sudo': {
        nothing: bad('token-sudo', 'empty_token'),
        token68: bad('token-sudo', 'parameters_required'),
        tokenParam: param('token-sudo', 'missing_parameter', 'user'),
        userAndToken: sudo('u', 't'),
        userOnly: param('token-sudo', 'missing_parameter', 'token'),
      },
    };
    const spelled: Readonly<Record<CredentialsScheme, string>> = { token: 'token', bearer: 'Bearer', 'token-sudo': 'token-sudo' };
    const cells = CREDENTIALS_SCHEMES.flatMap((scheme) =>
      (Object.keys(shapes) as Shape[]).map((shape) => ({ scheme, shape, header: spelled[scheme] + shapes[shape], expected: table[scheme][shape] })),
    );

    it('should have exactly one row per scheme and shape', () => {
      expect(cells).toHaveLength(CREDENTIALS_SCHEMES.length * Object.keys(shapes).length);
      expect(new Set(cells.map((c) => c.header)).size).toBe(cells.length);
    });

    it.each(cells)('should read $header as the table says', ({ header, expected }) => {
      expect(parseAuthorizationHeader(header)).toStrictEqual(expected);
    });
  });

  describe('hostile input (linear time, checked by result, never by clock)', () => {
    const max = MAX_AUTHORIZATION_HEADER_LENGTH;
    const patterns: ReadonlyArray<{ readonly name: string; readonly prefix: string; readonly unit: string; readonly atLimit: Parsed }> = [
      { name: 'escaped quotes in an open quoted-string', prefix: 'token-sudo user="', unit: '\\"', atLimit: bad('token-sudo', 'unterminated_quote') },
      { name: 'backslashes in an open quoted-string', prefix: 'token token="', unit: '\\', atLimit: bad('token', 'unterminated_quote') },
      { name: 'runs of quotes', prefix: 'token ', unit: '"', atLimit: bad('token', 'unexpected_character') },
      { name: 'runs of quotes as a value', prefix: 'token token=', unit: '"', atLimit: bad('token', 'empty_token') },
      { name: 'runs of backslashes', prefix: 'token ', unit: '\\', atLimit: bad('token', 'unexpected_character') },
      { name: 'runs of commas', prefix: 'token-sudo ', unit: ',', atLimit: param('token-sudo', 'missing_parameter', 'user') },
      { name: 'runs of commas and whitespace', prefix: 'token-sudo ', unit: ' ,\t', atLimit: param('token-sudo', 'missing_parameter', 'user') },
      { name: 'a= pairs', prefix: 'token-sudo ', unit: 'a=,', atLimit: bad('token-sudo', 'unknown_parameter') },
      { name: 'a= chains', prefix: 'token ', unit: 'a=', atLimit: bad('token', 'unknown_parameter') },
      { name: 'repeated user parameters', prefix: 'token-sudo ', unit: 'user="a",', atLimit: param('token-sudo', 'duplicate_parameter', 'user') },
      { name: 'token68 padding', prefix: 'Bearer a', unit: '=', atLimit: bearer(`a${'='.repeat(max - 8)}`) },
      { name: 'one long token68', prefix: 'Bearer ', unit: 'a', atLimit: bearer('a'.repeat(max - 7)) },
      { name: 'one long scheme', prefix: '', unit: 'a', atLimit: unsupported('a'.repeat(max)) },
      { name: 'whitespace between scheme and token68', prefix: 'token', unit: ' ', atLimit: bad('token', 'empty_token') },
      { name: 'whitespace only', prefix: '', unit: ' \t', atLimit: ok(null) },
    ];

    it.each(patterns)('should read $name at the 8192-character limit', ({ prefix, unit, atLimit }) => {
      const header = fill(prefix, unit, max);
      expect(header).toHaveLength(max);
      expect(parseAuthorizationHeader(header)).toStrictEqual(atLimit);
    });

    it.each(patterns)('should refuse 1 MiB of $name as too_long', ({ prefix, unit }) => {
      const header = fill(prefix, unit, 1024 * 1024);
      expect(parseAuthorizationHeader(header)).toStrictEqual(malformed('too_long'));
      expect(parseAuthorizationHeader([header])).toStrictEqual(malformed('too_long'));
    });

    it('should read a quoted-string full of quoted-pairs up to the limit', () => {
      const user = '\\'.repeat(4000);
      const header = `token-sudo user="${'\\\\'.repeat(4000)}",token=t`;
      expect(header.length).toBeLessThanOrEqual(max);
      expect(parseAuthorizationHeader(header)).toStrictEqual(sudo(user, 't'));
    });

    it('should read 8192 characters of whitespace before a token68', () => {
      const header = `token${' '.repeat(max - 6)}x`;
      expect(parseAuthorizationHeader(header)).toStrictEqual(token('x'));
    });
  });

  describe('properties', () => {
    test.prop([fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), headerishArb)])(
      'should never throw on any string',
      (header) => {
        const actual = parseAuthorizationHeader(header);
        expect(actual.isOk() || actual.isErr()).toBe(true);
      },
    );

    test.prop([fc.oneof(fc.anything(), fc.array(fc.oneof(fc.string(), headerishArb)), fc.array(fc.anything()))])(
      'should never throw on any value, array or not',
      (value) => {
        const actual = parseAuthorizationHeader(value as string);
        expect(actual.isOk() || actual.isErr()).toBe(true);
      },
    );

    test.prop([headerishArb])('should agree with the RFC 9110 §11 oracle on header-like strings', (header) => {
      expectAgreesWithOracle(header);
    });

    const paramArb = fc.record(
      {
        name: fc.constantFrom('user', 'USER', 'token', 'Token', 'realm'),
        value: fc.oneof(quotableArb, fc.constant('')),
      },
      { noNullPrototype: true },
    );
    const structuredArb = fc
      .tuple(
        fc.constantFrom('token', 'Bearer', 'token-sudo', 'TOKEN-SUDO', 'basic'),
        fc.oneof(
          token68Arb,
          fc
            .array(fc.tuple(paramArb, owsArb, owsArb, owsArb, fc.constantFrom(',', ',,', ', ,')), { maxLength: 4 })
            .chain((params) =>
              fc.tuple(...params.map(([p, a, b, c, comma]) => writtenValueArb(p.value).map((v) => `${p.name}${a}=${b}${v}${c}${comma}`))),
            )
            .map((parts) => parts.join('')),
        ),
      )
      .map(([scheme, rest]) => `${scheme} ${rest}`);

    test.prop([structuredArb])('should agree with the RFC 9110 §11 oracle on structured headers', (header) => {
      expectAgreesWithOracle(header);
    });

    test.prop([validCredentialsArb])('should read back what formatAuthorizationHeader writes (round-trip)', (credentials) => {
      expect(validateCredentials(credentials)).toStrictEqual(ok(credentials));
      expect(parseAuthorizationHeader(formatAuthorizationHeader(credentials))).toStrictEqual(ok(credentials));
    });

    test.prop([validCredentialsArb, fc.array(fc.boolean(), { minLength: 1, maxLength: 10 })])(
      'should read any casing of the scheme alike (RFC 9110 §11.1)',
      (credentials, upper) => {
        const header = formatAuthorizationHeader(credentials);
        expect(parseAuthorizationHeader(recaseScheme(header, upper))).toStrictEqual(ok(credentials));
      },
    );

    test.prop([fc.oneof(headerishArb, structuredArb), fc.array(fc.boolean(), { minLength: 1, maxLength: 10 })])(
      'should give the same result for any ASCII casing of the first word, valid or not',
      (header, upper) => {
        expect(parseAuthorizationHeader(recaseScheme(header, upper))).toStrictEqual(parseAuthorizationHeader(header));
      },
    );

    test.prop([
      fc.constantFrom('token', 'token-sudo'),
      fc.array(fc.tuple(paramArb, owsArb, owsArb, owsArb, owsArb), { minLength: 1, maxLength: 4 }),
    ])('should not care about whitespace around "=" and "," (RFC 9110 §11.4 BWS, §5.6.1.2 OWS)', (scheme, params) => {
      const quoted = (v: string): string => `"${v.replace(/["\\]/g, '\\$&')}"`;
      const tight = `${scheme} ${params.map(([p]) => `${p.name}=${quoted(p.value)}`).join(',')}`;
      const loose = `${scheme} ${params.map(([p, a, b, c, d], i) => `${i === 0 ? '' : d}${p.name}${a}=${b}${quoted(p.value)}${c}`).join(',')}`;
      expect(parseAuthorizationHeader(loose)).toStrictEqual(parseAuthorizationHeader(tight));
    });

    test.prop([quotableArb, quotableArb, fc.boolean(), randomCasing('user'), randomCasing('token'), owsArb])(
      'should read token-sudo parameters in either order',
      (user, t, userFirst, userName, tokenName, ows) => {
        const u = `${userName}="${user.replace(/["\\]/g, '\\$&')}"`;
        const k = `${tokenName}${ows}=${ows}"${t.replace(/["\\]/g, '\\$&')}"`;
        const header = `token-sudo ${userFirst ? `${u},${ows}${k}` : `${k}${ows},${u}`}`;
        expect(parseAuthorizationHeader(header)).toStrictEqual(sudo(user, t));
      },
    );

    test.prop([quotableArb, quotableArb])('should read token-sudo values written as token or quoted-string alike', (user, t) =>
      fc.assert(
        fc.property(writtenValueArb(user), writtenValueArb(t), (u, k) => {
          expect(parseAuthorizationHeader(`token-sudo user=${u},token=${k}`)).toStrictEqual(sudo(user, t));
        }),
        { numRuns: 5 },
      ),
    );

    test.prop([tokenArb.map((t) => `x${t}`), fc.string({ unit: fc.constantFrom('a', '"', '\\', ',', '=', ' ', '\t') })])(
      'should report any other scheme as unsupported with the §6 audit entry (§5.1 rule 4)',
      (scheme, rest) => {
        expect(parseAuthorizationHeader(`${scheme} ${rest}`)).toStrictEqual(unsupported(scheme.toLowerCase()));
      },
    );

    test.prop([fc.oneof(headerishArb, structuredArb)])(
      'should only ever produce credentials that format back to an equivalent header (idempotent canonical form)',
      (header) => {
        const first = parseAuthorizationHeader(header);
        if (first.isErr() || first.value === null) return;
        expect(validateCredentials(first.value)).toStrictEqual(ok(first.value));
        expect(parseAuthorizationHeader(formatAuthorizationHeader(first.value))).toStrictEqual(first);
      },
    );

    test.prop([fc.array(fc.string(), { minLength: 2, maxLength: 5 })])('should refuse two or more values whatever they hold', (values) => {
      expect(parseAuthorizationHeader(values)).toStrictEqual(malformed('multiple_values'));
    });

    test.prop([fc.oneof(fc.string(), headerishArb)])('should read an array of one value as that value', (header) => {
      expect(parseAuthorizationHeader([header])).toStrictEqual(parseAuthorizationHeader(header));
    });
  });
});

describe('validateCredentials', () => {
  const long = 'a'.repeat(MAX_AUTHORIZATION_HEADER_LENGTH);
  const rows: ReadonlyArray<{ readonly ref: string; readonly input: unknown; readonly expected: Result<Credentials, unknown> }> = [
    { ref: '§5.1 token', input: { scheme: 'token', token: 'a b' }, expected: ok({ scheme: 'token', token: 'a b' }) },
    { ref: '§5.1 Bearer', input: { scheme: 'bearer', token: 'abc==' }, expected: ok({ scheme: 'bearer', token: 'abc==' }) },
    { ref: '§5.1 token-sudo', input: { scheme: 'token-sudo', user: 'é"', token: 't' }, expected: ok({ scheme: 'token-sudo', token: 't', user: 'é"' }) },
    { ref: 'only token-sudo names a user: extra fields dropped', input: { scheme: 'token', token: 't', user: 'bob' }, expected: ok({ scheme: 'token', token: 't' }) },
    { ref: 'empty token', input: { scheme: 'token', token: '' }, expected: err({ code: 'invalid_credentials', scheme: 'token', field: 'token', reason: 'empty' }) },
    { ref: 'empty user', input: { scheme: 'token-sudo', user: '', token: 't' }, expected: err({ code: 'invalid_credentials', scheme: 'token-sudo', field: 'user', reason: 'empty' }) },
    { ref: 'CR/LF cannot be sent', input: { scheme: 'token', token: 'a\r\nb' }, expected: err({ code: 'invalid_credentials', scheme: 'token', field: 'token', reason: 'unrepresentable_character' }) },
    { ref: 'RFC 9110 §5.5 DEL cannot be sent', input: { scheme: 'token-sudo', user: 'u', token: '\u007f' }, expected: err({ code: 'invalid_credentials', scheme: 'token-sudo', field: 'token', reason: 'unrepresentable_character' }) },
    { ref: 'RFC 9110 §5.5 nothing above U+00FF', input: { scheme: 'token-sudo', user: '日本', token: 't' }, expected: err({ code: 'invalid_credentials', scheme: 'token-sudo', field: 'user', reason: 'unrepresentable_character' }) },
    { ref: 'RFC 6750 §2.1 Bearer token is a token68', input: { scheme: 'bearer', token: 'a"b' }, expected: err({ code: 'invalid_credentials', scheme: 'bearer', field: 'token', reason: 'not_token68' }) },
    { ref: '8192-character limit', input: { scheme: 'bearer', token: long }, expected: err({ code: 'invalid_credentials', scheme: 'bearer', reason: 'too_long' }) },
    { ref: '8192-character limit', input: { scheme: 'token', token: long.slice(6) }, expected: ok({ scheme: 'token', token: long.slice(6) }) },
    { ref: 'run-time type error', input: { scheme: 'token', token: 5 }, expected: err({ code: 'invalid_credentials', scheme: 'token', field: 'token', reason: 'not_a_string' }) },
    { ref: 'run-time type error', input: { scheme: 'token-sudo', token: 't' }, expected: err({ code: 'invalid_credentials', scheme: 'token-sudo', field: 'user', reason: 'not_a_string' }) },
    { ref: 'run-time type error', input: { scheme: 'Bearer', token: 't' }, expected: err({ code: 'invalid_credentials', reason: 'unknown_scheme' }) },
    { ref: 'run-time type error', input: null, expected: err({ code: 'invalid_credentials', reason: 'not_an_object' }) },
    { ref: 'run-time type error', input: 'token abc', expected: err({ code: 'invalid_credentials', reason: 'not_an_object' }) },
  ];

  it.each(rows)('should follow $ref', ({ input, expected }) => {
    expect(validateCredentials(input)).toStrictEqual(expected);
  });

  test.prop([fc.anything()])('should never throw', (value) => {
    const actual = validateCredentials(value);
    expect(actual.isOk() || actual.isErr()).toBe(true);
  });
});

describe('formatAuthorizationHeader', () => {
  const rows: ReadonlyArray<{ readonly ref: string; readonly input: Credentials; readonly expected: string }> = [
    { ref: '§5.1 token', input: { scheme: 'token', token: 'sgp_abc' }, expected: 'token sgp_abc' },
    { ref: '§5.1 token, token68 padding', input: { scheme: 'token', token: 'abc==' }, expected: 'token abc==' },
    { ref: '§5.1 token, not a token68', input: { scheme: 'token', token: 'a b"c\\' }, expected: 'token token="a b\\"c\\\\"' },
    { ref: '§5.1 token, = inside is not token68', input: { scheme: 'token', token: 'a=b' }, expected: 'token token="a=b"' },
    { ref: '§5.1 Bearer', input: { scheme: 'bearer', token: 'ya29.a0' }, expected: 'Bearer ya29.a0' },
    { ref: '§5.1 token-sudo', input: { scheme: 'token-sudo', user: 'alice', token: 'sgp_abc' }, expected: 'token-sudo user="alice",token="sgp_abc"' },
    { ref: '§5.1 token-sudo, escaped', input: { scheme: 'token-sudo', user: 'a"\\', token: '\\"' }, expected: 'token-sudo user="a\\"\\\\",token="\\\\\\""' },
    { ref: 'invalid: bare scheme', input: { scheme: 'bearer', token: 'not token68' }, expected: 'Bearer' },
    { ref: 'invalid: bare scheme, no CR/LF injection', input: { scheme: 'token', token: 'a\r\nX-Evil: 1' }, expected: 'token' },
    { ref: 'invalid: bare scheme', input: { scheme: 'token-sudo', user: '', token: 't' }, expected: 'token-sudo' },
  ];

  it.each(rows)('should follow $ref', ({ input, expected }) => {
    expect(formatAuthorizationHeader(input)).toStrictEqual(expected);
  });

  it('should write token for a value that is not credentials at all', () => {
    expect(formatAuthorizationHeader(null as unknown as Credentials)).toBe('token');
    expect(formatAuthorizationHeader({ scheme: 'basic' } as unknown as Credentials)).toBe('token');
  });

  const nearCredentialsArb = fc.record(
    {
      scheme: fc.constantFrom('token', 'bearer', 'token-sudo', 'Bearer', 'basic'),
      token: fc.oneof(quotableArb, fc.string(), fc.string({ unit: 'binary' }), fc.constant(''), fc.integer()),
      user: fc.oneof(quotableArb, fc.string(), fc.constant('')),
    },
    { requiredKeys: ['scheme'], noNullPrototype: true },
  );

  test.prop([fc.oneof(nearCredentialsArb, fc.anything())])(
    'should write credentials exactly when they are valid, and otherwise a bare scheme that never reads as credentials',
    (value) => {
      const header = formatAuthorizationHeader(value as Credentials);
      const validated = validateCredentials(value);
      if (validated.isOk()) {
        expect(parseAuthorizationHeader(header)).toStrictEqual(ok(validated.value));
      } else {
        const scheme = 'scheme' in validated.error ? validated.error.scheme : 'token';
        expect(parseAuthorizationHeader(header)).toStrictEqual(bad(scheme, 'empty_token'));
        expect(header).toMatch(/^(token|Bearer|token-sudo)$/);
      }
    },
  );

  test.prop([validCredentialsArb])('should write only characters a header may hold', (credentials) => {
    expect(formatAuthorizationHeader(credentials)).toMatch(/^[\t\x20-\x7e\x80-\xff]+$/);
  });
});
