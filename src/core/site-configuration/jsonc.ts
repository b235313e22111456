/**
 * JSONC text to plain values: syntax errors with line and column, nesting depth, duplicate keys (RFC 8259 with comments and trailing commas).
 *
 * @internal
 *
 * @module
 */
import { err, ok, Result } from 'neverthrow';
import { match } from 'ts-pattern';
import { createScanner, type Node as JsonNode, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import type { Segments } from './problems.js';
import { MAX_SITE_CONFIGURATION_DEPTH, type SiteConfigurationProblem } from './types.js';

// ---------------------------------------------------------------------------------------------------------------
// JSONC text to plain values

interface DuplicateKey {
  readonly segments: Segments;
  readonly key: string;
}

type LineIndex = readonly number[];

function lineIndex(text: string): LineIndex {
  const starts = [0];
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) starts.push(i + 1);
  }
  return starts;
}

function lineAndColumn(lines: LineIndex, offset: number): { readonly line: number; readonly column: number } {
  // Binary search for the last line start at or before the offset. Lines and columns are 1-based.
  let low = 0;
  let high = lines.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((lines[middle] ?? 0) <= offset) low = middle;
    else high = middle - 1;
  }
  return { line: low + 1, column: offset - (lines[low] ?? 0) + 1 };
}

function nestingProblem(text: string): SiteConfigurationProblem | null {
  const scanner = createScanner(text, true);
  let depth = 0;
  for (;;) {
    const token: number = scanner.scan();
    if (token === 17) return null; // EOF
    if (token === 1 || token === 3) {
      depth += 1;
      if (depth > MAX_SITE_CONFIGURATION_DEPTH) {
        const where = lineAndColumn(lineIndex(text), scanner.getTokenOffset());
        return {
          code: 'too_deeply_nested',
          ...where,
          maxDepth: MAX_SITE_CONFIGURATION_DEPTH,
          path: '',
          segments: [],
          message: `The site configuration nests arrays and objects more than ${String(MAX_SITE_CONFIGURATION_DEPTH)} levels deep at line ${String(where.line)}, column ${String(where.column)}; flatten it.`,
        };
      }
    } else if (token === 2 || token === 4) {
      depth = Math.max(0, depth - 1);
    }
  }
}

const SYNTAX_HINTS: Readonly<Record<string, string>> = {
  InvalidSymbol: 'an unexpected character',
  InvalidNumberFormat: 'a malformed number',
  PropertyNameExpected: 'a missing property name (keys must be double-quoted strings)',
  ValueExpected: 'a missing value',
  ColonExpected: 'a missing colon after a property name',
  CommaExpected: 'a missing comma between two entries',
  CloseBraceExpected: 'a missing closing brace "}"',
  CloseBracketExpected: 'a missing closing bracket "]"',
  EndOfFileExpected: 'text after the end of the configuration object',
  InvalidCommentToken: 'a malformed comment',
  UnexpectedEndOfComment: 'a comment that is never closed',
  UnexpectedEndOfString: 'a string that is never closed',
  UnexpectedEndOfNumber: 'a number that ends too early',
  InvalidUnicode: 'a malformed \\u escape',
  InvalidEscapeCharacter: 'an invalid escape sequence in a string',
  InvalidCharacter: 'a control character inside a string',
};

function syntaxProblem(lines: LineIndex, error: ParseError): SiteConfigurationProblem {
  const name = printParseErrorCode(error.error);
  const where = lineAndColumn(lines, error.offset);
  const hint = SYNTAX_HINTS[name] ?? 'a syntax error';
  return {
    code: 'syntax_error',
    error: name,
    ...where,
    path: '',
    segments: [],
    message: `The site configuration is not valid JSONC: ${hint} at line ${String(where.line)}, column ${String(where.column)}.`,
  };
}

function toValue(node: JsonNode, segments: Segments, duplicates: DuplicateKey[]): unknown {
  return match(node.type)
    .returnType<unknown>()
    .with('object', () => {
      const entries: [string, unknown][] = [];
      const seen = new Set<string>();
      for (const property of node.children ?? []) {
        const keyNode = property.children?.[0];
        const valueNode = property.children?.[1];
        const key: unknown = keyNode?.value;
        if (typeof key !== 'string' || valueNode === undefined) continue;
        if (seen.has(key)) duplicates.push({ segments: [...segments, key], key });
        seen.add(key);
        entries.push([key, toValue(valueNode, [...segments, key], duplicates)]);
      }
      // Object.fromEntries defines own data properties, so a "__proto__" key stays an ordinary key.
      return Object.fromEntries(entries);
    })
    .with('array', () => (node.children ?? []).map((child, index) => toValue(child, [...segments, index], duplicates)))
    .with('string', 'number', 'boolean', () => {
      const value: unknown = node.value;
      return value;
    })
    .with('null', 'property', () => null)
    .exhaustive();
}

/** jsonc-parser threw on this text: reported as a syntax problem of the text it could not read. */
const UNREADABLE: SiteConfigurationProblem = {
  code: 'syntax_error',
  error: 'Unreadable',
  line: 1,
  column: 1,
  path: '',
  segments: [],
  message: 'The site configuration could not be read; check that it is a JSONC object.',
};

/** jsonc-parser's scanner and parser are third-party code: each call is wrapped once (STYLE §4). */
const safeNestingProblem = Result.fromThrowable(nestingProblem, (): null => null);
const safeParseTree = Result.fromThrowable(
  (source: string, errors: ParseError[]): JsonNode | undefined =>
    parseTree(source, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false }),
  (): null => null,
);

type Document = { readonly root: unknown; readonly duplicates: readonly DuplicateKey[] };

/** Reads JSONC text into plain values and the duplicate keys found, or the syntax and nesting problems. */
export function readDocument(text: string): Result<Document, readonly SiteConfigurationProblem[]> {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const tooDeep = safeNestingProblem(source);
  if (tooDeep.isErr()) return err([UNREADABLE]);
  if (tooDeep.value !== null) return err([tooDeep.value]);
  const errors: ParseError[] = [];
  const parsed = safeParseTree(source, errors);
  if (parsed.isErr()) return err([UNREADABLE]);
  const tree = parsed.value;
  if (errors.length > 0 || tree === undefined) {
    const lines = lineIndex(source);
    const problems = errors.map((error) => syntaxProblem(lines, error));
    return err(problems.length > 0 ? problems : [syntaxProblem(lines, { error: 4, offset: 0, length: 0 })]);
  }
  const duplicates: DuplicateKey[] = [];
  return ok({ root: toValue(tree, [], duplicates), duplicates });
}
