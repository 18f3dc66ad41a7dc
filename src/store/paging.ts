// Pagination of list queries: one round trip for the usual case (the total rides along as a window
// count), a second only when the page asked for lies past the end.
import { type SelectQueryBuilder, sql } from 'kysely';

export interface PageRequest {
  page: number;
  page_size: number;
}

export async function paginate<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  { page, page_size }: PageRequest,
): Promise<{ rows: O[]; total: number }> {
  const rows = await query
    .select(sql<string>`count(*) over ()`.as('page_total'))
    .limit(page_size)
    .offset((page - 1) * page_size)
    .execute();
  const first = rows[0] as { page_total?: string } | undefined;
  if (first) {
    const total = Number(first.page_total);
    for (const row of rows as { page_total?: string }[]) delete row.page_total;
    return { rows: rows as O[], total };
  }
  if (page === 1) return { rows: [], total: 0 };
  const counted = await query
    .clearSelect()
    .clearOrderBy()
    .select(sql<string>`count(*)`.as('total'))
    .executeTakeFirst();
  return { rows: [], total: Number((counted as { total?: string } | undefined)?.total ?? 0) };
}
