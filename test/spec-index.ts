/**
 * The spec's index, shared by test/spec-coverage.test.ts and test/spec-citations.test.ts: what the spec holds (its
 * numbered rules, and its sections and §5.3 provider blocks that have none), read from the spec itself or from
 * docs/spec-rules.md, the copy that travels with the repository; and the `§` citations a text makes.
 *
 * An entry's id is the form a test cites it by: `§5.1 rule 4`, `§5.3 hosta rule 6` for a numbered rule; `§8`,
 * `§5.3 hostccloud` for a section or provider block without numbered rules. The provider block "**Built-in**" has
 * the id `builtin` (cited as `§5.3 "Built-in"`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A numbered rule of the spec, or a section or §5.3 provider block that has no numbered rules. */
export interface SpecEntry {
  readonly ref: string;
  readonly section: string;
  readonly subject: string | null;
  /** The rule's number; `null` for a section or provider block without numbered rules. */
  readonly number: number | null;
}

/** Builds the entry for an id's parts, with the id in its one written form. */
function entry(section: string, subject: string | null, number: number | null): SpecEntry {
  const ref = `§${section}${subject === null ? '' : ` ${subject}`}${number === null ? '' : ` rule ${number}`}`;
  return { ref, section, subject, number };
}

/** A provider block's name as an id: lower case, `Built-in` as `builtin`. */
export function canonicalSubject(name: string): string {
  const lower = name.toLowerCase();
  return lower === 'built-in' ? 'builtin' : lower;
}

/**
 * Reads the spec's entries. Numbered rules are lines `N. …` under a `## x` or `### x.y` heading; inside §5.3
 * they belong to the provider block opened by the last bold `**name**` line. A heading or provider block with no
 * numbered rules is an entry of its own, unless it only holds subsections or provider blocks (§2, §5, §5.3).
 */
export function readSpecEntries(spec: string): SpecEntry[] {
  const blocks: { section: string; subject: string | null; numbers: number[] }[] = [];
  let current: (typeof blocks)[number] | null = null;
  for (const line of spec.split('\n')) {
    const heading = /^#{2,3} (\d+(?:\.\d+)?)\.? /u.exec(line);
    if (heading?.[1] !== undefined) {
      current = { section: heading[1], subject: null, numbers: [] };
      blocks.push(current);
      continue;
    }
    const bold = /^\*\*`?([A-Za-z-]+)`?\*\*/u.exec(line);
    if (bold?.[1] !== undefined && current !== null) {
      current = { section: current.section, subject: canonicalSubject(bold[1]), numbers: [] };
      blocks.push(current);
      continue;
    }
    const numbered = /^(\d+)\. /u.exec(line);
    if (numbered?.[1] !== undefined && current !== null) current.numbers.push(Number(numbered[1]));
  }
  const entries: SpecEntry[] = [];
  for (const block of blocks) {
    if (block.numbers.length > 0) {
      for (const number of block.numbers) entries.push(entry(block.section, block.subject, number));
      continue;
    }
    const parent =
      block.subject === null &&
      blocks.some((other) => other.section.startsWith(`${block.section}.`) || (other.section === block.section && other.subject !== null));
    if (!parent) entries.push(entry(block.section, block.subject, null));
  }
  return entries;
}

/** Reads the spec's text from its directory (every `.txt` file, in name order). */
export function readSpecDirectory(directory: string): string {
  return readdirSync(directory)
    .filter((name) => name.endsWith('.txt'))
    .sort()
    .map((name) => readFileSync(join(directory, name), 'utf8'))
    .join('\n');
}

/** Reads an entry id (`§5.1 rule 4`, `§5.3 http-header rule 2`, `§8`, `§5.3 hostccloud`), or `null`. */
export function parseEntryId(id: string): SpecEntry | null {
  const m = /^§(\d+(?:\.\d+)?)(?: ([a-z][a-z-]*))?(?: rule (\d+))?$/u.exec(id);
  if (m?.[1] === undefined) return null;
  return entry(m[1], m[2] ?? null, m[3] === undefined ? null : Number(m[3]));
}

/** One row of docs/spec-rules.md. */
export interface IndexRow {
  readonly entry: SpecEntry;
  readonly paraphrase: string;
  readonly modules: readonly string[];
  readonly tests: readonly string[];
}

/** Reads the table rows of the index whose first cell starts with `§`; a malformed row is kept as an error. */
export function readIndex(text: string): { rows: IndexRow[]; malformed: string[] } {
  const rows: IndexRow[] = [];
  const malformed: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('| §')) continue;
    const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
    const parsed = parseEntryId(cells[0] ?? '');
    const list = (cell: string | undefined): string[] => (cell ?? '').split(', ').filter((path) => path !== '');
    if (cells.length !== 4 || parsed === null || (cells[1] ?? '') === '' || list(cells[2]).length === 0 || list(cells[3]).length === 0) {
      malformed.push(line);
      continue;
    }
    rows.push({ entry: parsed, paraphrase: cells[1] ?? '', modules: list(cells[2]), tests: list(cells[3]) });
  }
  return { rows, malformed };
}

