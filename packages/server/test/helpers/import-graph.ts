/**
 * The import graph of a source tree, read with the TypeScript compiler's parser, and the check of the dependency
 * rules docs/architecture.md writes down: which folder may import which, leaves, and no runtime import cycle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import ts from 'typescript';

/** One import of one module. */
export interface ImportEdge {
  /** The importing file, relative to the tree's root (`/` separators). */
  readonly from: string;
  /** The imported file relative to the root, or the bare specifier (`gatehouse-auth`, `node:fs`, `pino`). */
  readonly to: string;
  /** Whether the edge loads nothing at run time (`import type`, `export type`, every name `type`). */
  readonly typeOnly: boolean;
  /** Whether the edge is a dynamic `import()`, which runs after the importing module has loaded. */
  readonly dynamic: boolean;
}

/** Every `.ts`/`.tsx` file below `root`, relative to it with `/` separators. */
function sourceFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/u.test(f) && !f.endsWith('.d.ts'))
    .map((f) => f.split(sep).join('/'))
    .sort();
}

/** The file a relative specifier names, as tsc resolves `./x.js` to `x.ts` or `x.tsx`. */
function resolveRelative(root: string, from: string, specifier: string, files: ReadonlySet<string>): string {
  const base = normalize(join(dirname(from), specifier)).split(sep).join('/');
  const stem = base.replace(/\.js$/u, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, `${stem}/index.ts`]) if (files.has(candidate)) return candidate;
  return relative(root, join(root, base)).split(sep).join('/');
}

/**
 * Reads every import and re-export of the files below `root`.
 *
 * @param root - The tree's root (a package's `src`).
 * @returns The edges.
 */
export function readImportGraph(root: string): readonly ImportEdge[] {
  const files = sourceFiles(root);
  const known = new Set(files);
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const add = (specifier: string, typeOnly: boolean, dynamic: boolean): void => {
      const to = specifier.startsWith('.') ? resolveRelative(root, file, specifier, known) : specifier;
      edges.push({ from: file, to, typeOnly, dynamic });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        const clause = node.importClause;
        const bindings = clause?.namedBindings;
        const everyNameType =
          clause !== undefined && clause.name === undefined && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
        add(node.moduleSpecifier.text, clause?.isTypeOnly === true || everyNameType, false);
      } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
        const clause = node.exportClause;
        const everyNameType = clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
        add(node.moduleSpecifier.text, node.isTypeOnly || everyNameType, false);
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [argument] = node.arguments;
        if (argument !== undefined && ts.isStringLiteral(argument)) add(argument.text, false, true);
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
        add(node.argument.literal.text, true, false);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return edges;
}

/** The folder a file belongs to: its first path segment, or `(root)/<file>` for a file at the root. */
export function folderOf(file: string): string {
  const slash = file.indexOf('/');
  return slash === -1 ? `(root)/${file}` : file.slice(0, slash);
}

/**
 * The dependency rules: for each folder (`kernel`) or root file (`(root)/index.ts`), the folders and root files it
 * may import; `*` allows every module of the tree.
 */
export type DependencyRules = ReadonlyMap<string, readonly string[]>;

/**
 * Reads the rules from the markdown table under `## The dependency rules`: the first cell names a folder
 * (`` `kernel/` ``) or root file (`` `index.ts` ``), the second lists what it may import in backticks, `*` for
 * everything.
 *
 * @param markdown - docs/architecture.md.
 * @returns The rules.
 */
export function readDependencyRules(markdown: string): DependencyRules {
  const section = markdown.split(/^## /mu).find((s) => s.startsWith('The dependency rules')) ?? '';
  const rules = new Map<string, readonly string[]>();
  const name = (cell: string): string => (cell.endsWith('/') ? cell.slice(0, -1) : `(root)/${cell}`);
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const ticked = (cell: string | undefined): string[] => [...(cell ?? '').matchAll(/`([^`]+)`/gu)].map((m) => m[1] ?? '');
    const subjects = ticked(cells[1]);
    if (subjects.length === 0 || cells.length < 4 || !/^`/u.test(cells[1] ?? '')) continue;
    const allowed = ticked(cells[2]).map((c) => (c === '*' ? '*' : name(c)));
    for (const folder of subjects) rules.set(name(folder), allowed);
  }
  return rules;
}

/** One broken rule. */
export interface Violation {
  /** Which rule: `folder` (an import the table does not allow), `cycle` (a runtime cycle), `unknown_folder`. */
  readonly rule: 'folder' | 'cycle' | 'unknown_folder';
  /** What breaks it, in words a developer can act on. */
  readonly detail: string;
}

/**
 * Checks a tree against the rules:
 * - an import from folder A of a module in folder B (B ≠ A) needs B in A's row, unless the module is a *leaf*: one
 *   whose own imports are all type-only, holding types and constants the areas share without loading each other;
 * - every folder has a row;
 * - no cycle of static runtime imports (a dynamic `import()` runs after loading, so it closes no cycle).
 *
 * @param edges - The graph ({@link readImportGraph}).
 * @param rules - The rules ({@link readDependencyRules}).
 * @returns The violations, empty when the tree keeps every rule.
 */
export function checkDependencyRules(edges: readonly ImportEdge[], rules: DependencyRules): readonly Violation[] {
  const violations: Violation[] = [];
  const local = edges.filter((e) => e.to.endsWith('.ts') || e.to.endsWith('.tsx'));
  const files = new Set([...edges.map((e) => e.from), ...local.map((e) => e.to)]);
  const runtimeImports = new Map<string, string[]>();
  for (const e of local) if (!e.typeOnly) runtimeImports.set(e.from, [...(runtimeImports.get(e.from) ?? []), e.to]);
  const isLeaf = (file: string): boolean => (runtimeImports.get(file) ?? []).length === 0;
  for (const folder of new Set([...files].map(folderOf))) {
    const root = folder.startsWith('(root)/');
    if (!rules.has(folder) && !(root && rules.has('(root)/*'))) violations.push({ rule: 'unknown_folder', detail: `${folder} has no row in the dependency rules` });
  }
  for (const e of local) {
    const from = folderOf(e.from);
    const to = folderOf(e.to);
    if (from === to && !from.startsWith('(root)/')) continue;
    const allowed = rules.get(from) ?? (from.startsWith('(root)/') ? rules.get('(root)/*') : undefined) ?? [];
    if (allowed.includes('*') || allowed.includes(to) || (to.startsWith('(root)/') && allowed.includes('(root)/*'))) continue;
    if (isLeaf(e.to)) continue;
    violations.push({ rule: 'folder', detail: `${e.from} imports ${e.to}${e.typeOnly ? ' (types)' : ''}: ${from} may not import ${to}` });
  }
  violations.push(...runtimeCycles(local.filter((e) => !e.typeOnly && !e.dynamic)).map((cycle): Violation => ({ rule: 'cycle', detail: cycle.join(' → ') })));
  return violations;
}

/** The strongly connected components of more than one file (or a file importing itself), each as a file list. */
function runtimeCycles(edges: readonly ImportEdge[]): readonly (readonly string[])[] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (next.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles;
}
