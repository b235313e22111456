/**
 * fast-check generators for `Authorization` headers and the credentials they carry (RFC 9110 §5.6, §11).
 */
import fc from 'fast-check';
import type { Credentials } from '../../src/core/authorization-header.js';

const fromCodes = (from: number, to: number): fc.Arbitrary<string> =>
  fc.integer({ min: from, max: to }).map((c) => String.fromCharCode(c));

const ALNUM = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'];

/** RFC 9110 §5.6.2 tchar. */
export const TCHARS: readonly string[] = [...ALNUM, ..."!#$%&'*+-.^_`|~"];
/** RFC 9110 §11.2 token68 characters (before the `=` padding). */
export const TOKEN68_CHARS: readonly string[] = [...ALNUM, ...'-._~+/'];

/** A non-empty RFC 9110 token. */
export const tokenArb: fc.Arbitrary<string> = fc.string({ unit: fc.constantFrom(...TCHARS), minLength: 1 });

/** A token68: one or more token68 characters and zero to three `=`. */
export const token68Arb: fc.Arbitrary<string> = fc
  .tuple(fc.string({ unit: fc.constantFrom(...TOKEN68_CHARS), minLength: 1 }), fc.nat({ max: 3 }))
  .map(([body, padding]) => body + '='.repeat(padding));

/** One character a quoted-string can hold (escaped or not): HTAB, SP, VCHAR, obs-text; biased to `"` and `\`. */
export const quotableCharArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('"', '\\', ' ', '\t', ',', '='),
  fromCodes(0x21, 0x7e),
  fromCodes(0x80, 0xff),
);

/** A non-empty value that needs a quoted-string or may be a token. */
export const quotableArb: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: quotableCharArb, minLength: 1 }),
  tokenArb,
  token68Arb,
);

/** Credentials that {@link validateCredentials} accepts (short enough never to hit the length limit). */
export const validCredentialsArb: fc.Arbitrary<Credentials> = fc.oneof(
  quotableArb.map((token): Credentials => ({ scheme: 'token', token })),
  token68Arb.map((token): Credentials => ({ scheme: 'bearer', token })),
  fc.tuple(quotableArb, quotableArb).map(([user, token]): Credentials => ({ scheme: 'token-sudo', token, user })),
);

/** Optional whitespace (RFC 9110 §5.6.3 OWS/BWS): zero to three SP or HTAB. */
export const owsArb: fc.Arbitrary<string> = fc.string({ unit: fc.constantFrom(' ', '\t'), maxLength: 3 });

/** Random ASCII casing of a word. */
export function randomCasing(word: string): fc.Arbitrary<string> {
  return fc
    .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
    .map((upper) => [...word].map((ch, i) => (upper[i] === true ? ch.toUpperCase() : ch.toLowerCase())).join(''));
}

/** A parameter value as written in a header: a token or a quoted-string with quoted-pairs. */
export function writtenValueArb(value: string): fc.Arbitrary<string> {
  const quoted = fc
    .array(fc.boolean(), { minLength: value.length, maxLength: value.length })
    .map(
      (escapeAnyway) =>
        `"${[...value].map((ch, i) => (ch === '"' || ch === '\\' || escapeAnyway[i] === true ? `\\${ch}` : ch)).join('')}"`,
    );
  const isToken = value.length > 0 && [...value].every((ch) => TCHARS.includes(ch));
  return isToken ? fc.oneof(fc.constant(value), quoted) : quoted;
}

/**
 * Header-like strings: a scheme-ish first word, a separator, then syntax-significant pieces (separators,
 * quotes, backslashes, parameter names and whole parameters), now and then a control or wide character.
 * Most are malformed; a fair share are valid.
 */
export const headerishArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom('token', 'TOKEN', 'Bearer', 'bearer', 'token-sudo', 'Token-Sudo', 'Basic') },
      { weight: 1, arbitrary: fc.constantFrom('', '"x"', 'tok@en') },
    ),
    fc.oneof({ weight: 12, arbitrary: fc.constant(' ') }, { weight: 1, arbitrary: fc.constantFrom('  ', '', '\t') }),
    fc.string({
      unit: fc.oneof(
        {
          weight: 30,
          arbitrary: fc.constantFrom(
            'user', 'USER', 'token', 'Token', 'realm', '=', '=', ',', ',', ' ', '\t', '"', '\\', 'a', 'b', '/', '!', '@', 'é',
            'user="a"', 'user=a', 'token="t"', 'token=t', 'token="\\""', 'user="a\\\\b"',
            'user="a",', 'token=t,', ', ', ' , ', 'user="a,b" ,', 'token = "t",',
          ),
        },
        { weight: 1, arbitrary: fc.constantFrom('\r', '\n', '\u0000', '\u007f', '\u001f', '日') },
      ),
      maxLength: 10,
    }),
  )
  .map(([scheme, separator, rest]) => scheme + separator + rest);

