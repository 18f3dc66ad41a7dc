// What the configs that belong to one connection of a project (seed scenarios, anonymization
// configs) do alike: load one for an action (404 that does not leak), check the connection of a new
// one, keep names unique per project, void approvals when the content changes, audit every change.
// Each module keeps what is its own: the content, how it is checked against the target schema,
// the audit details, and its preview and run.
import { randomUUID } from 'node:crypto';
import type { Insertable, Updateable } from 'kysely';
import type { Actor } from '../../core/actors.ts';
import { conflict, notFound } from '../../core/errors.ts';
import type { Action } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { Connection, Database } from '../../store/tables.ts';
import type { ApprovalGate } from '../approvals/approval-gate.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { requireProject, requireProjectResource } from '../projects/projects.access.ts';
import { type ConfigRow, type ConfigTable, connectionConfigsRepo } from './connection-configs.repo.ts';
import { requireBodyConnection } from './connections.access.ts';
import type { ConnectionsService } from './connections.service.ts';

/** One kind of connection-scoped config: its table, its words and the actions that guard it. */
export interface ConfigKind<T extends ConfigTable> {
  table: T;
  /** Names it in errors: `${resource} not found`. */
  resource: string;
  /** Its audit target type, and the prefix of its audit actions (`<auditType>.create`, …). */
  auditType: string;
  /** The 409 answer to a name already used in the project. */
  nameTaken: (name: string) => string;
  actions: { create: Action; read: Action; edit: Action; delete: Action };
}

/** The columns every config has and this helper fills; the module gives the rest. */
type CommonColumns =
  | 'id'
  | 'org_id'
  | 'project_id'
  | 'connection_id'
  | 'name'
  | 'created_by'
  | 'created_at'
  | 'updated_at';

export type ConnectionConfigs<T extends ConfigTable> = ReturnType<typeof createConnectionConfigs<T>>;

export function createConnectionConfigs<T extends ConfigTable>(
  deps: {
    db: Db;
    audit: AuditService;
    connections: Pick<ConnectionsService, 'findById'>;
    gate: Pick<ApprovalGate, 'voidApprovals'>;
    now: () => Date;
  },
  kind: ConfigKind<T>,
) {
  type Row = ConfigRow<T>;
  const { db, audit, connections, gate, now } = deps;
  const repo = connectionConfigsRepo(kind.table);

  function event(action: string, row: Row, details?: Record<string, unknown>) {
    const { id, project_id, name } = row;
    return { action, projectId: project_id, target: { type: kind.auditType, id, label: name }, details };
  }

  async function load(actor: Actor, id: string, action: Action): Promise<Row> {
    const row = await repo.find(db, actor.principal.orgId, id);
    const resource = { name: kind.resource, row, connectionId: row?.connection_id };
    return (await requireProjectResource(db, actor, resource, action)).row;
  }

  return {
    repo,
    event,
    load,

    get: (actor: Actor, id: string) => load(actor, id, kind.actions.read),

    async list(actor: Actor, projectId: string, page: PageRequest) {
      await requireProject(db, actor, projectId, kind.actions.read);
      return paginate(repo.projectQuery(db, projectId), page);
    },

    async connectionOf(row: Row): Promise<Connection> {
      const connection = await connections.findById(row.connection_id);
      if (!connection) throw notFound('Connection');
      return connection;
    },

    /**
     * The connection a new config is for, which must be in its project: a connection the caller
     * cannot see is answered as absent (422 on the field), not 404, since the URL names neither.
     */
    async connectionForCreate(
      actor: Actor,
      body: { project_id: string; connection_id: string },
    ): Promise<Connection> {
      // With the connection, so that a just-in-time grant on that connection counts.
      await requireProject(db, actor, body.project_id, kind.actions.create, {
        connectionId: body.connection_id,
      });
      const connection = await requireBodyConnection(
        db,
        actor,
        body.project_id,
        body.connection_id,
        kind.actions.create,
      );
      return connection;
    },

    /** Inserts a config whose content the module has checked, with its audit entry. */
    async create(
      actor: Actor,
      base: { id?: string; projectId: string; connectionId: string; name: string },
      content: Omit<Insertable<Database[T]>, CommonColumns>,
      details: (row: Row) => Record<string, unknown>,
    ): Promise<Row> {
      const at = now();
      return db.transaction().execute(async (trx) => {
        if (await repo.nameTaken(trx, base.projectId, base.name)) throw conflict(kind.nameTaken(base.name));
        const common = {
          id: base.id ?? randomUUID(),
          org_id: actor.principal.orgId,
          project_id: base.projectId,
          connection_id: base.connectionId,
          name: base.name,
          created_by: actor.principal.userId,
          created_at: at,
          updated_at: at,
        };
        const row = await repo.insert(trx, common, content);
        await audit.record(trx, actor, event(`${kind.auditType}.create`, row, details(row)));
        return row;
      });
    },

    /**
     * Applies an edit the module has checked, under the row's lock: a rename (unique in the
     * project) and the module's changes; approvals bound to the old content are voided when it
     * changed, and the audit entry counts them.
     */
    async update(
      actor: Actor,
      id: string,
      edit: {
        name: string | undefined;
        changes: (locked: Row) => Omit<Updateable<Database[T]>, 'name' | 'updated_at'>;
        contentChanged: boolean;
        details: Record<string, unknown>;
      },
    ): Promise<Row> {
      return db.transaction().execute(async (trx) => {
        const locked = await repo.lock(trx, id);
        if (!locked) throw notFound(kind.resource);
        const current = locked;
        if (edit.name !== undefined && (await repo.nameTaken(trx, current.project_id, edit.name, id)))
          throw conflict(kind.nameTaken(edit.name));
        const updated = await repo.update(trx, id, {
          name: edit.name ?? current.name,
          ...edit.changes(locked),
          updated_at: now(),
        } as Updateable<Database[T]>);
        const voided = edit.contentChanged ? await gate.voidApprovals(trx, actor, id) : 0;
        await audit.record(
          trx,
          actor,
          event(`${kind.auditType}.update`, updated, { ...edit.details, approvals_voided: voided }),
        );
        return updated;
      });
    },

    async remove(actor: Actor, id: string): Promise<void> {
      await load(actor, id, kind.actions.delete);
      await db.transaction().execute(async (trx) => {
        const locked = await repo.lock(trx, id);
        if (!locked) throw notFound(kind.resource);
        await gate.voidApprovals(trx, actor, id);
        await repo.remove(trx, id);
        await audit.record(trx, actor, event(`${kind.auditType}.delete`, locked));
      });
    },
  };
}
