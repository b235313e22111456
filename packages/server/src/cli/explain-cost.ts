/**
 * `gatehouse api -explain-cost`: the request goes with `X-Gatehouse-Cost: dry-run`, so the server measures the query
 * (spec §8) and answers `extensions.cost` without running it; this module reads that answer and prints it as a
 * table, one row per measure with its value, its limit and the setting of `rateLimits` that sets it, then the list
 * fields and how `first`/`last` bounded each.
 *
 * @module
 */

/**
 * The request header and value `-explain-cost` sends.
 *
 * @example
 * ```ts
 * headers.push(EXPLAIN_COST_HEADER);
 * ```
 */
export const EXPLAIN_COST_HEADER: readonly [string, string] = ['X-Gatehouse-Cost', 'dry-run'];

/** The measures of `extensions.cost`, in the order printed. */
const MEASURES = ['depth', 'fieldCount', 'aliases', 'duplicateFieldCount', 'uniqueFieldCount', 'tokenCount'] as const;

/** One measure as read from the answer. */
interface Row {
  readonly name: string;
  readonly value: number;
  readonly limit: number;
  readonly setting: string;
}

/** One list field as read from the answer. */
interface ListRow {
  readonly path: string;
  readonly pageSize: number;
  readonly boundBy: string;
  readonly maxPageSize: number | null;
  readonly multiplier: number;
}

/**
 * The table of an answer's cost, and whether any limit is exceeded.
 *
 * @example
 * ```ts
 * const table: CostTable = { text: 'measure  value  limit …', exceeded: false };
 * ```
 */
export interface CostTable {
  /** The table, ending with a newline. */
  readonly text: string;
  /** Whether some measure is over its limit. */
  readonly exceeded: boolean;
}

function field(record: unknown, key: string): unknown {
  return typeof record === 'object' && record !== null && !Array.isArray(record) ? Object.getOwnPropertyDescriptor(record, key)?.value : undefined;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function readRow(cost: unknown, name: string): Row | null {
  const measure = field(cost, name);
  const value = field(measure, 'value');
  const limit = field(measure, 'limit');
  const setting = field(measure, 'setting');
  if (!isCount(value) || !isCount(limit)) return null;
  return { name, value, limit, setting: typeof setting === 'string' ? setting : '' };
}

function readLists(cost: unknown): readonly ListRow[] {
  const lists = field(field(cost, 'fieldCount'), 'lists');
  if (!Array.isArray(lists)) return [];
  const rows: ListRow[] = [];
  for (const entry of lists as readonly unknown[]) {
    const path = field(entry, 'path');
    const pageSize = field(entry, 'pageSize');
    const boundBy = field(entry, 'boundBy');
    const max = field(entry, 'maxPageSize');
    const multiplier = field(entry, 'multiplier');
    if (typeof path !== 'string' || !isCount(pageSize) || typeof boundBy !== 'string' || !isCount(multiplier)) continue;
    rows.push({ path, pageSize, boundBy, maxPageSize: isCount(max) ? max : null, multiplier });
  }
  return rows;
}

/** Lays rows of cells out in columns: text columns to the left, numbers (`right`) to the right. */
function columns(rows: readonly (readonly string[])[], right: readonly boolean[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, i) => (right[i] === true ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const number = (n: number): string => n.toLocaleString('en-US');

/**
 * Formats `extensions.cost` of an answer as a table; `null` when the answer carries none (an answer refused before
 * its cost could be measured, or a server that does not explain).
 *
 * @param body - The parsed JSON answer.
 * @returns The table and whether a limit is exceeded, or `null`.
 * @example
 * ```ts
 * formatCostTable({ extensions: { cost: { depth: { value: 2, limit: 30, setting: 'graphQLMaxDepth' }, … } } })?.exceeded; // false
 * ```
 */
export function formatCostTable(body: unknown): CostTable | null {
  const cost = field(field(body, 'extensions'), 'cost');
  const rows = MEASURES.map((name) => readRow(cost, name)).filter((row): row is Row => row !== null);
  if (rows.length === 0) return null;
  const exceeded = rows.some((row) => row.value > row.limit);
  const measures = columns(
    [['measure', 'value', 'limit', 'setting', ''], ...rows.map((r) => [r.name, number(r.value), number(r.limit), r.setting, r.value > r.limit ? 'EXCEEDED' : 'ok'])],
    [false, true, true, false, false],
  );
  const lists = readLists(cost);
  const truncated = field(field(cost, 'fieldCount'), 'listsTruncated') === true;
  const listTable =
    lists.length === 0
      ? 'No list field multiplies the field count.'
      : `List fields (each field below one counts "per field" times in fieldCount):\n${columns(
          [
            ['path', 'page', 'bounded by', 'max page', 'per field'],
            ...lists.map((l) => [l.path, number(l.pageSize), l.boundBy.replace(/_/g, ' '), l.maxPageSize === null ? '-' : number(l.maxPageSize), number(l.multiplier)]),
          ],
          [false, true, false, true, true],
        )}${truncated ? '\n… more list fields not shown' : ''}`;
  const verdict = exceeded ? 'The query exceeds a limit: the server refuses it.' : 'The query is within every limit (not executed).';
  return { text: `Query cost (spec §8)\n${measures}\n\n${listTable}\n\n${verdict}\n`, exceeded };
}

/**
 * {@link formatCostTable} of an answer's text; `null` when the text is not JSON or carries no cost.
 *
 * @param text - The answer's body.
 * @returns The table, or `null`.
 * @example
 * ```ts
 * costTableOfText('{"errors":[{"message":"Syntax Error"}]}'); // null
 * ```
 */
export function costTableOfText(text: string): CostTable | null {
  try {
    return formatCostTable(JSON.parse(text));
  } catch {
    return null;
  }
}
