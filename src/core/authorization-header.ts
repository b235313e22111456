/**
 * Parses and formats the `Authorization` header of the GraphQL endpoint (spec §5.1, §6, §7 rule 1, RFC 9110 §11).
 *
 * The three schemes of spec §5.1 are read by a forward tokenizer over a character-class table: no regular
 * expressions, no backtracking; the only lookahead is over the first word after the scheme (to tell a token68
 * from a parameter list), so each character is read a bounded number of times and the time taken is linear
 * in the header's length for every input. A header over {@link MAX_AUTHORIZATION_HEADER_LENGTH} characters
 * is refused before it is scanned at all. The commonest shapes, `token <token68>`, `Bearer <token68>` and
 * `token-sudo user="<user>",token="<token68>"` (as {@link formatAuthorizationHeader} writes it), are first tried
 * by a fast path that scans character codes once and allocates only the values; whatever it does not accept is
 * read from the start by the general tokenizer, which gives the same answer for every header the fast path
 * accepts.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match } from 'ts-pattern';
import { asciiLowercase } from './internal/email-address.js';
import {
  BACKSLASH,
  charClass,
  COMMA,
  DQUOTE,
  EQUALS,
  hasClass,
  hasWordAt,
  HTAB,
  isQuotable,
  isToken68,
  isWhitespace,
  SP,
  TCHAR,
  TOKEN68,
} from './internal/http-syntax.js';

/**
 * The longest `Authorization` header value accepted, in characters. Longer values are
 * `malformed_header` with reason `too_long`, checked before any scanning.
 *
 * @example
 * ```ts
 * parseAuthorizationHeader('token ' + 'a'.repeat(MAX_AUTHORIZATION_HEADER_LENGTH));
 * // err({ code: 'malformed_header', reason: 'too_long' })
 * ```
 */
export const MAX_AUTHORIZATION_HEADER_LENGTH = 8192;

/**
 * The schemes spec §5.1 accepts, lowercased as {@link Credentials} carries them (`Bearer` is `bearer`).
 *
 * @example
 * ```ts
 * CREDENTIALS_SCHEMES.includes('token-sudo'); // true
 * ```
 */
export const CREDENTIALS_SCHEMES = ['token', 'bearer', 'token-sudo'] as const;

/** One of the schemes of spec §5.1, lowercased. */
export type CredentialsScheme = (typeof CREDENTIALS_SCHEMES)[number];

/** A personal access token: `token <ACCESS_TOKEN>` or `token token="<ACCESS_TOKEN>"` (spec §5.1). */
export interface TokenCredentials {
  /** Always `token`. */
  readonly scheme: 'token';
  /** The access token, never empty. */
  readonly token: string;
}

/** An OAuth access token: `Bearer <OAUTH_ACCESS_TOKEN>` (spec §5.1, RFC 6750 §2.1: a token68 only). */
export interface BearerCredentials {
  /** Always `bearer` (the header spells it `Bearer`; schemes are case-insensitive). */
  readonly scheme: 'bearer';
  /** The OAuth access token, a non-empty token68. */
  readonly token: string;
}

/**
 * An access token acting as another user: `token-sudo user="<USERNAME>",token="<ACCESS_TOKEN>"` (spec §5.1).
 * Whether the token may do so is decided elsewhere (spec §5.1 rule 2).
 */
export interface TokenSudoCredentials {
  /** Always `token-sudo`. */
  readonly scheme: 'token-sudo';
  /** The access token, never empty. */
  readonly token: string;
  /** The username to act as, never empty, exactly as sent (not normalized). */
  readonly user: string;
}

/** What an `Authorization` header of one of the schemes of spec §5.1 carries. */
export type Credentials = TokenCredentials | BearerCredentials | TokenSudoCredentials;

/**
 * The audit log entry a caller records when it ignores a header with an unsupported scheme
 * (spec §5.1 rule 4, §6 rule 1, §7 rule 1).
 */
export interface AuthorizationHeaderAudit {
  /** The audited entity, `auth.accessToken`. */
  readonly entity: 'auth.accessToken';
  /** The audited action, `failed`. */
  readonly action: 'failed';
  /** The recorded reason, `invalid Authorization header`. */
  readonly reason: 'invalid Authorization header';
}

