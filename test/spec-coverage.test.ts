/**
 * Traceability: every numbered rule of the spec is named by at least one test (DEVELOPERS.md: "every numbered rule
 * in it must end up as code and as a test that names the rule"). The rules are read from the spec itself, so a rule
 * added to the spec, or a citation deleted from a test, fails this file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const specDirectory = join(root, '..', 'shared', 'spec');

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

const specFiles = readdirSync(specDirectory).filter((name) => name.endsWith('.txt'));
const spec = specFiles.map((name) => readFileSync(join(specDirectory, name), 'utf8')).join('\n');
const rules = readRules(spec);
const testFiles = listFiles(join(root, 'test')).filter((file) => file.endsWith('.ts') && !file.endsWith('spec-coverage.test.ts'));
const testText = testFiles.map((file) => readFileSync(file, 'utf8')).join('\n');

describe('spec coverage', () => {
  it('should read the numbered rules of the spec (a parser that finds none would make the next test vacuous)', () => {
    expect(rules.length).toBeGreaterThan(50);
    expect(rules.map((rule) => rule.ref)).toContain('§5.3 hosta rule 6');
    expect(rules.map((rule) => rule.ref)).toContain('§5.5 rule 9');
  });

  it('should recognise a citation and its ranges, and not a different rule', () => {
    const rule: SpecRule = { ref: '§5.4 rule 3', section: '5.4', subject: null, number: 3 };
    expect(names("ref: '§5.4 rule 3'", rule)).toBe(true);
    expect(names("ref: '§5.4 rules 1–4'", rule)).toBe(true);
    expect(names("ref: '§5.4 rules 1, 3'", rule)).toBe(true);
    expect(names("ref: '§5.4 rule 31'", rule)).toBe(false);
    expect(names("ref: '§5.4 rules 4–5'", rule)).toBe(false);
  });

  it.each(rules.map((rule) => ({ ref: rule.ref, rule })))('should have a test that names $ref', ({ rule }) => {
    expect(names(testText, rule)).toBe(true);
  });
});
