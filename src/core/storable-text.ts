/**
 * Text a database can hold. PostgreSQL's `text` and `jsonb` refuse U+0000 (NUL), and text with an unpaired UTF-16
 * surrogate has no UTF-8 form at all (a driver either refuses it or silently replaces it). Such text is refused
 * where it enters, before anything is stored or decided on it. Every other character, control characters included,
 * is storable.
 *
 * @module
 */

/**
 * Why a text cannot be stored, and where.
 *
 * @example
 * ```ts
 * const found: UnstorableText = { index: 1, problem: 'nul' };
 * ```
 */
export interface UnstorableText {
  /** The index (in UTF-16 code units) of the first character that cannot be stored. */
  readonly index: number;
  /** `nul`: U+0000; `unpaired_surrogate`: a high surrogate not followed by a low one, or a low one alone. */
  readonly problem: 'nul' | 'unpaired_surrogate';
}

/**
 * The first character of `text` a database cannot hold: U+0000, or a UTF-16 surrogate that is not half of a
 * pair. Linear in the length of `text`; never throws.
 *
 * @param text - Any string.
 * @returns Where the first such character is, or `null` when `text` can be stored as it is.
 * @example
 * ```ts
 * findUnstorableText('a\u0000b'); // { index: 1, problem: 'nul' }
 * findUnstorableText('a\ud800b'); // { index: 1, problem: 'unpaired_surrogate' }
 * findUnstorableText('😀\u0001'); // null (a surrogate pair and a control character are fine)
 * ```
 */
export function findUnstorableText(text: string): UnstorableText | null {
  if (typeof text !== 'string') return null;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0) return { index: i, problem: 'nul' };
    if (unit < 0xd800 || unit > 0xdfff) continue;
    if (unit <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    return { index: i, problem: 'unpaired_surrogate' };
  }
  return null;
}

/**
 * Whether a database can hold `text` as it is ({@link findUnstorableText} finds nothing).
 *
 * @param text - Any string.
 * @returns `true` when `text` holds no U+0000 and no unpaired surrogate.
 * @example
 * ```ts
 * isStorableText('café'); // true
 * isStorableText('\ud83d'); // false
 * ```
 */
export function isStorableText(text: string): boolean {
  return findUnstorableText(text) === null;
}

/**
 * The path of the first string in a JSON value (an object key or a string value, at any depth) that a database
 * cannot hold: `name`, `input.emails[2]`, or `''` for the value itself; a key that cannot be stored is named by the
 * path of the object holding it. Walks without recursion, so a deeply nested value costs no stack; a value with
 * cycles is walked once per object.
 *
 * @param value - A value parsed from JSON (objects, arrays, strings, numbers, booleans, `null`).
 * @returns The path, or `null` when every string in it can be stored.
 * @example
 * ```ts
 * findUnstorableValue({ input: { note: 'a\u0000b' } }); // 'input.note'
 * findUnstorableValue(['ok', 'x\udc00']); // '[1]'
 * findUnstorableValue({ ok: ['fine'] }); // null
 * ```
 */
export function findUnstorableValue(value: unknown): string | null {
  const seen = new Set<object>();
  const stack: { readonly value: unknown; readonly path: string }[] = [{ value, path: '' }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const current = item.value;
    if (typeof current === 'string') {
      if (findUnstorableText(current) !== null) return item.path;
      continue;
    }
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    const entries: [string, unknown][] = Array.isArray(current)
      ? current.map((v: unknown, i): [string, unknown] => [`${item.path}[${i}]`, v])
      : Object.entries(current).map(([k, v]): [string, unknown] => [item.path === '' ? k : `${item.path}.${k}`, v]);
    // a key that cannot be stored is named by the object holding it (the key itself is not repeated back)
    if (!Array.isArray(current) && Object.keys(current).some((key) => findUnstorableText(key) !== null)) return item.path;
    // pushed in reverse so the first entry is looked at first: the path named is the first in document order
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i];
      if (entry !== undefined) stack.push({ value: entry[1], path: entry[0] });
    }
  }
  return null;
}
