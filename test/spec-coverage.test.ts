/**
 * Traceability: every numbered rule of the spec is named by at least one test (DEVELOPERS.md: "every numbered rule
 * in it must end up as code and as a test that names the rule"). The rules are read from docs/spec-rules.md, the
 * index that travels with the repository, so a plain clone checks itself; where the spec is present
 * (`../shared/spec`, in the team's checkouts) the index is also checked against it, so a rule added to the spec and
 * missing from the index, or a citation deleted from a test, fails this file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const specDirectory = join(root, '..', 'shared', 'spec');
const indexPath = join(root, 'docs', 'spec-rules.md');

/** A rule of the spec, as a test names it: `§5.1 rule 4`, `§5.3 hosta rule 6`. */
interface SpecRule {
  readonly ref: string;
  readonly section: string;
  readonly subject: string | null;
  readonly number: number;
}

/**
 * Reads the numbered rules: lines `N. …` under a `### x.y` or `## x` heading; inside §5.3 they belong to the
 * provider named by the last bold `**name**` line. Rules of a spec table (§8) have no numbers and are covered by
 * their own tests in test/core/query-limits.test.ts.
 */
function readRules(spec: string): SpecRule[] {
  const rules: SpecRule[] = [];
  let section = '';
  let subject: string | null = null;
  for (const line of spec.split('\n')) {
    const heading = /^#{2,3} (\d+(?:\.\d+)?)\.? /u.exec(line);
    if (heading?.[1] !== undefined) {
      section = heading[1];
      subject = null;
      continue;
    }
    const bold = /^\*\*`?([A-Za-z-]+)`?\*\*/u.exec(line);
    if (bold?.[1] !== undefined) {
      subject = bold[1] === 'Built-in' ? 'builtin' : bold[1];
      continue;
    }
    const numbered = /^(\d+)\. /u.exec(line);
    if (numbered?.[1] !== undefined && section !== '') {
      const number = Number(numbered[1]);
      const ref = subject === null ? `§${section} rule ${number}` : `§${section} ${subject} rule ${number}`;
      rules.push({ ref, section, subject, number });
    }
  }
  return rules;
}

function listFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(directory, entry.name)) : [join(directory, entry.name)],
  );
}

/**
 * Whether a test text names the rule: `§5.3 hosta rule 6`, or a list or range such as `§5.3 hosta rules 4–6`,
 * `§5.4 rules 1, 3`.
 */
function names(text: string, rule: SpecRule): boolean {
  const prefix = rule.subject === null ? `§${rule.section} ` : `§${rule.section} ${rule.subject} `;
  let from = text.indexOf(prefix);
  while (from !== -1) {
    const rest = text.slice(from + prefix.length, from + prefix.length + 40);
    const single = /^rule (\d+)(?!\d)/u.exec(rest);
    if (single?.[1] !== undefined && Number(single[1]) === rule.number) return true;
    const list = /^rules ((?:\d+\s*(?:[–-]\s*\d+)?\s*(?:,|and)?\s*)+)/u.exec(rest);
    if (list?.[1] !== undefined) {
      for (const part of list[1].split(/,|and/u)) {
        const [low, high] = part.split(/[–-]/u).map((s) => Number(s.trim()));
        if (low !== undefined && rule.number >= low && rule.number <= (high ?? low)) return true;
      }
    }
    from = text.indexOf(prefix, from + 1);
  }
  return false;
}

/** One row of docs/spec-rules.md. */
interface IndexRow {
  readonly rule: SpecRule;
  readonly paraphrase: string;
  readonly modules: readonly string[];
  readonly tests: readonly string[];
}

/** Reads a rule id as tests cite it (`§5.1 rule 4`, `§5.3 http-header rule 2`), or `null`. */
function parseRuleId(id: string): SpecRule | null {
  const m = /^§(\d+(?:\.\d+)?) (?:([A-Za-z-]+) )?rule (\d+)$/u.exec(id);
  if (m?.[1] === undefined || m[3] === undefined) return null;
  return { ref: id, section: m[1], subject: m[2] ?? null, number: Number(m[3]) };
}