/**
 * Strings around the two commonest shapes, `token <token68>` and `Bearer <token68>`: optional leading
 * whitespace, a near-miss or exact scheme in any casing, a separator, a token68-ish body, and now and then
 * one character that leaves the shape (a tchar that is no token68 character, `=` inside the body, a quote,
 * a comma, a control or wide character) before optional trailing whitespace. Valid ones are common.
 */
export const commonHeaderishArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof({ weight: 6, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom(' ', '\t', ' \t') }),
    fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('token', 'bearer').chain(randomCasing) },
      { weight: 1, arbitrary: fc.constantFrom('token-sudo', 'tokens', 'toke', 'bearerx', 'beare', 'tokem', 'Basic', 'tokEn', '') },
    ),
    fc.oneof({ weight: 8, arbitrary: fc.constant(' ') }, { weight: 1, arbitrary: fc.constantFrom('', '   ', '\t', ' \t', '=') }),
    fc.string({ unit: fc.constantFrom(...TOKEN68_CHARS), maxLength: 12 }),
    fc.oneof(
      { weight: 4, arbitrary: fc.constant('') },
      {
        weight: 1,
        arbitrary: fc.constantFrom('!', '#', '*', '=x', '"', ',', ' ', ' x', '\t', '\\', '=', '==', '@', 'é', '\u00ff', '日', '\r', '\n', '\u0000', '\u007f'),
      },
    ),
    fc.string({ unit: fc.constantFrom(...TOKEN68_CHARS), maxLength: 3 }),
    fc.string({ unit: fc.constant('='), maxLength: 3 }),
    owsArb,
  )
  .map((parts) => parts.join(''));

/**
 * Strings around `token-sudo user="<user>",token="<token68>"` as `formatAuthorizationHeader` writes it: optional
 * leading whitespace, the scheme and parameter names in any casing (now and then a near miss), a user of visible
 * ASCII and SP biased to `"`, `\`, `,` and `=` (now and then empty, a control or wide character), a token68-ish
 * token, now and then a missing or extra quote, comma or space, and optional trailing whitespace or garbage.
 * Valid ones are common.
 */
export const sudoHeaderishArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof({ weight: 6, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom(' ', '\t') }),
    fc.oneof(
      { weight: 8, arbitrary: randomCasing('token-sudo') },
      { weight: 1, arbitrary: fc.constantFrom('token_sudo', 'token-sud', 'token-sudos', 'token', 'bearer') },
    ),
    fc.oneof({ weight: 8, arbitrary: fc.constant(' ') }, { weight: 1, arbitrary: fc.constantFrom('', '  ', '\t') }),
    fc.oneof({ weight: 8, arbitrary: randomCasing('user') }, { weight: 1, arbitrary: fc.constantFrom('users', 'use', 'token', '') }),
    fc.oneof({ weight: 8, arbitrary: fc.constant('="') }, { weight: 1, arbitrary: fc.constantFrom('=', ' ="', '= "', '"', '=""') }),
    fc.string({
      unit: fc.oneof(
        { weight: 12, arbitrary: fromCodes(0x20, 0x7e) },
        { weight: 3, arbitrary: fc.constantFrom('"', '\\', ',', '=') },
        { weight: 1, arbitrary: fc.constantFrom('\t', '\u0000', '\u007f', 'é', '日') },
      ),
      maxLength: 8,
    }),
    fc.oneof({ weight: 8, arbitrary: fc.constant('",') }, { weight: 1, arbitrary: fc.constantFrom('"', '" ,', '", ', ',', '"x,') }),
    fc.oneof({ weight: 8, arbitrary: randomCasing('token') }, { weight: 1, arbitrary: fc.constantFrom('user', 'tokens', 'realm') }),
    fc.oneof({ weight: 8, arbitrary: fc.constant('="') }, { weight: 1, arbitrary: fc.constantFrom('=', ' ="', '= "') }),
    fc.string({ unit: fc.constantFrom(...TOKEN68_CHARS), maxLength: 10 }),
    fc.string({ unit: fc.constant('='), maxLength: 2 }),
    fc.oneof({ weight: 8, arbitrary: fc.constant('"') }, { weight: 1, arbitrary: fc.constantFrom('', '""', '"x', '" x', '!"', ' "', '\\"', '\\', 'x', '",', '"\r') }),
    owsArb,
  )
  .map((parts) => parts.join(''));
