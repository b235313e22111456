/**
 * README's code blocks, read as a reader sees them: the info string (`ts`, `ts fragment`, `sh`), the text, and the
 * line the block starts on. The conventions they follow are in test/readme-examples.test.ts.
 */
import { readFileSync } from 'node:fs';

/** One fenced code block of README.md. */
export interface ReadmeBlock {
  /** The first word of the info string: `ts`, `sh`, `jsonc`. */
  readonly lang: string;
  /** Whether the info string says `fragment`: an excerpt, not a program. */
  readonly fragment: boolean;
  /** The block's text, without the fences. */
  readonly text: string;
  /** README's line number of the block's first text line (1-based). */
  readonly line: number;
}

/** README.md at the repository root. */
export const README_PATH: string = new URL('../../README.md', import.meta.url).pathname;

/** Every fenced code block of README.md, in order. */
export function readmeBlocks(readme: string = readFileSync(README_PATH, 'utf8')): readonly ReadmeBlock[] {
  const blocks: ReadmeBlock[] = [];
  const lines = readme.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S+)(.*)$/u.exec(lines[i] ?? '');
    if (open === null) continue;
    const end = lines.findIndex((l, j) => j > i && l === '```');
    if (end < 0) throw new Error(`README line ${i + 1}: a code block that is never closed`);
    blocks.push({ lang: open[1] ?? '', fragment: /\bfragment\b/u.test(open[2] ?? ''), text: `${lines.slice(i + 1, end).join('\n')}\n`, line: i + 2 });
    i = end;
  }
  return blocks;
}

/** The packages a block imports from (bare specifiers, `node:*` left out). */
export function importedPackages(text: string): readonly string[] {
  return [...text.matchAll(/^import\s[^;]*?from\s+'([^']+)'/gmu)].map((m) => m[1] ?? '').filter((s) => !s.startsWith('node:') && !s.startsWith('.'));
}

/** The `ts` blocks README presents as programs to run (not tagged `fragment`). */
export function runnableTsBlocks(readme?: string): readonly ReadmeBlock[] {
  return readmeBlocks(readme).filter((b) => b.lang === 'ts' && !b.fragment);
}

/** Whether a block imports `gatehouse-server` (it runs from the packed tarballs) rather than only the core. */
export function importsServer(block: ReadmeBlock): boolean {
  return importedPackages(block.text).some((p) => p === 'gatehouse-server' || p.startsWith('gatehouse-server/'));
}

/**
 * README's `npm install` lines for the published packages (in `sh` blocks not tagged `fragment`), each as the
 * packages it names.
 */
export function readmeInstallLines(readme?: string): readonly { readonly line: string; readonly packages: readonly string[] }[] {
  return readmeBlocks(readme)
    .filter((b) => b.lang === 'sh' && !b.fragment)
    .flatMap((b) => b.text.split('\n'))
    .map((l) => l.replace(/\s+#.*$/u, '').trim())
    .filter((l) => /^npm install gatehouse-/u.test(l))
    .map((line) => ({ line, packages: line.split(/\s+/u).slice(2) }));
}
