// A patch's SQL as it is saved (docs/contract.md §9): parsed into statements by the engine's parser, then each
// statement checked against the connection's schema (its table exists and is a table) and given
// its rollback key. Both refusals are 422 on `body.sql`, naming the statement.

import { invalid } from '../../core/errors.ts';
import { type PatchStatement, parsePatch } from '../../engine/patch/parse-patch.ts';
import { keyOnModel, namedBy } from '../../engine/patch/rollback-key.ts';
import type { DialectName, SchemaModel } from '../../engine/schema/model.ts';
import type { StoredPatchStatement } from '../../store/tables.ts';

/** Parses the SQL or throws 422 naming the refused statement. */
export async function parsedStatements(
  dialect: DialectName,
  sql: string,
  allowFullTable: boolean,
): Promise<PatchStatement[]> {
  const result = await parsePatch(dialect, sql, { allowFullTable });
  if (!result.ok) throw invalid(['body', 'sql'], result.message, 'invalid_patch');
  return result.statements;
}

/** What `name` is when it is a view or foreign table of the schema (no images, no keys), else null. */
function notATable(model: SchemaModel, name: string): string | null {
  const found = model.unmanaged.find(
    (u) => ['view', 'materialized_view', 'foreign_table'].includes(u.kind) && namedBy(model, name, u),
  );
  return found?.kind ?? null;
}

/** Each statement with its rollback key on `model`; a table the schema lacks is 422. */
export function keyedStatements(statements: PatchStatement[], model: SchemaModel): StoredPatchStatement[] {
  return statements.map((statement) => {
    const keyed = keyOnModel(statement, model);
    if (!keyed) {
      const other = notATable(model, statement.table);
      throw invalid(
        ['body', 'sql'],
        `Statement ${statement.index + 1}: ${other ? `${statement.table} is a ${other.replace('_', ' ')}; a patch changes tables` : `table ${statement.table} does not exist`}`,
        'invalid_patch',
      );
    }
    const { verdict } = keyed;
    return {
      ...statement,
      reversible: verdict.reversible,
      irreversible_reason: verdict.reason,
      key: verdict.key,
    };
  });
}
