import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client.ts';
import { QueryState } from '../components/States.tsx';

/** The live schema of a connection: tables with their columns, keys and indexes. */
export function SchemaBrowser({ connectionId }: { connectionId: string }) {
  const schema = useQuery({
    queryKey: ['schema', connectionId],
    queryFn: () =>
      call(api.GET('/api/v1/connections/{id}/schema', { params: { path: { id: connectionId } } })),
  });
  return (
    <section className="schema" aria-label="Live schema">
      <QueryState
        isLoading={schema.isLoading}
        error={schema.error}
        onRetry={() => void schema.refetch()}
        retrying={schema.isFetching}
        isEmpty={schema.data?.tables.length === 0}
        empty="No tables."
      >
        {schema.data?.tables.map((table) => {
          const name = table.schema ? `${table.schema}.${table.name}` : table.name;
          return (
            <details key={name}>
              <summary>
                {name} <span className="muted">({table.columns.length} columns)</span>
              </summary>
              <table>
                <caption className="visually-hidden">Columns of {name}</caption>
                <thead>
                  <tr>
                    <th scope="col">Column</th>
                    <th scope="col">Type</th>
                    <th scope="col">Null</th>
                    <th scope="col">Default</th>
                  </tr>
                </thead>
                <tbody>
                  {table.columns.map((column) => (
                    <tr key={column.name}>
                      <td>
                        {column.name}
                        {table.primary_key?.columns.includes(column.name) && <span className="tag">PK</span>}
                      </td>
                      <td>{column.type}</td>
                      <td>{column.nullable ? 'yes' : 'no'}</td>
                      <td>{column.default ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {table.foreign_keys.length > 0 && (
                <ul className="compact">
                  {table.foreign_keys.map((fk) => (
                    <li key={fk.name}>
                      FK {fk.name}: ({fk.columns.join(', ')}) → {fk.referenced_table} (
                      {fk.referenced_columns.join(', ')})
                    </li>
                  ))}
                </ul>
              )}
              {table.indexes.length > 0 && (
                <ul className="compact">
                  {table.indexes.map((index) => (
                    <li key={index.name}>
                      {index.unique ? 'Unique index' : 'Index'} {index.name} ({index.columns.join(', ')})
                    </li>
                  ))}
                </ul>
              )}
            </details>
          );
        })}
      </QueryState>
    </section>
  );
}