/** What citations are checked against: the sections, each section's provider blocks, and each block's rules. */
export interface SpecUniverse {
  readonly sections: ReadonlySet<string>;
  readonly subjects: ReadonlyMap<string, ReadonlySet<string>>;
  /** Rule numbers by `section|subject` (`5.4|`, `5.3|hosta`). */
  readonly rules: ReadonlyMap<string, ReadonlySet<number>>;
}

/** The universe of a list of entries; a section's parents exist too (§2.1 gives §2). */
export function universeOf(entries: readonly SpecEntry[]): SpecUniverse {
  const sections = new Set<string>();
  const subjects = new Map<string, Set<string>>();
  const rules = new Map<string, Set<number>>();
  for (const { section, subject, number } of entries) {
    const parts = section.split('.');
    for (let i = 1; i <= parts.length; i += 1) sections.add(parts.slice(0, i).join('.'));
    if (subject !== null) subjects.set(section, (subjects.get(section) ?? new Set()).add(subject));
    if (number !== null) {
      const key = `${section}|${subject ?? ''}`;
      rules.set(key, (rules.get(key) ?? new Set()).add(number));
    }
  }
  return { sections, subjects, rules };
}

/** A `§` citation of gatehouse's spec, as written in a text. */
export interface Citation {
  /** The citation as written, from `§` to its last rule number (`§5.3 \`hosta\` rules 4–6`). */
  readonly text: string;
  /** Where the `§` stands in the text (UTF-16 index). */
  readonly offset: number;
  /** The section it names (`5.3`). */
  readonly section: string;
  /** The word after the section, as an id (`hosta`, `builtin`), or `null`. */
  readonly word: string | null;
  /** Whether that word is quoted (`` `hosta` ``, `"Built-in"`), which makes it a provider block's name. */
  readonly quoted: boolean;
  /** The rules it names, as inclusive ranges (`rules 1 and 3` gives `[[1, 1], [3, 3]]`), or `null` for none. */
  readonly rules: readonly (readonly [number, number])[] | null;
  /** Whether `rule`/`rules` follows the word (`§5.3 hosta rule 2`), which makes the word a provider block. */
  readonly wordBeforeRules: boolean;
}

/** Space between the parts of a citation: blanks, or a line break that a comment's prose goes on after. */
const SP = String.raw`(?:[ \t]|\r?\n[ \t]*(?:\*(?!\/)|\/\/)?)+`;
/** One number or range of a rule list: `3`, `4–6`, `4-6`. */
const ITEM = String.raw`\d{1,3}(?:[ \t]*[–-][ \t]*\d{1,3})?`;
/** The rule list after `rule`/`rules`: numbers and ranges joined by `,`, `, and`, `and`, `or`, `&`, `/`. */
const RULE_LIST = String.raw`rules?${SP}(${ITEM}(?:(?:[ \t]*,(?:${SP})?(?:and${SP})?|${SP}(?:and|or)${SP}|[ \t]*[&/][ \t]*)${ITEM})*)(?!\d)`;
const WORD = String.raw`(?:\x60([A-Za-z][\w-]*)\x60|"([A-Za-z][\w-]*)"|([A-Za-z][\w-]*))`;
const WITH_WORD = new RegExp(String.raw`^${SP}${WORD}(?:${SP}${RULE_LIST})?`, 'u');
const RULES_ONLY = new RegExp(String.raw`^${SP}\(?${RULE_LIST}`, 'u');

