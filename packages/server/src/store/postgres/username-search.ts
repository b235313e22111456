/**
 * The `LIKE` patterns of Site admin's username substring search on PostgreSQL, in the order the trigram index
 * (migration 6) does least work with.
 *
 * `pg_trgm` splits text into words at every character that is not a letter or digit, and a `LIKE '%…%'` index scan
 * is one GIN key whose candidates are the items of its rarest trigram, each checked by stepping through every
 * other trigram's posting list. A trigram that nearly every username holds (a word all of them share, as `member`
 * in `member-<n>-<hex>`) makes that check read its whole posting list. A whole word of the query (letters and
 * digits with a separator on each side) holds the trigrams padded on both sides, usually the rarest; written first
 * as its own pattern it is a GIN key of its own, and the GIN scan checks the full pattern only on that key's matches.
 * The word's pattern is a substring of the full one, so the answer is the full pattern's, exactly.
 *
 * @module
 */

/** A letter or digit of any script: what `pg_trgm` keeps in a word (under a UTF-8 locale; fewer under `C`). */
const WORD_CHARACTER = /[\p{L}\p{N}]/u;

/**
 * `text` with LIKE's wildcards and its escape character escaped, for `LIKE … ESCAPE '\\'`.
 *
 * @example
 * ```ts
 * likeLiteral('50%_off'); // '50\\%\\_off'
 * ```
 */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The longest whole word of `key` with the separator on each side (the first of the longest), or `null` when no word
 * has a separator on both sides.
 *
 * @param key - The query's username key.
 * @returns A substring of `key`, or `null`.
 * @example
 * ```ts
 * wholeWordOf('member-555-'); // '-555-'
 * wholeWordOf('member-555'); // null
 * ```
 */
export function wholeWordOf(key: string): string | null {
  const characters = [...key];
  let best: string | null = null;
  let bestLength = 0;
  let start = -1;
  characters.forEach((c, i) => {
    if (WORD_CHARACTER.test(c)) {
      if (start < 0) start = i;
      return;
    }
    // a separator: the word before it is whole when a separator also precedes it
    if (start > 0 && i - start > bestLength) {
      best = characters.slice(start - 1, i + 1).join('');
      bestLength = i - start;
    }
    start = -1;
  });
  return best;
}

/**
 * The patterns whose conjunction a username key must match to hold `key`: the longest whole word of `key` first
 * when it has one (and is not all of it), then `key` itself; each `%…%` with LIKE's wildcards escaped.
 *
 * @param key - The query's username key.
 * @returns One or two patterns; a key holds `key` exactly when it matches them all.
 * @example
 * ```ts
 * usernameSubstringPatterns('member-555-'); // ['%-555-%', '%member-555-%']
 * usernameSubstringPatterns('ali_ce'); // ['%ali\\_ce%']
 * ```
 */
export function usernameSubstringPatterns(key: string): readonly string[] {
  const full = `%${likeLiteral(key)}%`;
  const word = wholeWordOf(key);
  return word === null || word === key ? [full] : [`%${likeLiteral(word)}%`, full];
}
