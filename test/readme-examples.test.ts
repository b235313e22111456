/**
 * README's TypeScript blocks are programs a reader copies and runs. The conventions:
 *
 * - A ```` ```ts ```` block runs as it stands. A block tagged ```` ```ts fragment ```` is an excerpt (it leaves out
 *   what the text around it says) and is not run.
 * - Blocks that import only the core (`gatehouse-auth`, `gatehouse-auth/username`) run here, against the core's
 *   sources (the `gatehouse-source` condition). Blocks that import `gatehouse-server` run in
 *   test/package-install.test.ts, from the packed tarballs, as a reader runs them after `npm install`.
 * - `EXPRESSION; // → VALUE` states what the expression returns (also `const x = EXPRESSION;`, and the comment may
 *   stand on the next line); the value goes on over the following lines that start with `//` and two or more
 *   spaces. VALUE is JavaScript, evaluated where the line stands with neverthrow's `ok` and `err` in scope, and is
 *   compared with `toStrictEqual`. A value that cannot be written exactly goes in a plain comment instead.
 * - Every `ts` block, fragments included, type-checks under the repository's strict tsconfig, less two options a
 *   reader's project rarely has (`noUnusedLocals`: an example shows values it does not use;
 *   `noPropertyAccessFromIndexSignature`: `process.env.PORT`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { err, ok } from 'neverthrow';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importedPackages, importsServer, readmeBlocks, runnableTsBlocks } from './helpers/readme-blocks.js';
import type { ReadmeBlock } from './helpers/readme-blocks.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const CHECK = '__readmeCheck';

/** A `// →` claim: the README line it starts on, its statement's source range, and the value text. */
interface Claim {
  readonly line: number;
  readonly start: number;
  readonly end: number;
  readonly value: string;
}

/**
 * The block with every `// →` claim turned into a check of the expression it follows. Fails on a `// →` line that
 * follows no expression statement or single `const`, and on a value that is not a JavaScript expression.
 */
