// The parameters of `migration_apply` and `migration_rollback` runs: the migration, and the two
// connections its runs touch (the target written, the source whose schema it brings), so that the
// gated-run path checks the requester's rights on both.
import { type Static, Type } from 'typebox';
import { Uuid } from '../../http/schemas.ts';

export const MigrationRunParams = Type.Object({
  migration_id: Uuid,
  source_connection_id: Uuid,
  target_connection_id: Uuid,
});
export type MigrationRunParams = Static<typeof MigrationRunParams>;
