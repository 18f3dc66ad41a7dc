// The one path by which an operation becomes a run: every module that starts one (patches,
// migrations, seeds, anonymization, bridge) hands its request here and decides nothing of the rules
// itself. In order:
//   1. the requester needs the kind's action on every connection the run touches (its kind's
//      `touches`), each with the just-in-time grants limited to it, so a grant on one connection
//      opens no other: 403, or 404 where the connection is not visible, before any run exists;
//   2. in one transaction: the module's own lock and staleness check; one run of a subject at a
//      time (409 naming the run in flight); the approval gate, for the connection written to and
//      those rows are read out of; the run, with its subject; the audit entry;
//   3. after the commit, the run is sent to the queue (a send inside a store transaction would
//      wait on it on PGlite; a lost send is repaired by the executor's sweep).
// A new run kind therefore cannot forget approvals, protected connections, grants or `subject`.
import Value from 'typebox/value';
import type { Actor } from '../../core/actors.ts';
import { AppError, conflict, notFound } from '../../core/errors.ts';
import type { Action } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import type { Connection, PolicyOperation, Run, Subject } from '../../store/tables.ts';
import { subjectConnection } from '../approvals/approval-subject.ts';
import type { AuditEvent, AuditService } from '../audit/audit.service.ts';
import { findConnection } from '../connections/connections.repo.ts';
import { requireProject } from '../projects/projects.access.ts';
import { type RunKinds, touchedConnectionIds } from './run-kinds.ts';
import { activeRunOf } from './runs.repo.ts';

/** What the gate needs (src/modules/approvals/approval-gate.ts), as the runs module sees it. */
export interface RunGate {
  decide(
    trx: Db,
    actor: Actor,
    input: {
      projectId: string;
      operation: PolicyOperation;
      writesTo: Connection;
      readsRowsOf: Connection[];
      subjectId: string;
      contentHash: string;
      subject: Subject;
    },
  ): Promise<{ decision: 'proceed'; approvalId: string | null } | { decision: 'await'; approvalId: string }>;
}

export interface RunRequest {
  projectId: string;
  kind: PolicyOperation;
  /** What the run is about; its connections are filled in from what the kind touches. */
  subject: Omit<Subject, 'connection' | 'source_connection'>;
  /** What the handler reads; names the connections its kind's `touches` looks for. */
  params: object;
  /** Hash of exactly what will run: the approval is bound to it. */
  contentHash: string;
  /** Known size of the work, in `unit`s. */
  total?: number | null;
  unit: string;
  /** The audit entry of the request; the run's id and status are added to its details. */
  audit: Omit<AuditEvent, 'projectId'>;
  /**
   * Called first in the transaction: locks the subject (so concurrent requests take turns) and
   * throws when it is no longer as the caller read it.
   */
  lock?: (trx: Db) => Promise<unknown>;
}

export interface NewRun {
  projectId: string;
  kind: Run['kind'];
  subjectId: string | null;
  subject: Subject | null;
  params: object;
  total?: number | null;
  unit: string;
  awaitingApprovalId: string | null;
}

export function createRunStart(deps: {
  db: Db;
  audit: AuditService;
  gate: RunGate;
  kinds: RunKinds;
  /** Writes the run record in the caller's transaction (runs.service.ts). */
  insert(trx: Db, actor: Actor, run: NewRun): Promise<Run>;
  enqueue(run: Run): Promise<void>;
}) {
  const { db, audit, gate, kinds } = deps;

  /** Each connection the run touches, once the requester is known to hold `action` on it. */
  async function authorize(
    actor: Actor,
    projectId: string,
    action: Action,
    ids: string[],
  ): Promise<Map<string, Connection>> {
    const found = new Map<string, Connection>();
    for (const id of ids) {
      const connection = await findConnection(db, actor.principal.orgId, id);
      if (!connection || connection.project_id !== projectId) throw notFound('Connection');
      await requireProject(db, actor, projectId, action, { connectionId: id }).catch((error: unknown) => {
        throw error instanceof AppError && error.code === 'not_found' ? notFound('Connection') : error;
      });
      found.set(id, connection);
    }
    return found;
  }

  return async function start(actor: Actor, request: RunRequest): Promise<Run> {
    const registration = kinds.get(request.kind);
    if (!registration) throw new Error(`No module registers the run kind ${request.kind}`);
    const params: Run['params'] = { ...request.params };
    if (!Value.Check(registration.params, params))
      throw new Error(`A ${request.kind} run was asked for with parameters its kind does not read`);
    const touched = registration.touches(params);
    const [written] = touched.writes;
    if (written === undefined) throw new Error(`A ${request.kind} run must name the connection it writes to`);
    const readsRows = touched.readsRows ?? [];
    const source = [...readsRows, ...(touched.readsSchema ?? [])].find((id) => id !== written);
    const connections = await authorize(
      actor,
      request.projectId,
      registration.action,
      touchedConnectionIds(touched),
    );
    const connection = (id: string) => connections.get(id)!;
    const subject: Subject = {
      ...request.subject,
      connection: subjectConnection(connection(written)),
      ...(source !== undefined && { source_connection: subjectConnection(connection(source)) }),
    };

    const run = await db.transaction().execute(async (trx) => {
      await request.lock?.(trx);
      const busy = await activeRunOf(trx, subject.id);
      if (busy)
        throw conflict(
          `Run ${busy.id} (${busy.kind}) of this ${subject.kind.replace('_', ' ')} is ${busy.status.replace('_', ' ')}; wait for it to end or cancel it`,
        );
      const verdict = await gate.decide(trx, actor, {
        projectId: request.projectId,
        operation: request.kind,
        writesTo: connection(written),
        readsRowsOf: readsRows.map(connection),
        subjectId: subject.id,
        contentHash: request.contentHash,
        subject,
      });
      const created = await deps.insert(trx, actor, {
        projectId: request.projectId,
        kind: request.kind,
        subjectId: subject.id,
        subject,
        params,
        ...(request.total !== undefined && { total: request.total }),
        unit: request.unit,
        awaitingApprovalId: verdict.decision === 'await' ? verdict.approvalId : null,
      });
      await audit.record(trx, actor, {
        ...request.audit,
        projectId: request.projectId,
        details: { ...request.audit.details, run_id: created.id, status: created.status },
      });
      return created;
    });
    await deps.enqueue(run);
    return run;
  };
}
