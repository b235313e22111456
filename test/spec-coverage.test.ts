/**
 * Traceability: every numbered rule of the spec, and every section or provider block without numbered rules, is
 * named by at least one test of either package (DEVELOPERS.md: "every numbered rule in it must end up as code and
 * as a test that names the rule"). The entries are read from docs/spec-rules.md, the index that travels with the
 * repository, so a plain clone checks itself; where the spec is present (`../shared/spec`, in the team's
 * checkouts) the index is also checked against it, so a rule added to the spec and missing from the index, or a
 * citation deleted from a test, fails this file. The parsing is shared with test/spec-citations.test.ts
 * (test/spec-index.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  citationNames,
  parseEntryId,
  readCitations,
  readIndex,
  readSpecDirectory,
  readSpecEntries,
  type SpecEntry,
  universeOf,
} from './spec-index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const specDirectory = join(root, '..', 'shared', 'spec');
const indexPath = join(root, 'docs', 'spec-rules.md');

function listFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(directory, entry.name)) : [join(directory, entry.name)],
  );
}

const index = readIndex(readFileSync(indexPath, 'utf8'));
const indexed = index.rows.map((row) => row.entry);
const universe = universeOf(indexed);

/** Whether a text names an entry: one of its citations of gatehouse's spec names it. */
function names(text: string, entry: SpecEntry): boolean {
  return readCitations(text).some((citation) => citationNames(citation, entry, universe));
}

const testFiles = [join(root, 'test'), join(root, 'packages', 'server', 'test')]
  .flatMap(listFiles)
  .filter((file) => /\.tsx?$/u.test(file) && !file.endsWith('spec-coverage.test.ts') && !file.endsWith('spec-citations.test.ts'));
const testTexts = testFiles.map((file) => readFileSync(file, 'utf8'));

// `§` written as an escape where an example below names nothing of the spec, so that test/spec-citations.test.ts
// does not read it as a citation.
const S = '\u00a7';

const hasSpec = existsSync(specDirectory);
const SPEC_NOTE = hasSpec ? '' : ' [SKIPPED: ../shared/spec is absent in this checkout; the index alone is checked]';
if (!hasSpec) console.warn('test/spec-coverage: ../shared/spec is absent; docs/spec-rules.md is checked against the tests only');
const specEntries = hasSpec ? readSpecEntries(readSpecDirectory(specDirectory)) : [];

describe('spec coverage', () => {
  it('should read the rule index docs/spec-rules.md (a parser that finds none would make the next tests vacuous)', () => {
    expect(index.malformed).toStrictEqual([]);
    expect(indexed.length).toBeGreaterThan(50);
    expect(indexed.map((entry) => entry.ref)).toContain('§5.3 hosta rule 6');
    expect(indexed.map((entry) => entry.ref)).toContain('§5.5 rule 9');
    expect(indexed.map((entry) => entry.ref)).toContain('§8');
    expect(indexed.map((entry) => entry.ref)).toContain('§5.3 builtin');
    expect(new Set(indexed.map((entry) => entry.ref)).size).toBe(indexed.length);
    expect(testFiles.some((file) => file.includes(join('packages', 'server', 'test')))).toBe(true);
  });

  it('should recognise a citation and its ranges, and not a different rule', () => {
    const rule = parseEntryId('§5.4 rule 3');
    if (rule === null) throw new Error('unreadable id');
    expect(names("ref: '§5.4 rule 3'", rule)).toBe(true);
    expect(names("ref: '§5.4 rules 1–4'", rule)).toBe(true);
    expect(names("ref: '§5.4 rules 1, 3'", rule)).toBe(true);
    expect(names("ref: '§5.4 rules 1 and 3'", rule)).toBe(true);
    expect(names(`ref: '${S}5.4 rule 31'`, rule)).toBe(false);
    expect(names("ref: '§5.4 rules 4–5'", rule)).toBe(false);
    expect(names(`ref: '${S}5.3 rule 3'`, rule)).toBe(false);
  });

  it('should recognise a section or provider block without rules, in any of its written forms', () => {
    const limits = parseEntryId('§8');
    const builtin = parseEntryId('§5.3 builtin');
    const cloud = parseEntryId('§5.3 hostccloud');
    if (limits === null || builtin === null || cloud === null) throw new Error('unreadable id');
    expect(names('the limits of spec §8.', limits)).toBe(true);
    expect(names(`see ${S}8.1 of RFC 8259`, limits)).toBe(false);
    expect(names('(RFC 8259 §8)', limits)).toBe(false);
    expect(names('(§5.3 "Built-in")', builtin)).toBe(true);
    expect(names("ref: '§5.3 Built-in (redirect)'", builtin)).toBe(true);
    expect(names('(spec §5.3 `hostccloud`)', cloud)).toBe(true);
    expect(names('(spec §5.3 hostcserver)', cloud)).toBe(false);
  });

  it('should read entry ids and index rows, refusing what is not one', () => {
    expect(parseEntryId('§5.3 http-header rule 2')).toStrictEqual({ ref: '§5.3 http-header rule 2', section: '5.3', subject: 'http-header', number: 2 });
    expect(parseEntryId('§8')).toStrictEqual({ ref: '§8', section: '8', subject: null, number: null });
    expect(parseEntryId(`${S}5.3 rules 1–2`)).toBeNull();
    expect(readIndex('| §4 rule 1 | p | src/a.ts | test/a.test.ts |\n| §4 rule 2 | | src/a.ts | test/a.test.ts |\n| Rule | x |').malformed).toStrictEqual([
      '| §4 rule 2 | | src/a.ts | test/a.test.ts |',
    ]);
  });

  it('should read the spec: numbered rules by section and provider block, and the sections and blocks without any', () => {
    const spec = [
      '## 1. One',
      '- prose',
      '## 2. Two',
      '### 2.1 Sub',
      '1. a rule',
      '2. another',
      '### 2.2 Blocks',
      '**`alpha`**',
      '1. alpha rule',
      '**`beta`**: no rules here.',
      '**Built-in**: none either.',
    ].join('\n');
    expect(readSpecEntries(spec).map((entry) => entry.ref)).toStrictEqual([
      `${S}1`,
      `${S}2.1 rule 1`,
      `${S}2.1 rule 2`,
      `${S}2.2 alpha rule 1`,
      `${S}2.2 beta`,
      `${S}2.2 builtin`,
    ]);
  });

  it.each(index.rows.map((row) => ({ ref: row.entry.ref, row })))('should have a test that names $ref', ({ row }) => {
    expect(testTexts.some((text) => names(text, row.entry))).toBe(true);
  });

  it.each(index.rows.map((row) => ({ ref: row.entry.ref, row })))('should list existing files for $ref, its test file naming it', ({ row }) => {
    for (const path of [...row.modules, ...row.tests]) expect(existsSync(join(root, path)), path).toBe(true);
    expect(row.tests.some((path) => names(readFileSync(join(root, path), 'utf8'), row.entry))).toBe(true);
  });

  it.skipIf(!hasSpec)(`should index exactly the entries of the spec${SPEC_NOTE}`, () => {
    expect(specEntries.length).toBeGreaterThan(50);
    expect(indexed.map((entry) => entry.ref).sort()).toStrictEqual(specEntries.map((entry) => entry.ref).sort());
  });
});
