import type { ReactNode } from 'react';
import { ScrollTable } from './ScrollTable.tsx';
import { QueryState } from './States.tsx';

/** A page of items from the API, as a table: loading, error and empty states said, one row per item. */
export function ListTable<Item>({
  query,
  label,
  empty,
  columns,
  row,
  hideNarrow = [],
}: {
  query: {
    isLoading: boolean;
    error: unknown;
    data?: { items: Item[] };
    refetch?: () => unknown;
    isFetching?: boolean;
  };
  /** The table's accessible name. */
  label: string;
  /** What an empty list says. */
  empty: string;
  /** The header cells' contents, in order. */
  columns: ReactNode[];
  /** The `<tr>` of one item. */
  row: (item: Item) => ReactNode;
  /** The columns (by index) left out on a phone, where the names need the room; their cells say `hide-narrow` too. */
  hideNarrow?: number[];
}) {
  return (
    <QueryState
      isLoading={query.isLoading}
      error={query.error}
      isEmpty={query.data?.items.length === 0}
      empty={empty}
      onRetry={query.refetch && (() => void query.refetch?.())}
      retrying={query.isFetching}
    >
      <ScrollTable label={label}>
        <table className="table">
          <thead>
            <tr>
              {columns.map((column, index) => (
                <th
                  // biome-ignore lint/suspicious/noArrayIndexKey: the header cells are a fixed list
                  key={index}
                  scope="col"
                  className={hideNarrow.includes(index) ? 'hide-narrow' : undefined}
                >
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>{query.data?.items.map(row)}</tbody>
        </table>
      </ScrollTable>
    </QueryState>
  );
}