/**
 * The audit entry of spec §6 rule 1, carried by every `unsupported_scheme` error.
 *
 * @example
 * ```ts
 * INVALID_AUTHORIZATION_HEADER_AUDIT.reason; // 'invalid Authorization header'
 * ```
 */
export const INVALID_AUTHORIZATION_HEADER_AUDIT: AuthorizationHeaderAudit = Object.freeze({
  entity: 'auth.accessToken',
  action: 'failed',
  reason: 'invalid Authorization header',
});

/**
 * Why a header value is malformed whatever its scheme, found before the scheme is read:
 * - `invalid_type`: the value is not a string, an array of strings, `undefined` or `null` (a run-time type error);
 * - `multiple_values`: two or more header values (the header is not a list, RFC 9110 §5.3);
 * - `too_long`: more than {@link MAX_AUTHORIZATION_HEADER_LENGTH} characters;
 * - `control_character`: a control character (U+0000–U+001F except HTAB, or U+007F DEL) anywhere (RFC 9110 §5.5);
 * - `invalid_character`: a character above U+00FF, which no HTTP field value can hold (RFC 9110 §5.5);
 * - `invalid_scheme`: the first word is not an RFC 9110 `token` (RFC 9110 §11.1).
 */
export type HeaderMalformation =
  | 'invalid_type'
  | 'multiple_values'
  | 'too_long'
  | 'control_character'
  | 'invalid_character'
  | 'invalid_scheme';

/**
 * Why the credentials after a recognised scheme are malformed:
 * - `empty_token`: nothing after the scheme, or an empty `token` parameter (`token=""`, `token=`);
 * - `empty_user`: an empty `user` parameter under `token-sudo`;
 * - `unterminated_quote`: a quoted-string with no closing `"` (RFC 9110 §5.6.4);
 * - `unknown_parameter`: a parameter other than `token` (scheme `token`) or `user`/`token` (scheme `token-sudo`);
 * - `trailing_garbage`: something after a complete token68 or parameter value that is not `,` (RFC 9110 §11.4);
 * - `unexpected_character`: a character the grammar does not allow where it stands (RFC 9110 §11.1, §11.4);
 * - `token68_required`: `Bearer` with parameters instead of a token68 (RFC 6750 §2.1);
 * - `parameters_required`: `token-sudo` with a token68 instead of parameters.
 */
export type CredentialsMalformation =
  | 'empty_token'
  | 'empty_user'
  | 'unterminated_quote'
  | 'unknown_parameter'
  | 'trailing_garbage'
  | 'unexpected_character'
  | 'token68_required'
  | 'parameters_required';

/**
 * Why `parseAuthorizationHeader` could not read a header. The caller answers a `malformed_header` as an
 * invalid header, and ignores an `unsupported_scheme` header after recording its `audit` entry.
 */
export type AuthorizationHeaderError =
  /** The value cannot be an `Authorization` header at all, whatever its scheme (no scheme was read). */
  | {
      /** Always `malformed_header`. */
      readonly code: 'malformed_header';
      /** What is wrong with the value as a whole. */
      readonly reason: HeaderMalformation;
    }
  /** A scheme of spec §5.1 followed by credentials that break RFC 9110 §11 or the scheme's rules. */
  | {
      /** Always `malformed_header`. */
      readonly code: 'malformed_header';
      /** The recognised scheme, lowercased. */
      readonly scheme: CredentialsScheme;
      /** What is wrong with the credentials. */
      readonly reason: CredentialsMalformation;
    }
  /** A `token` or `token-sudo` parameter list that lacks a required parameter or repeats one. */
  | {
      /** Always `malformed_header`. */
      readonly code: 'malformed_header';
      /** The recognised scheme, lowercased. */
      readonly scheme: 'token' | 'token-sudo';
      /** `missing_parameter` or `duplicate_parameter`. */
      readonly reason: 'missing_parameter' | 'duplicate_parameter';
      /** The parameter that is missing or repeated. */
      readonly parameter: 'user' | 'token';
    }
  /** A well-formed scheme other than `token`, `Bearer` and `token-sudo` (spec §5.1 rule 4, §7 rule 1). */
  | {
      /** Always `unsupported_scheme`. */
      readonly code: 'unsupported_scheme';
      /** The scheme, lowercased (`basic`, `digest`, `negotiate`, …). */
      readonly scheme: Lowercase<string>;
      /** The audit entry to record (spec §6 rule 1): {@link INVALID_AUTHORIZATION_HEADER_AUDIT}. */
      readonly audit: AuthorizationHeaderAudit;
    };

