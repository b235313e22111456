/**
 * Citations that hold: every `§` citation of gatehouse's spec in the sources, tests and benchmarks of both packages
 * (`src/`, `test/`, `bench/`, `packages/server/src/`, `packages/server/test/`) and in `docs/` names something the
 * spec has. The spec's sections, provider blocks and rules are read from docs/spec-rules.md, the index that
 * travels with the repository (test/spec-coverage.test.ts checks it against `../shared/spec` where that is
 * present), so a plain clone checks itself.
 *
 * Citation forms read (test/spec-index.ts, `readCitations`):
 * - a section: `§2.5`, `(spec §8)`, `Spec §2.2, §4`, a range of sections `§5.3–§5.5` (each end is a citation);
 * - a provider block of §5.3: `§5.3 hosta`, `§5.3 \`http-header\``, `§5.3 "Built-in"` (= `builtin`);
 * - rules: `§5.4 rule 2`, `§5.3 hosta rule 6`, `§5.3 \`hostb\` rules 5 and 7`, `§5.1 rules 1 and 3`,
 *   `§5.4 rules 1, 3`, `§5.3 hosta rules 4–6, 8`, `§5.1 rule 1/2`, `§5.5 (rule 7)`; the parts may be split over a
 *   comment's line break (`§5.3\n * \`http-header\` rule 3`).
 * A citation is checked as follows: its section must exist (there is no section 12, nor 7.1); a provider named
 * before `rule`, or quoted after `§5.3`, must be a block of that section (`saml` is not one); each rule number must
 * be a rule of that section or block (§5.4 has no rule 9; §5.3 has rules only inside its blocks; the `hostccloud`
 * block has none). The deliberate violations below write `§` as an escape, so that they are no citations here.
 *
 * Not citations of gatehouse's spec: a `§` after the name of another document (`RFC 6749 §4.1.2.1`,
 * `GraphQL spec §7.1.2`, `GraphQL §7.1.2`, `POSIX XCU §2.2.3`, `STYLE §4`) and the further `§`s that go on citing
 * it (`RFC 6749 §3.2, §4.1.3, §6`, `RFC 9110 §11.4 BWS, §5.6.1.2 OWS`) up to the end of the sentence or of the
 * parenthesis, or of the line unless the next line goes on with the same comment (or, in Markdown, paragraph);
 * the word `spec` returns to gatehouse's spec, and a `§` followed by `rule N` is always gatehouse's. Words after
 * a section that are not a provider block (`§5.1 token-sudo`, `§8 rows 1–5`) are prose, not part of the citation.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkCitation, readCitations, readIndex, type SpecUniverse, universeOf } from './spec-index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const index = readIndex(readFileSync(join(root, 'docs', 'spec-rules.md'), 'utf8'));
const universe = universeOf(index.rows.map((row) => row.entry));

/** The folders whose files are read, relative to the repository root. */
const SCANNED = ['src', 'test', 'bench', 'packages/server/src', 'packages/server/test', 'docs'] as const;

function listFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(directory, entry.name)) : [join(directory, entry.name)],
  );
}

/** One citation that names nothing of the spec: where it is, what it says, and why it fails. */
interface Violation {
  readonly at: string;
  readonly citation: string;
  readonly problem: string;
}

/** The violations of one file's text; `path` says where, and whether the text is Markdown. */
function violationsOf(path: string, text: string, within: SpecUniverse): Violation[] {
  return readCitations(text, { markdown: path.endsWith('.md') }).flatMap((citation) => {
    const problem = checkCitation(citation, within);
    if (problem === null) return [];
    const line = text.slice(0, citation.offset).split('\n').length;
    return [{ at: `${path}:${line}`, citation: citation.text.replace(/\s+/gu, ' '), problem }];
  });
}

const files = SCANNED.flatMap((folder) => listFiles(join(root, folder)))
  .filter((file) => /\.(?:tsx?|md)$/u.test(file))
  .map((file) => ({ path: relative(root, file), text: readFileSync(file, 'utf8') }));

// `§` written as an escape, so that the deliberate violations below are not citations of this file.
const S = '\u00a7';

