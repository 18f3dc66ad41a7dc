import { ScrollTable } from './ScrollTable.tsx';

/** Sample rows (from a dry-run or a preview) as a table with the union of their columns. */
export function RowsTable({ rows, caption }: { rows: Record<string, unknown>[]; caption: string }) {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  if (rows.length === 0) return <p className="muted">{caption}: no rows</p>;
  return (
    <ScrollTable label={caption}>
      <table className="table rows">
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: sample rows have no identity of their own
            <tr key={i}>
              {columns.map((c) => (
                <td key={c}>{formatCell(row[c])}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}

export function formatCell(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