/** Why a value is not {@link Credentials} that an `Authorization` header can carry. */
export type InvalidCredentialsError =
  /** The value is not an object, or its `scheme` is not one of {@link CREDENTIALS_SCHEMES}. */
  | {
      /** Always `invalid_credentials`. */
      readonly code: 'invalid_credentials';
      /** `not_an_object` or `unknown_scheme`. */
      readonly reason: 'not_an_object' | 'unknown_scheme';
    }
  /** A field the scheme needs cannot be written into a header that reads back as the same value. */
  | {
      /** Always `invalid_credentials`. */
      readonly code: 'invalid_credentials';
      /** The credentials' scheme. */
      readonly scheme: CredentialsScheme;
      /** The offending field. */
      readonly field: 'token' | 'user';
      /**
       * `not_a_string`; `empty`; `unrepresentable_character` (a control character other than HTAB, or a
       * character above U+00FF); `not_token68` (a `Bearer` token must be a token68, RFC 6750 §2.1).
       */
      readonly reason: 'not_a_string' | 'empty' | 'unrepresentable_character' | 'not_token68';
    }
  /** The canonical header would be longer than {@link MAX_AUTHORIZATION_HEADER_LENGTH}. */
  | {
      /** Always `invalid_credentials`. */
      readonly code: 'invalid_credentials';
      /** The credentials' scheme. */
      readonly scheme: CredentialsScheme;
      /** Always `too_long`. */
      readonly reason: 'too_long';
    };

// ---------------------------------------------------------------------------------------------------
// Errors

type Malformed = AuthorizationHeaderError & { readonly code: 'malformed_header' };

function headerError(reason: HeaderMalformation): Malformed {
  return { code: 'malformed_header', reason };
}

function credentialsError(scheme: CredentialsScheme, reason: CredentialsMalformation): Malformed {
  return { code: 'malformed_header', scheme, reason };
}

function parameterError(
  scheme: 'token' | 'token-sudo',
  reason: 'missing_parameter' | 'duplicate_parameter',
  parameter: 'user' | 'token',
): Malformed {
  return { code: 'malformed_header', scheme, reason, parameter };
}

// ---------------------------------------------------------------------------------------------------
// Parsing

/**
 * Reads an `Authorization` header value into the {@link Credentials} of spec §5.1.
 *
 * - `undefined`, `null`, `[]`, an empty value or one of only SP/HTAB: `ok(null)`, an anonymous request.
 * - An array of one string is that string; two or more values are `malformed_header` (`multiple_values`).
 * - Leading and trailing SP/HTAB are not part of the value (RFC 9110 §5.5). The scheme is case-insensitive
 *   and is followed by one or more SP (RFC 9110 §11.4).
 * - `token <token68>` or `token token=<value>`; `Bearer <token68>`; `token-sudo user=<value>,token=<value>`
 *   in either order. A value is a token or a quoted-string (quoted-pairs unescaped); parameter names are
 *   case-insensitive; whitespace may stand around `=` (BWS) and `,` (OWS); empty list elements are ignored
 *   (RFC 9110 §5.6.1.2). When everything after the scheme is a token68 it is read as one (`token abc=`).
 * - A recognised scheme with bad credentials is `malformed_header` with the scheme and a reason; the first
 *   problem from left to right is reported. Any other well-formed scheme is `unsupported_scheme` with
 *   {@link INVALID_AUTHORIZATION_HEADER_AUDIT}: the caller ignores the header and records that entry.
 *
 * Never throws, for any value; runs in time linear in the header's length.
 *
 * @param value - The header as a server sees it: a string, the array of a multi-valued header, or absent.
 * @returns `ok(credentials)`, `ok(null)` for no credentials, or `err` with a `malformed_header` or `unsupported_scheme` code.
 * @see {@link https://www.rfc-editor.org/rfc/rfc9110#section-11.6.2 | RFC 9110 §11.6.2}
 * @example Three schemes
 * ```ts
 * parseAuthorizationHeader('TOKEN sgp_abc');            // ok({ scheme: 'token', token: 'sgp_abc' })
 * parseAuthorizationHeader('Bearer ya29.a0');           // ok({ scheme: 'bearer', token: 'ya29.a0' })
 * parseAuthorizationHeader('token-sudo token="t", user="alice"');
 * // ok({ scheme: 'token-sudo', token: 't', user: 'alice' })
 * ```
 * @example Absent, malformed and unsupported headers
 * ```ts
 * parseAuthorizationHeader(undefined);                  // ok(null)
 * parseAuthorizationHeader('token user="bob"');
 * // err({ code: 'malformed_header', scheme: 'token', reason: 'unknown_parameter' })
 * parseAuthorizationHeader('Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==');
 * // err({ code: 'unsupported_scheme', scheme: 'basic', audit: INVALID_AUTHORIZATION_HEADER_AUDIT })
 * ```
 */
