// After the process applying or rolling back a migration died mid-run, the sweep fails the run as
// interrupted and calls here: the migration leaves `applying` for the state the target shows.
// PostgreSQL applies in one transaction, so the target is either as compared (untouched: `failed`,
// and it can be applied again) or as the source within the compare's scope (`applied`); anything
// else (MySQL, whose DDL commits statement by statement) is `failed`, the run's report telling
// what is known.
import { scopeModel, type TableScope } from '../../engine/migration/index.ts';
import { diffSchemas, isEmptyDiff } from '../../engine/schema/diff.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import type { Db } from '../../store/db.ts';
import type { Run } from '../../store/tables.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { findMigrationById, moveStatus } from './migrations.repo.ts';

export function createMigrationInterrupted(deps: {
  db: Db;
  connections: Pick<ConnectionsService, 'withTarget' | 'findById'>;
  now: () => Date;
}) {
  const { db, connections, now } = deps;

  async function settle(run: Run, kind: 'apply' | 'rollback'): Promise<void> {
    const migration = run.subject_id ? await findMigrationById(db, run.subject_id) : undefined;
    if (migration?.status !== 'applying') return;
    const target = await connections.findById(migration.target_connection_id);
    const live = target ? await connections.withTarget(target, (handle) => handle.introspect()) : undefined;
    const scope = migration.scope as TableScope;
    const asSource =
      live !== undefined &&
      isEmptyDiff(
        diffSchemas(scopeModel(live, scope), scopeModel(migration.source_model as SchemaModel, scope)),
      );
    const asBefore = live !== undefined && schemaHash(live) === migration.target_schema_hash;
    const at = now();
    if (kind === 'apply' && asSource && !asBefore)
      await moveStatus(db, migration.id, ['applying'], { status: 'applied', applied_at: at, updated_at: at });
    else if (kind === 'rollback' && asBefore)
      await moveStatus(db, migration.id, ['applying'], { status: 'rolled_back', updated_at: at });
    else if (kind === 'rollback' && asSource)
      await moveStatus(db, migration.id, ['applying'], { status: 'applied', updated_at: at });
    else await moveStatus(db, migration.id, ['applying'], { status: 'failed', updated_at: at });
  }

  return {
    apply: (run: Run) => settle(run, 'apply'),
    rollback: (run: Run) => settle(run, 'rollback'),
  };
}
