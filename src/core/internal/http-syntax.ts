/**
 * Character classes of HTTP header syntax (RFC 9110 §5.6.2 tchar, §11.2 token68, §5.6.4 qdtext / quoted-pair), for
 * the Authorization header parser.
 *
 * @internal
 * @module
 */

/** Class flag: an RFC 9110 §5.6.2 tchar. */
export const TCHAR: number = 1;
/** Class flag: a token68 character (RFC 9110 §11.2). */
export const TOKEN68: number = 2;
/** Class flag: may stand in a quoted-string (RFC 9110 §5.6.4). */
export const QUOTABLE: number = 4;
/** Space. */
export const SP: number = 0x20;
/** Horizontal tab. */
export const HTAB: number = 0x09;
/** Double quote. */
export const DQUOTE: number = 0x22;
/** Backslash. */
export const BACKSLASH: number = 0x5c;
/** Comma. */
export const COMMA: number = 0x2c;
/** Equals sign. */
export const EQUALS: number = 0x3d;

const CHAR_CLASSES: Uint8Array = buildCharClasses();

function buildCharClasses(): Uint8Array {
  const table = new Uint8Array(256);
  const tcharPunctuation = "!#$%&'*+-.^_`|~";
  const token68Punctuation = '-._~+/';
  for (let c = 0; c < 256; c++) {
    const alphanumeric = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
    const ch = String.fromCharCode(c);
    let flags = 0;
    if (alphanumeric || (c < 0x80 && tcharPunctuation.includes(ch))) flags |= TCHAR;
    if (alphanumeric || (c < 0x80 && token68Punctuation.includes(ch))) flags |= TOKEN68;
    if (c === HTAB || (c >= 0x20 && c <= 0x7e) || c >= 0x80) flags |= QUOTABLE;
    table[c] = flags;
  }
  return table;
}

/** The class flags of a character code (none above U+00FF). */
export function charClass(c: number): number {
  return c < 256 ? (CHAR_CLASSES[c] ?? 0) : 0;
}

/** Whether character code `c` has the class `flag`. */
export function hasClass(c: number, flag: number): boolean {
  return (charClass(c) & flag) !== 0;
}

/**
 * Whether `s` holds `word` (lowercase ASCII) at `at`, in any ASCII casing, compared code by code (no
 * allocation). Past the end of `s` `charCodeAt` is `NaN`, which equals nothing.
 */
export function hasWordAt(s: string, at: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) {
    const c = s.charCodeAt(at + k);
    const w = word.charCodeAt(k);
    if (c !== w && !(w >= 0x61 && w <= 0x7a && c === w - 0x20)) return false;
  }
  return true;
}

/** Whether `c` is SP or HTAB (RFC 9110 OWS). */
export function isWhitespace(c: number): boolean {
  return c === SP || c === HTAB;
}

/** Whether `value` is a token68 (RFC 9110 §11.2): `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`. */
export function isToken68(value: string): boolean {
  let i = 0;
  while (i < value.length && hasClass(value.charCodeAt(i), TOKEN68)) i++;
  if (i === 0) return false;
  while (i < value.length && value.charCodeAt(i) === EQUALS) i++;
  return i === value.length;
}

/** Whether every character may stand in a quoted-string, escaped or not (RFC 9110 §5.6.4). */
export function isQuotable(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    if (!hasClass(value.charCodeAt(i), QUOTABLE)) return false;
  }
  return true;
}