export function parseAuthorizationHeader(
  value: string | readonly string[] | undefined | null,
): Result<Credentials | null, AuthorizationHeaderError> {
  if (value === undefined || value === null) return ok(null);
  if (typeof value === 'string') return parseHeaderValue(value);
  const values: unknown = value;
  if (!Array.isArray(values)) return err(headerError('invalid_type'));
  if (values.length === 0) return ok(null);
  if (values.length > 1) return err(headerError('multiple_values'));
  const only: unknown = values[0];
  return typeof only === 'string' ? parseHeaderValue(only) : err(headerError('invalid_type'));
}

function parseHeaderValue(header: string): Result<Credentials | null, AuthorizationHeaderError> {
  if (header.length > MAX_AUTHORIZATION_HEADER_LENGTH) return err(headerError('too_long'));
  const common = readCommonHeader(header) ?? readCommonSudoHeader(header);
  if (common !== undefined) return ok(common);
  let wide = false;
  for (let i = 0; i < header.length; i++) {
    const c = header.charCodeAt(i);
    if (c >= SP && c < 0x7f) continue; // SP and visible ASCII, the common case, decided by one range test
    if ((c < 0x20 && c !== HTAB) || c === 0x7f) return err(headerError('control_character'));
    if (c > 0xff) wide = true;
  }
  if (wide) return err(headerError('invalid_character'));
  let start = 0;
  let end = header.length;
  while (start < end && isWhitespace(header.charCodeAt(start))) start++;
  while (end > start && isWhitespace(header.charCodeAt(end - 1))) end--;
  if (start === end) return ok(null);
  return parseCredentials(header, start, end);
}

/**
 * The fast path for the two commonest headers: `token <token68>` and `Bearer <token68>` with the scheme
 * first (any casing), then one or more SP, a token68 and optional trailing SP/HTAB. One forward scan of
 * character codes, no allocation but the token itself, no decision to make (the scheme is whichever of the
 * two words matched). Anything else, including every header that starts with whitespace, is `undefined`
 * and the general tokenizer reads it from the start: this path reads each character at most once before
 * that, so the time stays linear. A header accepted here holds only letters, token68 characters, SP and HTAB, so
 * the header-wide checks cannot fail on it and the general tokenizer reads it as the same credentials
 * (the tests check that by forcing the general path with a leading SP).
 */
function readCommonHeader(s: string): Credentials | undefined {
  let scheme: 'token' | 'bearer';
  let i: number;
  if (hasWordAt(s, 0, 'token') && s.charCodeAt(5) === SP) {
    scheme = 'token';
    i = 6;
  } else if (hasWordAt(s, 0, 'bearer') && s.charCodeAt(6) === SP) {
    scheme = 'bearer';
    i = 7;
  } else {
    return undefined;
  }
  const n = s.length;
  while (i < n && s.charCodeAt(i) === SP) i++;
  const start = i;
  const tokenEnd = token68End(s, start);
  if (tokenEnd === start) return undefined;
  i = tokenEnd;
  while (i < n && isWhitespace(s.charCodeAt(i))) i++;
  return i === n ? { scheme, token: s.slice(start, tokenEnd) } : undefined;
}