/** Reads the table rows of the index whose first cell starts with `§`; a malformed row is kept as an error. */
function readIndex(text: string): { rows: IndexRow[]; malformed: string[] } {
  const rows: IndexRow[] = [];
  const malformed: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('| §')) continue;
    const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
    const rule = parseRuleId(cells[0] ?? '');
    const list = (cell: string | undefined): string[] => (cell ?? '').split(', ').filter((path) => path !== '');
    if (cells.length !== 4 || rule === null || (cells[1] ?? '') === '' || list(cells[2]).length === 0 || list(cells[3]).length === 0) {
      malformed.push(line);
      continue;
    }
    rows.push({ rule, paraphrase: cells[1] ?? '', modules: list(cells[2]), tests: list(cells[3]) });
  }
  return { rows, malformed };
}

const index = readIndex(readFileSync(indexPath, 'utf8'));
const indexed = index.rows.map((row) => row.rule);
const testFiles = listFiles(join(root, 'test')).filter((file) => file.endsWith('.ts') && !file.endsWith('spec-coverage.test.ts'));
const testText = testFiles.map((file) => readFileSync(file, 'utf8')).join('\n');

const hasSpec = existsSync(specDirectory);
const SPEC_NOTE = hasSpec ? '' : ' [SKIPPED: ../shared/spec is absent in this checkout; the index alone is checked]';
if (!hasSpec) console.warn('test/spec-coverage: ../shared/spec is absent; docs/spec-rules.md is checked against the tests only');
const specRules = hasSpec
  ? readRules(
      readdirSync(specDirectory)
        .filter((name) => name.endsWith('.txt'))
        .map((name) => readFileSync(join(specDirectory, name), 'utf8'))
        .join('\n'),
    )
  : [];

describe('spec coverage', () => {
  it('should read the rule index docs/spec-rules.md (a parser that finds none would make the next tests vacuous)', () => {
    expect(index.malformed).toStrictEqual([]);
    expect(indexed.length).toBeGreaterThan(50);
    expect(indexed.map((rule) => rule.ref)).toContain('§5.3 hosta rule 6');
    expect(indexed.map((rule) => rule.ref)).toContain('§5.5 rule 9');
    expect(new Set(indexed.map((rule) => rule.ref)).size).toBe(indexed.length);
  });

  it('should recognise a citation and its ranges, and not a different rule', () => {
    const rule: SpecRule = { ref: '§5.4 rule 3', section: '5.4', subject: null, number: 3 };
    expect(names("ref: '§5.4 rule 3'", rule)).toBe(true);
    expect(names("ref: '§5.4 rules 1–4'", rule)).toBe(true);
    expect(names("ref: '§5.4 rules 1, 3'", rule)).toBe(true);
    expect(names("ref: '§5.4 rule 31'", rule)).toBe(false);
    expect(names("ref: '§5.4 rules 4–5'", rule)).toBe(false);
  });

  it('should read rule ids and index rows, refusing what is not one', () => {
    expect(parseRuleId('§5.3 http-header rule 2')).toStrictEqual({ ref: '§5.3 http-header rule 2', section: '5.3', subject: 'http-header', number: 2 });
    expect(parseRuleId('§5.3 rules 1–2')).toBeNull();
    expect(readIndex('| §4 rule 1 | p | src/a.ts | test/a.test.ts |\n| §4 rule 2 | | src/a.ts | test/a.test.ts |\n| Rule | x |').malformed).toStrictEqual([
      '| §4 rule 2 | | src/a.ts | test/a.test.ts |',
    ]);
  });

  it.each(index.rows.map((row) => ({ ref: row.rule.ref, row })))('should have a test that names $ref', ({ row }) => {
    expect(names(testText, row.rule)).toBe(true);
  });

  it.each(index.rows.map((row) => ({ ref: row.rule.ref, row })))('should list existing files for $ref, its test file naming it', ({ row }) => {
    for (const path of [...row.modules, ...row.tests]) expect(existsSync(join(root, path)), path).toBe(true);
    expect(row.tests.some((path) => names(readFileSync(join(root, path), 'utf8'), row.rule))).toBe(true);
  });

  it.skipIf(!hasSpec)(`should index exactly the numbered rules of the spec${SPEC_NOTE}`, () => {
    expect(specRules.length).toBeGreaterThan(50);
    expect(indexed.map((rule) => rule.ref).sort()).toStrictEqual(specRules.map((rule) => rule.ref).sort());
  });
});
