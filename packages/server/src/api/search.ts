/**
 * The default `search` of the server: counts literal matches of the query in the files of a directory
 * (spec §2.2 `search(query: String!) { results { matchCount } }`). Hosts with a real index pass their own.
 *
 * @module
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What a search answers.
 *
 * @example
 * ```ts
 * const r: SearchResults = { matchCount: 3 };
 * ```
 */
export interface SearchResults {
  /** How many matches the query has. */
  readonly matchCount: number;
}

/**
 * A search function a host supplies to the server.
 *
 * @example
 * ```ts
 * const search: SearchFunction = async (query) => ({ matchCount: query.length });
 * ```
 */
export type SearchFunction = (query: string) => Promise<SearchResults>;

/**
 * Counts the non-overlapping occurrences of `needle` in `haystack` (an empty needle matches nothing).
 *
 * @param haystack - The text searched.
 * @param needle - The literal searched for.
 * @returns The number of matches.
 *
 * @example
 * ```ts
 * countLiteralMatches('aaaa', 'aa'); // 2
 * countLiteralMatches('abc', ''); // 0
 * ```
 */
export function countLiteralMatches(haystack: string, needle: string): number {
  if (needle === '') return 0;
  let count = 0;
  let from = 0;
  for (;;) {
    const at = haystack.indexOf(needle, from);
    if (at < 0) return count;
    count++;
    from = at + needle.length;
  }
}

/**
 * Limits of {@link createDirectorySearch}.
 *
 * @example
 * ```ts
 * const limits: DirectorySearchOptions = { maxFiles: 1000, maxFileBytes: 1 << 20 };
 * ```
 */
export interface DirectorySearchOptions {
  /** Stop after this many files (default 10,000). */
  readonly maxFiles?: number;
  /** Skip files larger than this (default 1 MiB). */
  readonly maxFileBytes?: number;
}

/**
 * A search over the files of a directory (recursively; dot-entries, `node_modules` and symbolic links are
 * skipped): the match count is the sum of {@link countLiteralMatches} over the files' UTF-8 text.
 *
 * @param directory - The directory to search, or `null` for a search that never matches.
 * @param options - Limits on files read.
 * @returns The search function.
 *
 * @example
 * ```ts
 * const search = createDirectorySearch('/srv/code');
 * (await search('TODO')).matchCount; // e.g. 12
 * ```
 */
export function createDirectorySearch(directory: string | null, options: DirectorySearchOptions = {}): SearchFunction {
  const maxFiles = options.maxFiles ?? 10_000;
  const maxFileBytes = options.maxFileBytes ?? 1024 * 1024;
  return async (query) => {
    if (directory === null || query === '') return { matchCount: 0 };
    let matchCount = 0;
    let files = 0;
    const pending = [directory];
    while (pending.length > 0 && files < maxFiles) {
      const dir = pending.pop();
      if (dir === undefined) break;
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) pending.push(path);
        else if (entry.isFile() && files < maxFiles) {
          files++;
          try {
            if ((await stat(path)).size > maxFileBytes) continue;
            matchCount += countLiteralMatches(await readFile(path, 'utf8'), query);
          } catch {
            // unreadable file: not counted
          }
        }
      }
    }
    return { matchCount };
  };
}