/** Where the token68 at `from` ends (after its `=` padding); `from` itself when no token68 character is there. */
function token68End(s: string, from: number): number {
  let i = from;
  while (i < s.length && (charClass(s.charCodeAt(i)) & TOKEN68) !== 0) i++;
  if (i === from) return from;
  while (i < s.length && s.charCodeAt(i) === EQUALS) i++;
  return i;
}

/**
 * The fast path for `token-sudo` as {@link formatAuthorizationHeader} writes it: `token-sudo`, one SP,
 * `user="<user>"`, a comma, `token="<token68>"` and optional trailing SP/HTAB, the scheme and the parameter names
 * in any casing. The user may hold SP and visible ASCII but no `"` or `\` (an escape takes the general path). One
 * forward scan; anything else is `undefined` and read from the start by the general tokenizer. A header accepted
 * here holds only SP, HTAB and visible ASCII, so the header-wide checks cannot fail on it, and the general
 * tokenizer reads it as the same credentials (the tests check that by forcing the general path with a leading SP).
 */
function readCommonSudoHeader(s: string): Credentials | undefined {
  if (!hasWordAt(s, 0, 'token-sudo ') || !hasWordAt(s, 11, 'user="')) return undefined;
  const n = s.length;
  let i = 17;
  const userStart = i;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === DQUOTE) break;
    if (c < SP || c > 0x7e || c === BACKSLASH) return undefined;
  }
  if (i === userStart || i === n) return undefined;
  const userEnd = i;
  if (!hasWordAt(s, i + 1, ',token="')) return undefined;
  const tokenStart = i + 9;
  const tokenEnd = token68End(s, tokenStart);
  if (tokenEnd === tokenStart || s.charCodeAt(tokenEnd) !== DQUOTE) return undefined;
  i = tokenEnd + 1;
  while (i < n && isWhitespace(s.charCodeAt(i))) i++;
  return i === n ? { scheme: 'token-sudo', token: s.slice(tokenStart, tokenEnd), user: s.slice(userStart, userEnd) } : undefined;
}

function parseCredentials(s: string, start: number, end: number): Result<Credentials, AuthorizationHeaderError> {
  let i = start;
  while (i < end && hasClass(s.charCodeAt(i), TCHAR)) i++;
  if (i === start || (i < end && s.charCodeAt(i) !== SP)) return err(headerError('invalid_scheme'));
  const known = recogniseScheme(s, start, i);
  if (known !== undefined) return parseKnownScheme(known, s, i, end);
  // tchar is ASCII, so ASCII lowercasing gives a lower-case string: a documented narrowing.
  const scheme = asciiLowercase(s.slice(start, i)) as Lowercase<string>;
  return err({ code: 'unsupported_scheme', scheme, audit: INVALID_AUTHORIZATION_HEADER_AUDIT });
}

/** The scheme of spec §5.1 that `s[from, to)` names in any casing, if any (an open set of words). */
function recogniseScheme(s: string, from: number, to: number): CredentialsScheme | undefined {
  const length = to - from;
  if (length === 5 && hasWordAt(s, from, 'token')) return 'token';
  if (length === 6 && hasWordAt(s, from, 'bearer')) return 'bearer';
  if (length === 10 && hasWordAt(s, from, 'token-sudo')) return 'token-sudo';
  return undefined;
}

/** Which parameter `s[from, to)` names in any casing (parameter names are case-insensitive, RFC 9110 §11.2). */
function parameterName(s: string, from: number, to: number): 'token' | 'user' | 'other' {
  const length = to - from;
  if (length === 5 && hasWordAt(s, from, 'token')) return 'token';
  if (length === 4 && hasWordAt(s, from, 'user')) return 'user';
  return 'other';
}

/**
 * The shape of what follows the scheme, decided by looking ahead at most over the first word. The data each
 * shape needs is where the first word starts, so a shape is a plain string (no allocation, and a decision by
 * literal patterns): `trailing_garbage` and `unexpected_character` are the reason the credentials are invalid.
 */
type Form = 'empty' | 'token68' | 'parameters' | 'trailing_garbage' | 'unexpected_character';

