/**
 * The one data table of the server's pages: column headings, a row per item, and the sentence shown instead of
 * an empty table. Cells are React elements, so every value in them is escaped by React like the rest of a page.
 *
 * @module
 */
import type { ReactElement } from 'react';

/**
 * What {@link DataTable} shows.
 *
 * @typeParam T - One row's item.
 *
 * @example
 * ```ts
 * const props: DataTableProps<UserRecord> = { columns: ['Username'], rows: users, rowKey: (u) => u.id, row: (u) => <td>{u.username}</td> };
 * ```
 */
export interface DataTableProps<T> {
  /** The column headings, each a `<th scope="col">`, in the order of the cells `row` returns. */
  readonly columns: readonly string[];
  /** The items, one row each, in the order shown. */
  readonly rows: readonly T[];
  /** An item's key among the rows (React's `key` of its `<tr>`): unique within `rows`. */
  readonly rowKey: (item: T) => string;
  /** An item's cells: the `<td>`s of its row, one per column. */
  readonly row: (item: T) => ReactElement;
  /** An item's row `id`, for a row a link points at (`#entry-7`); no `id` without it. */
  readonly rowId?: (item: T) => string;
  /** The `<table>`'s class (the stylesheet's column widths). */
  readonly className?: string;
  /**
   * The name of the scrolling wrapper, for a wide table: the wrapper becomes a focusable, labelled region, so a
   * keyboard can scroll the table sideways on a narrow screen. Without it the wrapper is a plain `<div>`.
   */
  readonly scrollLabel?: string;
  /** The sentence shown (muted) instead of the table when there are no rows; without it an empty table is shown. */
  readonly empty?: string;
}

/**
 * A table of items: a header row of column headings and a row of cells per item, in a `table-wrap` wrapper that
 * scrolls sideways; or, when there are no items and `empty` is given, that sentence instead.
 *
 * @param props - The headings, the items with their keys and cells, and the table's class, region name and empty text.
 * @returns The wrapped table, or the empty sentence.
 *
 * @example
 * ```ts
 * <DataTable
 *   columns={['Username', 'Created']}
 *   rows={users}
 *   rowKey={(u) => u.id}
 *   row={(u) => <><td>{u.username}</td><td>{formatTime(u.createdAt)}</td></>}
 *   className="admin-table"
 *   empty="No accounts."
 * />
 * ```
 */
export function DataTable<T>(props: DataTableProps<T>): ReactElement {
  const { rows, rowKey, row, rowId } = props;
  if (rows.length === 0 && props.empty !== undefined) return <p className="muted">{props.empty}</p>;
  const region = props.scrollLabel === undefined ? {} : { tabIndex: 0, role: 'region', 'aria-label': props.scrollLabel };
  return (
    <div className="table-wrap" {...region}>
      <table className={props.className}>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((item) => (
            <tr key={rowKey(item)} id={rowId?.(item)}>
              {row(item)}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
