// Schema snapshots: the introspected model of a connection at a moment, with its hash, and at most
// one baseline per connection (what drift detection compares against). `takeSnapshot` is the entry
// point for other modules (drift checks, patch execution); it introspects first, outside any store
// transaction, and stores nothing when the target fails.
import { randomUUID } from 'node:crypto';
import type { Actor, SystemActor } from '../../core/actors.ts';
import { notFound } from '../../core/errors.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { Snapshot } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { requireConnection } from '../connections/connections.access.ts';
import { lockConnection } from '../connections/connections.repo.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import {
  clearBaseline,
  findBaseline,
  findSnapshot,
  insertSnapshot,
  snapshotsQuery,
} from './snapshots.repo.ts';

/** Who takes a snapshot when no user asked for it (a drift check, a patch run). */
const SNAPSHOT_SYSTEM: SystemActor = { principal: null, system: 'snapshots', ip: 'local', userAgent: null };

export type SnapshotsService = ReturnType<typeof createSnapshotsService>;

export function createSnapshotsService(deps: {
  db: Db;
  audit: AuditService;
  connections: Pick<ConnectionsService, 'findById' | 'introspect'>;
  now: () => Date;
}) {
  const { db, audit, connections, now } = deps;

  /**
   * Introspects the connection and stores the snapshot; with `baseline` it becomes the connection's
   * only baseline (in the same transaction as the insert). Authorization is the caller's business.
   * Throws 404 for an unknown (or meanwhile deleted) connection and 502 when the target fails.
   */
  async function takeSnapshot(
    connectionId: string,
    options: {
      baseline: boolean;
      actor?: Actor | SystemActor;
      /**
       * The schema as the caller has just read it from the connection (a bridge run, introspecting
       * while it validates its keys): stored instead of introspecting again.
       */
      model?: SchemaModel;
    },
  ): Promise<Snapshot> {
    const connection = await connections.findById(connectionId);
    if (!connection) throw notFound('Connection');
    const model = options.model ?? (await connections.introspect(connection));
    const actor = options.actor ?? SNAPSHOT_SYSTEM;
    return db.transaction().execute(async (trx) => {
      // Serialises snapshots of one connection (two "make it the baseline" at once), and notices a
      // connection deleted while it was being introspected.
      if (!(await lockConnection(trx, connection.id))) throw notFound('Connection');
      if (options.baseline) await clearBaseline(trx, connection.id);
      const snapshot = await insertSnapshot(trx, {
        id: randomUUID(),
        org_id: connection.org_id,
        connection_id: connection.id,
        taken_at: now(),
        schema_hash: schemaHash(model),
        schema_json: JSON.stringify(model),
        is_baseline: options.baseline,
      });
      await audit.record(trx, actor, {
        action: 'snapshot.create',
        orgId: connection.org_id,
        projectId: connection.project_id,
        target: { type: 'snapshot', id: snapshot.id, label: connection.name },
        details: {
          connection_id: connection.id,
          schema_hash: snapshot.schema_hash,
          is_baseline: snapshot.is_baseline,
          tables: model.tables.length,
        },
      });
      return snapshot;
    });
  }

  return {
    takeSnapshot,

    /** The connection's baseline snapshot, if it has one (for drift). */
    baselineOf: (connectionId: string) => findBaseline(db, connectionId),

    async create(actor: Actor, connectionId: string, options: { baseline: boolean }): Promise<Snapshot> {
      await requireConnection(
        db,
        actor,
        connectionId,
        options.baseline ? 'snapshot.baseline' : 'snapshot.create',
      );
      return takeSnapshot(connectionId, { baseline: options.baseline, actor });
    },

    async list(actor: Actor, connectionId: string, page: PageRequest) {
      await requireConnection(db, actor, connectionId, 'connection.read');
      return paginate(snapshotsQuery(db, connectionId), page);
    },

    async get(actor: Actor, id: string): Promise<Snapshot> {
      const snapshot = await findSnapshot(db, actor.principal.orgId, id);
      if (!snapshot) throw notFound('Snapshot');
      await requireConnection(db, actor, snapshot.connection_id, 'connection.read', 'Snapshot');
      return snapshot;
    },
  };
}