function parseKnownScheme(
  scheme: CredentialsScheme,
  s: string,
  afterScheme: number,
  end: number,
): Result<Credentials, AuthorizationHeaderError> {
  const first = skipSpaces(s, afterScheme, end);
  return match(readForm(s, first, end))
    .returnType<Result<Credentials, AuthorizationHeaderError>>()
    .with('token68', () =>
      scheme === 'token-sudo' ? err(credentialsError(scheme, 'parameters_required')) : ok({ scheme, token: s.slice(first, end) }),
    )
    .with('parameters', () =>
      scheme === 'bearer' ? err(credentialsError(scheme, 'token68_required')) : parseParameters(scheme, s, first, end),
    )
    .with('empty', () => err(credentialsError(scheme, 'empty_token')))
    .with('trailing_garbage', 'unexpected_character', (reason) => err(credentialsError(scheme, reason)))
    .exhaustive();
}

function skipSpaces(s: string, from: number, end: number): number {
  let p = from;
  while (p < end && s.charCodeAt(p) === SP) p++;
  return p;
}

/**
 * Decides between `token68` and `#auth-param` (RFC 9110 §11.4) by looking at the first word, which starts at
 * `p`, and the run of `=` after it: a token68 is everything up to the end; a name followed by one `=` and a
 * value, or by BWS and `=`, starts a parameter list; a leading `,` (after OWS) is an empty list element.
 */
function readForm(s: string, p: number, end: number): Form {
  if (p === end) return 'empty';
  let q = p;
  let token68Word = true;
  for (; q < end; q++) {
    const classes = charClass(s.charCodeAt(q));
    if ((classes & (TCHAR | TOKEN68)) === 0) break;
    if ((classes & TOKEN68) === 0) token68Word = false;
  }
  if (q === p) {
    let w = p;
    while (w < end && isWhitespace(s.charCodeAt(w))) w++;
    return w < end && s.charCodeAt(w) === COMMA ? 'parameters' : 'unexpected_character';
  }
  let r = q;
  while (r < end && s.charCodeAt(r) === EQUALS) r++;
  const garbage = token68Word ? 'trailing_garbage' : 'unexpected_character';
  if (r === end) return token68Word ? 'token68' : garbage;
  if (r - q === 1) return 'parameters';
  if (r - q > 1) return garbage;
  let w = q;
  while (w < end && isWhitespace(s.charCodeAt(w))) w++;
  return w < end && s.charCodeAt(w) === EQUALS ? 'parameters' : garbage;
}

/** Reads `#auth-param` (RFC 9110 §11.4, §5.6.1.2) for `token` or `token-sudo`, stopping at the first problem. */
function parseParameters(
  scheme: 'token' | 'token-sudo',
  s: string,
  start: number,
  end: number,
): Result<Credentials, AuthorizationHeaderError> {
  let user: string | undefined;
  let token: string | undefined;
  let i = start;
  for (;;) {
    while (i < end && (isWhitespace(s.charCodeAt(i)) || s.charCodeAt(i) === COMMA)) i++;
    if (i === end) break;
    const nameStart = i;
    while (i < end && hasClass(s.charCodeAt(i), TCHAR)) i++;
    if (i === nameStart) return err(credentialsError(scheme, 'unexpected_character'));
    const name = parameterName(s, nameStart, i);
    while (i < end && isWhitespace(s.charCodeAt(i))) i++;
    if (i === end || s.charCodeAt(i) !== EQUALS) return err(credentialsError(scheme, 'unexpected_character'));
    i++;
    while (i < end && isWhitespace(s.charCodeAt(i))) i++;
    let value = '';
    if (i < end && s.charCodeAt(i) === DQUOTE) {
      const close = findClosingQuote(s, i, end);
      if (close === -1) return err(credentialsError(scheme, 'unterminated_quote'));
      value = unescapeQuotedPairs(s, i + 1, close);
      i = close + 1;
    } else if (i < end && s.charCodeAt(i) !== COMMA) {
      const valueStart = i;
      while (i < end && hasClass(s.charCodeAt(i), TCHAR)) i++;
      if (i === valueStart) return err(credentialsError(scheme, 'unexpected_character'));
      value = s.slice(valueStart, i);
    }
    if (name === 'token') {
      if (token !== undefined) return err(parameterError(scheme, 'duplicate_parameter', 'token'));
      if (value === '') return err(credentialsError(scheme, 'empty_token'));
      token = value;
    } else if (name === 'user' && scheme === 'token-sudo') {
      if (user !== undefined) return err(parameterError(scheme, 'duplicate_parameter', 'user'));
      if (value === '') return err(credentialsError(scheme, 'empty_user'));
      user = value;
    } else {
      return err(credentialsError(scheme, 'unknown_parameter'));
    }
    while (i < end && isWhitespace(s.charCodeAt(i))) i++;
    if (i < end && s.charCodeAt(i) !== COMMA) return err(credentialsError(scheme, 'trailing_garbage'));
  }
  if (scheme === 'token-sudo') {
    if (user === undefined) return err(parameterError(scheme, 'missing_parameter', 'user'));
    if (token === undefined) return err(parameterError(scheme, 'missing_parameter', 'token'));
    return ok({ scheme: 'token-sudo', token, user });
  }
  if (token === undefined) return err(parameterError(scheme, 'missing_parameter', 'token'));
  return ok({ scheme: 'token', token });
}

