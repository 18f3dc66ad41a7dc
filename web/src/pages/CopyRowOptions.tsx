// Which rows a copy takes: a condition per ticked table (filters), and a subset that starts from some
// rows of one table and follows the foreign keys both ways so the copied rows stay consistent.
export interface RowOptions {
  filters: Record<string, string>;
  subset: { table: string; where: string; percent: string };
}

export const NO_ROW_OPTIONS: RowOptions = { filters: {}, subset: { table: '', where: '', percent: '' } };

/** The request's `filters` and `subset`, leaving out what the form left empty. */
export function rowOptionsBody(options: RowOptions) {
  const filters = Object.fromEntries(
    Object.entries(options.filters).filter(([, where]) => where.trim() !== ''),
  );
  const { table, where, percent } = options.subset;
  return {
    ...(Object.keys(filters).length > 0 && { filters }),
    ...(table && {
      subset: {
        table,
        ...(where.trim() && { where }),
        ...(percent !== '' && { percent: Number(percent) }),
      },
    }),
  };
}

export function CopyRowOptions({
  tables,
  filtered,
  exampleColumn,
  value,
  onChange,
}: {
  /** Every table of the source, for the subset's start */
  tables: string[];
  /** The ticked tables, which can each have a filter */
  filtered: string[];
  /** A column of each table (its key first) for the example conditions, which must name real columns */
  exampleColumn: Record<string, string | undefined>;
  value: RowOptions;
  onChange: (value: RowOptions) => void;
}) {
  const subset = value.subset;
  const setSubset = (change: Partial<RowOptions['subset']>) =>
    onChange({ ...value, subset: { ...subset, ...change } });
  return (
    <>
      {filtered.length > 0 && (
        <fieldset className="grid-form">
          <legend>Filters (a SQL condition per table; empty: every row)</legend>
          {filtered.map((table) => (
            <label key={table}>
              Filter of {table}
              <input
                value={value.filters[table] ?? ''}
                placeholder={exampleOf(exampleColumn[table])}
                onChange={(e) =>
                  onChange({ ...value, filters: { ...value.filters, [table]: e.target.value } })
                }
              />
            </label>
          ))}
        </fieldset>
      )}
      <fieldset className="grid-form">
        <legend>Subset (start from some rows and keep the rows linked to them)</legend>
        <label>
          Start table
          <select value={subset.table} onChange={(e) => setSubset({ table: e.target.value })}>
            <option value="">No subset: every row</option>
            {tables.map((table) => (
              <option key={table}>{table}</option>
            ))}
          </select>
        </label>
        {subset.table && (
          <>
            <label>
              Start rows where
              <input
                value={subset.where}
                placeholder={exampleOf(exampleColumn[subset.table])}
                onChange={(e) => setSubset({ where: e.target.value })}
              />
            </label>
            <label>
              Percent of them
              <input
                type="number"
                min={0}
                max={100}
                step="any"
                value={subset.percent}
                onChange={(e) => setSubset({ percent: e.target.value })}
              />
            </label>
          </>
        )}
      </fieldset>
    </>
  );
}

/** An example condition on a column the table has: valid for any type. */
function exampleOf(column: string | undefined): string | undefined {
  return column ? `${column} IS NOT NULL` : undefined;
}
