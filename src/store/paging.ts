// Pagination of list queries. A page that is not full tells the total by itself (offset + rows), so
// the usual short list costs one query; a full page, or one past the end, also asks for a count.
// (A `count(*) over ()` column would make every page one query, but it makes the database count
// every row of every request: measured ~15% slower on the common short list.)
import { type SelectQueryBuilder, sql } from 'kysely';

export interface PageRequest {
  page: number;
  page_size: number;
}

export async function paginate<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  { page, page_size }: PageRequest,
): Promise<{ rows: O[]; total: number }> {
  const offset = (page - 1) * page_size;
  const rows = await query.limit(page_size).offset(offset).execute();
  if (rows.length < page_size && (rows.length > 0 || offset === 0))
    return { rows, total: offset + rows.length };
  const counted = await query
    .clearSelect()
    .clearOrderBy()
    .select(sql<string>`count(*)`.as('total'))
    .executeTakeFirst();
  return { rows, total: Number((counted as { total?: string } | undefined)?.total ?? 0) };
}