/**
 * The index of the `"` closing the quoted-string that opens at `open` (RFC 9110 §5.6.4), or -1 when there
 * is none. Every character left after the header-wide checks is qdtext or may follow a backslash, so only a
 * missing closing quote can fail; nothing is built until the closing quote is found.
 */
function findClosingQuote(s: string, open: number, end: number): number {
  let i = open + 1;
  while (i < end) {
    const c = s.charCodeAt(i);
    if (c === DQUOTE) return i;
    i += c === BACKSLASH ? 2 : 1;
  }
  return -1;
}

/** The content of a terminated quoted-string `s[from, to)` with its quoted-pairs unescaped (one slice when there are none). */
function unescapeQuotedPairs(s: string, from: number, to: number): string {
  let value = '';
  let segment = from;
  let i = from;
  while (i < to) {
    if (s.charCodeAt(i) === BACKSLASH) {
      value += s.slice(segment, i);
      segment = i + 1;
      i += 2;
    } else {
      i++;
    }
  }
  return value + s.slice(segment, to);
}

// ---------------------------------------------------------------------------------------------------
// Validation and formatting

function readField(value: object, field: 'token' | 'user'): unknown {
  return field in value ? Reflect.get(value, field) : undefined;
}

function checkField(
  scheme: CredentialsScheme,
  field: 'token' | 'user',
  raw: unknown,
  token68Only: boolean,
): Result<string, InvalidCredentialsError> {
  const invalid = (reason: 'not_a_string' | 'empty' | 'unrepresentable_character' | 'not_token68'): Result<string, InvalidCredentialsError> =>
    err({ code: 'invalid_credentials', scheme, field, reason });
  if (typeof raw !== 'string') return invalid('not_a_string');
  if (raw === '') return invalid('empty');
  if (!isQuotable(raw)) return invalid('unrepresentable_character');
  if (token68Only && !isToken68(raw)) return invalid('not_token68');
  return ok(raw);
}

function quote(value: string): string {
  let out = '"';
  let segment = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === DQUOTE || c === BACKSLASH) {
      out += value.slice(segment, i) + '\\';
      segment = i;
    }
  }
  return out + value.slice(segment) + '"';
}

function canonical(credentials: Credentials): string {
  return match(credentials)
    .returnType<string>()
    .with({ scheme: 'token' }, ({ token }) => (isToken68(token) ? `token ${token}` : `token token=${quote(token)}`))
    .with({ scheme: 'bearer' }, ({ token }) => `Bearer ${token}`)
    .with({ scheme: 'token-sudo' }, ({ user, token }) => `token-sudo user=${quote(user)},token=${quote(token)}`)
    .exhaustive();
}

function withinLimit(credentials: Credentials): Result<Credentials, InvalidCredentialsError> {
  return canonical(credentials).length > MAX_AUTHORIZATION_HEADER_LENGTH
    ? err({ code: 'invalid_credentials', scheme: credentials.scheme, reason: 'too_long' })
    : ok(credentials);
}