/** Reads `1, 3`, `4–6`, `1 and 3` into ranges. */
function readRuleList(list: string): [number, number][] {
  return list
    .split(/,|\band\b|\bor\b|&|\//u)
    .map((part) => part.replace(/[^\d–-]/gu, ''))
    .filter((part) => part !== '')
    .map((part) => {
      const [low = '', high] = part.split(/[–-]/u);
      return [Number(low), Number(high ?? low)];
    });
}

/**
 * What the scan stops at: another document's name (`RFC 6749`, `GraphQL spec`, `GraphQL §`, `POSIX XCU`,
 * `STYLE §`), the word `spec`, a `§` and its section, a parenthesis, the end of a sentence, a line break.
 */
const TOKEN = /RFC[ \t]?\d+|GraphQL[ \t]+spec\b|GraphQL(?=[ \t]+§)|POSIX(?:[ \t]+XCU)?|STYLE(?:\.md)?(?=[ \t]+§)|\bspec\b|§(\d+(?:\.\d+)*)|[()]|\.(?=\s|$)|\n/giu;

/**
 * Reads the citations of gatehouse's spec in a text. A `§` in the context of another document (`RFC 6749 §4.1.2`,
 * `RFC 6749 §3.2, §4.1.3, §6`, `GraphQL spec §2.1.9`, `POSIX XCU §2.2.3`, the style guide's `STYLE §4`) is not
 * one, unless it names a rule (`rule N`), which only gatehouse's spec has; the word `spec` returns to gatehouse's
 * spec. Another document's context ends with its sentence, with the parenthesis it was named in, or with its line
 * unless the next line goes on with the same prose (a comment's next line; in Markdown, a line that is not blank).
 *
 * @param text - A file's text.
 * @param options - `markdown`: the text is Markdown, whose paragraphs run over lines.
 * @returns The citations, in order.
 */
export function readCitations(text: string, options: { readonly markdown?: boolean } = {}): Citation[] {
  // A comment's prose goes on over the next line when that line continues the comment; Markdown's, until a blank line.
  const continues = options.markdown === true ? /^[ \t]*\S/u : /^[ \t]*(?:\*(?!\/)|\/\/|--)/u;
  const citations: Citation[] = [];
  let foreign = false;
  let depth = 0;
  let foreignDepth = 0;
  for (const match of text.matchAll(TOKEN)) {
    const token = match[0];
    const at = match.index;
    if (match[1] !== undefined) {
      const end = at + token.length;
      const rest = text.slice(end, end + 120);
      const withWord = WITH_WORD.exec(rest);
      const rulesOnly = RULES_ONLY.exec(rest);
      let citation: Citation;
      if (withWord !== null && withWord[4] !== undefined) {
        const word = withWord[1] ?? withWord[2] ?? withWord[3] ?? '';
        citation = {
          text: token + withWord[0],
          offset: at,
          section: match[1],
          word: canonicalSubject(word),
          quoted: withWord[3] === undefined,
          rules: readRuleList(withWord[4]),
          wordBeforeRules: true,
        };
      } else if (rulesOnly?.[1] !== undefined) {
        citation = {
          text: token + rulesOnly[0],
          offset: at,
          section: match[1],
          word: null,
          quoted: false,
          rules: readRuleList(rulesOnly[1]),
          wordBeforeRules: false,
        };
      } else {
        const word = withWord === null ? null : (withWord[1] ?? withWord[2] ?? withWord[3] ?? null);
        const quoted = withWord !== null && withWord[3] === undefined;
        citation = {
          text: quoted && withWord !== null ? token + withWord[0] : token,
          offset: at,
          section: match[1],
          word: word === null ? null : canonicalSubject(word),
          quoted,
          rules: null,
          wordBeforeRules: false,
        };
      }
      if (!foreign || citation.rules !== null) citations.push(citation);
      continue;
    }
    if (token === '(') {
      depth += 1;
    } else if (token === ')') {
      depth = Math.max(0, depth - 1);
      if (depth < foreignDepth) foreign = false;
    } else if (token === '.') {
      foreign = false;
    } else if (token === '\n') {
      if (!continues.test(text.slice(at + 1, at + 40))) {
        foreign = false;
        depth = 0;
      }
    } else if (/^spec$/iu.test(token)) {
      foreign = false;
    } else {
      foreign = true;
      foreignDepth = depth;
    }
  }
  return citations;
}

/** The provider block a citation names, or `null`: a word before `rule`, a quoted word, or a block's own name. */
export function subjectOf(citation: Citation, universe: SpecUniverse): string | null {
  if (citation.word === null) return null;
  if (citation.wordBeforeRules) return citation.word;
  const blocks = universe.subjects.get(citation.section);
  if (blocks === undefined) return null;
  return citation.quoted || blocks.has(citation.word) ? citation.word : null;
}

/** Why a citation names nothing of the spec, or `null` when it names a section, a provider block or its rules. */
export function checkCitation(citation: Citation, universe: SpecUniverse): string | null {
  const { section } = citation;
  if (!universe.sections.has(section)) return `the spec has no section §${section}`;
  const subject = subjectOf(citation, universe);
  if (subject !== null && !(universe.subjects.get(section)?.has(subject) ?? false)) return `§${section} has no provider block "${subject}"`;
  if (citation.rules === null) return null;
  const where = `§${section}${subject === null ? '' : ` ${subject}`}`;
  const numbers = universe.rules.get(`${section}|${subject ?? ''}`);
  if (numbers === undefined) return `${where} has no numbered rules`;
  for (const [low, high] of citation.rules) {
    if (high < low) return `${where} rules ${low}–${high} is an empty range`;
    for (let n = low; n <= high; n += 1) if (!numbers.has(n)) return `${where} has no rule ${n}`;
  }
  return null;
}

/** Whether a citation names an entry: its section and provider block, and (for a rule) a range holding its number. */
export function citationNames(citation: Citation, target: SpecEntry, universe: SpecUniverse): boolean {
  if (citation.section !== target.section || subjectOf(citation, universe) !== target.subject) return false;
  if (target.number === null) return true;
  const { number } = target;
  return citation.rules?.some(([low, high]) => number >= low && number <= high) ?? false;
}

