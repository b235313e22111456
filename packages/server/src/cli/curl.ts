/**
 * The `curl` command equivalent to a `gatehouse api` request, with POSIX shell quoting that is safe for any text.
 *
 * @module
 */

/**
 * Quotes one argument for a POSIX shell (`sh`, `bash`, `zsh`, `dash`): the whole value in single
 * quotes, each `'` written as `'\''` (close, escaped quote, reopen). Inside single quotes no
 * character is special (POSIX XCU §2.2.2), so `$`, backticks, `\`, `"`, `!`, newlines and every
 * other character reach the program unchanged. NUL cannot occur in an argument at all; it is the
 * caller's to exclude.
 *
 * @param value - Any text.
 * @returns The quoted word; `sh -c "printf %s <word>"` prints exactly `value`.
 * @example
 * ```ts
 * quoteShellArgument("it's");  // "'it'\\''s'"
 * quoteShellArgument('');      // "''"
 * ```
 */
export function quoteShellArgument(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Reads back one word that {@link quoteShellArgument} wrote (for tests and tools): the inverse on
 * its image, `null` for anything it cannot have written.
 *
 * @param word - A quoted word.
 * @returns The original value, or `null`.
 * @example
 * ```ts
 * unquoteShellArgument("'it'\\''s'"); // "it's"
 * ```
 */
export function unquoteShellArgument(word: string): string | null {
  if (word.length < 2 || !word.startsWith("'") || !word.endsWith("'")) return null;
  const parts = word.slice(1, -1).split(`'\\''`);
  return parts.some((p) => p.includes("'")) ? null : parts.join("'");
}

/**
 * The request to write as a `curl` command.
 *
 * @example
 * ```ts
 * const request: CurlRequest = {
 *   url: 'http://localhost:3080/.api/graphql',
 *   headers: [['Authorization', 'token gat_…'], ['Content-Type', 'application/json']],
 *   body: '{"query":"{ currentUser { username } }","variables":{}}',
 * };
 * ```
 */
export interface CurlRequest {
  /** The absolute URL. */
  readonly url: string;
  /** Header names and values, in order; values must not contain CR or LF. */
  readonly headers: readonly (readonly [string, string])[];
  /** The POST body, sent as it is. */
  readonly body: string;
}

/**
 * Writes the `curl` command that sends `request` as a POST:
 * `curl -s --globoff -H '<name>: <value>' … --data-raw '<body>' --url '<url>'`, every variable part quoted
 * with {@link quoteShellArgument}. `-s` prints only the answer (no progress meter), as `src api -get-curl`
 * does. Each option is chosen so that curl takes the text literally, whatever it holds: `--data-raw` never reads a file (`-d` does when the body starts with `@`), `--url` never takes
 * the URL for an option (a bare word starting with `-` would be one), and `--globoff` turns off
 * curl's URL globbing of `[…]` and `{…}` (an IPv6 host such as `[::1]` would otherwise be a pattern).
 *
 * @param request - URL, headers and body.
 * @returns One line of shell (several lines only if a header or the body holds a newline, inside its quotes).
 * @example
 * ```ts
 * buildCurlCommand({ url: 'http://h/.api/graphql', headers: [['Authorization', 'token t']], body: '{"query":"{ a }"}' });
 * // `curl -s --globoff -H 'Authorization: token t' --data-raw '{"query":"{ a }"}' --url 'http://h/.api/graphql'`
 * ```
 */
export function buildCurlCommand(request: CurlRequest): string {
  const words = ['curl', '-s', '--globoff'];
  for (const [name, value] of request.headers) words.push('-H', quoteShellArgument(`${name}: ${value}`));
  words.push('--data-raw', quoteShellArgument(request.body), '--url', quoteShellArgument(request.url));
  return words.join(' ');
}