/**
 * Checks that a value is {@link Credentials} an `Authorization` header can carry, so that
 * `parseAuthorizationHeader(formatAuthorizationHeader(c))` is `ok(c)`: each field a non-empty string of
 * HTAB, SP, visible ASCII or U+0080–U+00FF (RFC 9110 §5.5: no other control character, nothing wider);
 * a `Bearer` token a token68 (RFC 6750 §2.1); the canonical header at most
 * {@link MAX_AUTHORIZATION_HEADER_LENGTH} characters. Fields other than the scheme's are dropped.
 *
 * @param value - Anything, typically credentials built from configuration or user input.
 * @returns `ok` with a fresh copy holding only the scheme's fields, or `err` with code `invalid_credentials`.
 * @example
 * ```ts
 * validateCredentials({ scheme: 'bearer', token: 'abc' });   // ok({ scheme: 'bearer', token: 'abc' })
 * validateCredentials({ scheme: 'bearer', token: 'a b' });
 * // err({ code: 'invalid_credentials', scheme: 'bearer', field: 'token', reason: 'not_token68' })
 * validateCredentials({ scheme: 'token', token: 'a\r\nX-Injected: 1' });
 * // err({ code: 'invalid_credentials', scheme: 'token', field: 'token', reason: 'unrepresentable_character' })
 * ```
 */
export function validateCredentials(value: unknown): Result<Credentials, InvalidCredentialsError> {
  if (typeof value !== 'object' || value === null) return err({ code: 'invalid_credentials', reason: 'not_an_object' });
  const scheme: unknown = 'scheme' in value ? value.scheme : undefined;
  const token = readField(value, 'token');
  return match(scheme)
    .returnType<Result<Credentials, InvalidCredentialsError>>()
    .with('token', (sc) => checkField(sc, 'token', token, false).map((t): Credentials => ({ scheme: sc, token: t })))
    .with('bearer', (sc) => checkField(sc, 'token', token, true).map((t): Credentials => ({ scheme: sc, token: t })))
    .with('token-sudo', (sc) =>
      checkField(sc, 'user', readField(value, 'user'), false).andThen((user) =>
        checkField(sc, 'token', token, false).map((t): Credentials => ({ scheme: sc, token: t, user })),
      ),
    )
    .otherwise(() => err({ code: 'invalid_credentials', reason: 'unknown_scheme' }))
    .andThen(withinLimit);
}

/**
 * Writes credentials as the canonical `Authorization` header value: `token <t>` (or `token token="<t>"`
 * when `t` is not a token68), `Bearer <t>`, `token-sudo user="<u>",token="<t>"`, with `"` and `\` escaped
 * as quoted-pairs (RFC 9110 §5.6.4).
 *
 * For every `c` that {@link validateCredentials} accepts, `parseAuthorizationHeader(formatAuthorizationHeader(c))`
 * is `ok(c)`. Credentials that no header can carry (an empty field, a control character such as CR or LF, a
 * character above U+00FF, a `Bearer` token that is not a token68, a header over the length limit) are never
 * written out: the result is then the bare canonical scheme (`token`, `Bearer`, `token-sudo`; `token` when the
 * value is not credentials at all), which every server reads as `malformed_header` with reason `empty_token`.
 * So the output is always a safe header value (no CR/LF injection) and never silently means other credentials.
 * Call {@link validateCredentials} first to tell the two cases apart. Never throws.
 *
 * @param credentials - The credentials to send.
 * @returns The header value.
 * @example
 * ```ts
 * formatAuthorizationHeader({ scheme: 'token', token: 'sgp_abc' });          // 'token sgp_abc'
 * formatAuthorizationHeader({ scheme: 'token', token: 'a b' });              // 'token token="a b"'
 * formatAuthorizationHeader({ scheme: 'bearer', token: 'ya29.a0' });         // 'Bearer ya29.a0'
 * formatAuthorizationHeader({ scheme: 'token-sudo', user: 'al"ice', token: 't' });
 * // 'token-sudo user="al\"ice",token="t"'
 * formatAuthorizationHeader({ scheme: 'bearer', token: 'not token68' });     // 'Bearer' (invalid credentials)
 * ```
 */
export function formatAuthorizationHeader(credentials: Credentials): string {
  return validateCredentials(credentials).match(canonical, (error) => ('scheme' in error ? spellScheme(error.scheme) : 'token'));
}

function spellScheme(scheme: CredentialsScheme): string {
  return match(scheme)
    .returnType<string>()
    .with('token', () => 'token')
    .with('bearer', () => 'Bearer')
    .with('token-sudo', () => 'token-sudo')
    .exhaustive();
}