describe('spec citations: the parser and the checker', () => {
  it('should read the index it checks against (else every section would be missing)', () => {
    expect(index.malformed).toStrictEqual([]);
    expect([...universe.sections].sort()).toStrictEqual(['1', '2', '2.1', '2.2', '2.3', '2.4', '2.5', '3', '4', '5', '5.1', '5.2', '5.3', '5.4', '5.5', '6', '7', '8', '9']);
    expect([...(universe.subjects.get('5.3') ?? [])].sort()).toStrictEqual([
      'builtin',
      'hosta',
      'hostb',
      'hostccloud',
      'hostcserver',
      'http-header',
      'openidconnect',
      'reviewhost',
    ]);
  });

  it.each([
    { text: `(spec ${S}2.5)`, read: [`${S}2.5`] },
    { text: `(spec ${S}8)`, read: [`${S}8`] },
    { text: `// Spec ${S}2.2, ${S}4: the endpoint`, read: [`${S}2.2`, `${S}4`] },
    { text: `(spec ${S}5.3–${S}5.5, ${S}7 rules 2–4)`, read: [`${S}5.3`, `${S}5.5`, `${S}7 rules 2–4`] },
    { text: `${S}5.4 rule 2`, read: [`${S}5.4 rule 2`] },
    { text: `'${S}5.3 hosta rule 6: org first'`, read: [`${S}5.3 hosta rule 6`] },
    { text: `(${S}5.1 rules 1 and 3)`, read: [`${S}5.1 rules 1 and 3`] },
    { text: `(spec ${S}5.3 \`http-header\`)`, read: [`${S}5.3 \`http-header\``] },
    { text: `(${S}5.3 "Built-in")`, read: [`${S}5.3 "Built-in"`] },
    { text: `(${S}5.3 hosta rules 4–6, 8)`, read: [`${S}5.3 hosta rules 4–6, 8`] },
    { text: ` * verified email (${S}5.4\n * rule 3).`, read: [`${S}5.4\n * rule 3`] },
    { text: `(RFC 6749 ${S}4.1.2.1)`, read: [] },
    { text: `(RFC 6749 ${S}3.2, ${S}4.1.3, ${S}6) and (RFC 9110 ${S}11.4 BWS, ${S}5.6.1.2 OWS)`, read: [] },
    { text: `(RFC 6749 ${S}4.1.3, RFC 7636\n * ${S}4.6)`, read: [] },
    { text: `(GraphQL spec ${S}7.1.2) (GraphQL ${S}2.1.9) (POSIX XCU ${S}2.2.3) (STYLE ${S}4)`, read: [] },
    { text: `(spec ${S}2.4; RFC 6749 ${S}4.1.2.1, ${S}5.2; RFC 7009)`, read: [`${S}2.4`] },
    { text: `(RFC 9700 ${S}4.14.2). Then ${S}2.4`, read: [`${S}2.4`] },
    { text: `(RFC 9700 ${S}4.14.2) and ${S}2.4`, read: [`${S}2.4`] },
    { text: `(${S}2.4, ${S}5.1 rule 3, RFC 9700 ${S}4.14.2)`, read: [`${S}2.4`, `${S}5.1 rule 3`] },
    { text: `{ ref: 'RFC 6749 ${S}3.3 (x)' },\n{ ref: '${S}2.4 (y)' }`, read: [`${S}2.4`] },
    { text: `the GraphQL endpoint reads JSON whatever its type, ${S}4)`, read: [`${S}4`] },
  ])('should read the citations of gatehouse\'s spec in $text', ({ text, read }) => {
    expect(readCitations(text).map((citation) => citation.text)).toStrictEqual(read);
  });

  it.each([
    `${S}2.5`,
    `${S}1`,
    `${S}5.3`,
    `${S}5.4 rule 2`,
    `${S}5.3 hosta rule 6`,
    `${S}5.3 \`hostb\` rules 5 and 7`,
    `${S}5.1 rules 1 and 3`,
    `${S}5.4 rules 1–4`,
    `${S}5.3 \`http-header\``,
    `${S}5.3 "Built-in"`,
    `${S}5.3 Built-in (single OAuth provider)`,
    `${S}5.3 hostccloud`,
    `${S}5.1 token-sudo`,
    `${S}5.5 (rule 7)`,
    `${S}8 rows 1–5`,
    `${S}9 rules 2–3`,
  ])('should accept %s', (text) => {
    const citations = readCitations(text);
    expect(citations).toHaveLength(1);
    expect(citations.map((citation) => checkCitation(citation, universe))).toStrictEqual([null]);
  });

  it.each([
    { text: `${S}12`, problem: `the spec has no section ${S}12` },
    { text: `(spec ${S}5.1, ${S}6, ${S}7.1)`, problem: `the spec has no section ${S}7.1` },
    { text: `${S}5.4 rule 9`, problem: `${S}5.4 has no rule 9` },
    { text: `${S}5.4 rules 4–6`, problem: `${S}5.4 has no rule 6` },
    { text: `${S}5.1 rules 1 and 7`, problem: `${S}5.1 has no rule 7` },
    { text: `${S}5.5 (rule 10)`, problem: `${S}5.5 has no rule 10` },
    { text: `${S}5.3 hosta rule 9`, problem: `${S}5.3 hosta has no rule 9` },
    { text: `${S}5.3 \`hostb\` rules 5 and 8`, problem: `${S}5.3 hostb has no rule 8` },
    { text: `${S}5.3 rules 1–2`, problem: `${S}5.3 has no numbered rules` },
    { text: `${S}8 rule 1`, problem: `${S}8 has no numbered rules` },
    { text: `${S}5.3 hostccloud rule 1`, problem: `${S}5.3 hostccloud has no numbered rules` },
    { text: `(spec ${S}2.5, ${S}5.3 \`saml\`)`, problem: `${S}5.3 has no provider block "saml"` },
    { text: `${S}5.4 token rule 2`, problem: `${S}5.4 has no provider block "token"` },
    { text: `${S}5.4 rules 3–1`, problem: `${S}5.4 rules 3–1 is an empty range` },
    { text: `(RFC 6749 ${S}4.1.2, ${S}5.4 rule 9)`, problem: `${S}5.4 has no rule 9` },
    { text: `(RFC 9700 ${S}4.14.2). See ${S}12.`, problem: `the spec has no section ${S}12` },
  ])('should refuse $text: $problem', ({ text, problem }) => {
    expect(readCitations(text).map((citation) => checkCitation(citation, universe)).filter((p) => p !== null)).toStrictEqual([problem]);
  });

  it('should report a file\'s wrong citations with their lines, and only those', () => {
    const text = [
      '/**',
      ` * Email matching (spec ${S}5.4 rule 9, ${S}2.3).`,
      ` * The limits of ${S}12 (RFC 6749 ${S}12).`,
      ' */',
      `const ref = '${S}5.3 hosta rule 6';`,
    ].join('\n');
    expect(violationsOf('src/core/example.ts', text, universe)).toStrictEqual([
      { at: 'src/core/example.ts:2', citation: `${S}5.4 rule 9`, problem: `${S}5.4 has no rule 9` },
      { at: 'src/core/example.ts:3', citation: `${S}12`, problem: `the spec has no section ${S}12` },
    ]);
  });

  it('should read Markdown paragraphs across lines, and end another document\'s context at a blank line', () => {
    const text = `read (RFC 9700\n${S}4.14.2) as written\n\nand RFC 8259 says\n\n${S}9 rule 4 is not one`;
    expect(violationsOf('docs/x.md', text, universe)).toStrictEqual([{ at: 'docs/x.md:6', citation: `${S}9 rule 4`, problem: `${S}9 has no rule 4` }]);
    expect(violationsOf('docs/x.md', `RFC 8259 says, over a line,\n${S}8.1 of its own`, universe)).toStrictEqual([]);
  });
});

describe('spec citations in this repository', () => {
  it('should read the files of both packages and the docs, and their many citations (a scan that finds none proves nothing)', () => {
    for (const folder of SCANNED) expect(files.some((file) => file.path.startsWith(`${folder}/`)), folder).toBe(true);
    const cited = files.flatMap((file) => readCitations(file.text, { markdown: file.path.endsWith('.md') }));
    expect(cited.length).toBeGreaterThan(1000);
    expect(cited.filter((citation) => citation.rules !== null).length).toBeGreaterThan(500);
  });

  it('should hold only citations that name a section, a provider block or a rule of the spec', () => {
    expect(files.flatMap((file) => violationsOf(file.path, file.text, universe))).toStrictEqual([]);
  });
});