function withChecks(block: ReadmeBlock): string {
  const text = block.text;
  const lines = text.split('\n');
  const lineStarts = lines.reduce<number[]>((starts, l, i) => [...starts, (starts[i] ?? 0) + l.length + 1], [0]);
  const lineOf = (pos: number): number => lineStarts.findIndex((s, i) => pos >= s && pos < (lineStarts[i + 1] ?? Infinity));
  const source = ts.createSourceFile('block.ts', text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const claims: Claim[] = [];
  const consumed = new Set<number>();
  for (const statement of source.statements) {
    const last = lineOf(statement.end - 1);
    const sameLine = /^\s*\/\/ → (.*)$/u.exec((lines[last] ?? '').slice(statement.end - (lineStarts[last] ?? 0)));
    const nextLine = /^\s*\/\/ → (.*)$/u.exec(lines[last + 1] ?? '');
    const first = sameLine ?? nextLine;
    if (first === null) continue;
    let at = sameLine === null ? last + 1 : last;
    consumed.add(at);
    const parts = [first[1] ?? ''];
    for (let more = /^\s*\/\/\s{2,}(.*)$/u.exec(lines[at + 1] ?? ''); more !== null; more = /^\s*\/\/\s{2,}(.*)$/u.exec(lines[at + 1] ?? '')) {
      parts.push(more[1] ?? '');
      at += 1;
    }
    const target = ts.isExpressionStatement(statement)
      ? statement.expression
      : ts.isVariableStatement(statement) && statement.declarationList.declarations.length === 1
        ? statement.declarationList.declarations[0]?.initializer
        : undefined;
    if (target === undefined) throw new Error(`README line ${block.line + last}: a // → claim after a statement that is not an expression or one const`);
    claims.push({ line: block.line + last, start: target.getStart(source), end: target.end, value: parts.join(' ') });
  }
  lines.forEach((l, i) => {
    if (/\/\/ → /u.test(l) && !consumed.has(i)) throw new Error(`README line ${block.line + i}: a // → claim that follows no statement`);
  });
  let out = text;
  for (const claim of [...claims].reverse()) {
    const { diagnostics = [] } = ts.transpileModule(`(${claim.value});`, { reportDiagnostics: true });
    if (diagnostics.length > 0) throw new Error(`README line ${claim.line}: the // → value is not an expression: ${claim.value}`);
    const expression = out.slice(claim.start, claim.end);
    // not type-checked (the verbatim block is): a global the test defines, and the value with ok and err in scope
    out = `${out.slice(0, claim.start)}${CHECK}((${expression}), (ok, err) => (${claim.value}), ${String(claim.line)})${out.slice(claim.end)}`;
  }
  return out;
}

const tsBlocks = readmeBlocks().filter((b) => b.lang === 'ts');
const coreBlocks = runnableTsBlocks().filter((b) => !importsServer(b));

describe("README's ts blocks", () => {
  it('should import only the published packages (and node:*, graphql), each runnable block the core or gatehouse-server', () => {
    const known = ['gatehouse-auth', 'gatehouse-auth/username', 'gatehouse-server', 'gatehouse-server/cli', 'graphql'];
    for (const block of tsBlocks) expect([block.line, importedPackages(block.text).filter((p) => !known.includes(p))]).toStrictEqual([block.line, []]);
    for (const block of runnableTsBlocks()) expect([block.line, importedPackages(block.text).length]).not.toStrictEqual([block.line, 0]);
    // the core's examples, gatehouse-auth/username's, and the embedding example
    expect([coreBlocks.length >= 2, runnableTsBlocks().filter(importsServer).length]).toStrictEqual([true, 1]);
  });
});

describe("README's core examples, run as they stand and with every // → claim checked", () => {
  let dir = '';
  const claimsChecked: number[] = [];
  beforeAll(() => {
    // inside the repository, so that `gatehouse-auth` resolves to the core's sources as in every test here
    dir = mkdtempSync(join(root, 'test', '.readme-'));
    (globalThis as Record<string, unknown>)[CHECK] = (actual: unknown, expected: (o: typeof ok, e: typeof err) => unknown, line: number): unknown => {
      expect(actual, `README line ${String(line)}`).toStrictEqual(expected(ok, err));
      claimsChecked.push(line);
      return actual;
    };
  });
  afterAll(() => {
    delete (globalThis as Record<string, unknown>)[CHECK];
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(coreBlocks.map((block) => ({ line: block.line, block })))('should run the block of README line $line verbatim', async ({ block }) => {
    const file = join(dir, `verbatim-${String(block.line)}.ts`);
    writeFileSync(file, block.text);
    await expect(import(pathToFileURL(file).href)).resolves.toBeDefined();
  });

  it.each(coreBlocks.map((block) => ({ line: block.line, block })))('should return what the // → lines of README line $line say', async ({ block }) => {
    const file = join(dir, `checked-${String(block.line)}.ts`);
    writeFileSync(file, withChecks(block));
    const before = claimsChecked.length;
    await import(pathToFileURL(file).href);
    // every claim ran (none skipped by a throw before it), and the block has some
    const expected = block.text.split('\n').filter((l) => l.includes('// → ')).length;
    expect(claimsChecked.length - before).toBe(expected);
    expect(expected).toBeGreaterThan(0);
  });
});

describe('the // → convention', () => {
  const block = (text: string): ReadmeBlock => ({ lang: 'ts', fragment: false, text, line: 10 });

  it('should check an expression, a const and a value continued over lines, where they stand', () => {
    const out = withChecks(block("f(1); // → ok(1)\nconst x = g();\n// → err({ a: 1,\n//        b: 2 })\nh(); // plain comment\n"));
    expect(out).toBe(
      '__readmeCheck((f(1)), (ok, err) => (ok(1)), 10); // → ok(1)\n' +
        'const x = __readmeCheck((g()), (ok, err) => (err({ a: 1, b: 2 })), 11);\n// → err({ a: 1,\n//        b: 2 })\nh(); // plain comment\n',
    );
  });

  it('should refuse a claim after no statement, after a statement of another kind, or with a value that is not an expression', () => {
    expect(() => withChecks(block('// → 1\n'))).toThrow('README line 10: a // → claim that follows no statement');
    expect(() => withChecks(block('if (a) b(); // → 1\n'))).toThrow('README line 10: a // → claim after a statement that is not an expression');
    expect(() => withChecks(block("f(); // → ok('gat_…\n"))).toThrow('README line 10: the // → value is not an expression');
  });
});

describe("README's ts blocks type-check (fragments included)", () => {
  let dir = '';
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should compile every ts block with the strict options of tsconfig.json', () => {
    dir = mkdtempSync(join(root, 'test', '.readme-types-'));
    const files = tsBlocks.map((block) => {
      const file = join(dir, `block-${String(block.line)}.ts`);
      writeFileSync(file, block.text);
      return { file, block };
    });
    const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
    if (config === undefined) throw new Error('tsconfig.json did not parse');
    const options: ts.CompilerOptions = {
      ...config.options,
      noEmit: true,
      // what a reader's project rarely turns on: an example may show a value it does not use, and read process.env.PORT
      noUnusedLocals: false,
      noPropertyAccessFromIndexSignature: false,
      // gatehouse-server's sources: its package exports only its build, which a checkout may not have yet
      baseUrl: root,
      paths: { 'gatehouse-server': ['packages/server/src/index.ts'], 'gatehouse-server/cli': ['packages/server/src/cli/main.ts'] },
    };
    const program = ts.createProgram(files.map((f) => f.file), options);
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file !== undefined && files.some((f) => f.file === d.file?.fileName))
      .map((d) => {
        const at = files.find((f) => f.file === d.file?.fileName);
        const { line } = d.file?.getLineAndCharacterOfPosition(d.start ?? 0) ?? { line: 0 };
        return `README line ${String((at?.block.line ?? 0) + line)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    expect(problems).toStrictEqual([]);
  }, 240_000);
});
