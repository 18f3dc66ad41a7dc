// Audit export sinks of an organization (docs/contract.md §11.2): CRUD by organization admins, credentials sealed
// and write-only, an http sink's signing secret shown once, the lag and the last error visible, and
// a test that sends one synthetic entry right away. Every change is audited in its transaction.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { invalid, notFound } from '../../core/errors.ts';
import type { AuditSinkType } from '../../core/vocabulary.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { AuditSink } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { TargetGuard } from '../connections/target-guard.ts';
import { checkOutboundUrl } from '../webhooks/outbound-url.ts';
import { newSigningSecret } from '../webhooks/webhook-signing.ts';
import { type AuditExporter, SINK_PURPOSE } from './audit-exporter.ts';
import { findSink, headSeq, orgSinksQuery, updateSink } from './sinks.repo.ts';
import { toSinkResponse } from './sinks.schemas.ts';

export interface SinkInput {
  type: AuditSinkType;
  url: string;
  token?: string;
  headers?: Record<string, string>;
  active?: boolean;
}

export type SinksService = ReturnType<typeof createSinksService>;

export function createSinksService(deps: {
  db: Db;
  box: SecretBox;
  audit: AuditService;
  guard: TargetGuard;
  exporter: AuditExporter;
  now: () => Date;
}) {
  const { db, box, audit, guard, exporter, now } = deps;

  const checkUrl = (raw: string) => checkOutboundUrl(guard, raw);

  const headerNames = (sink: AuditSink): string[] =>
    sink.headers_sealed ? Object.keys(JSON.parse(box.open(sink.headers_sealed, SINK_PURPOSE.headers))) : [];

  async function view(sink: AuditSink) {
    return toSinkResponse(sink, headerNames(sink), await headSeq(db, sink.org_id));
  }

  async function load(actor: Actor, id: string): Promise<AuditSink> {
    const sink = await findSink(db, actor.principal.orgId, id);
    if (!sink) throw notFound('Audit sink');
    return sink;
  }

  const target = (sink: AuditSink) => ({ type: 'audit_sink', id: sink.id, label: sink.url });

  return {
    async create(actor: Actor, input: SinkInput) {
      if (input.type !== 'http' && !input.token)
        throw invalid(['body', 'token'], `A ${input.type} sink needs its token`, 'missing');
      const url = await checkUrl(input.url);
      const secret = input.type === 'http' ? newSigningSecret() : null;
      const at = now();
      const sink = await db.transaction().execute(async (trx) => {
        const created = await trx
          .insertInto('audit_sinks')
          .values({
            id: randomUUID(),
            org_id: actor.principal.orgId,
            type: input.type,
            url,
            token_sealed: input.token ? box.seal(input.token, SINK_PURPOSE.token) : null,
            headers_sealed: input.headers
              ? box.seal(JSON.stringify(input.headers), SINK_PURPOSE.headers)
              : null,
            secret_sealed: secret ? box.seal(secret, SINK_PURPOSE.secret) : null,
            active: input.active ?? true,
            failures: 0,
            last_error: null,
            created_at: at,
            updated_at: at,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await audit.record(trx, actor, {
          action: 'audit_sink.create',
          target: target(created),
          details: { type: created.type },
        });
        return created;
      });
      return { ...(await view(sink)), secret };
    },

    async list(actor: Actor, page: PageRequest) {
      const { rows, total } = await paginate(orgSinksQuery(db, actor.principal.orgId), page);
      return { rows: await Promise.all(rows.map(view)), total };
    },

    get: async (actor: Actor, id: string) => view(await load(actor, id)),

    async update(actor: Actor, id: string, input: Partial<Omit<SinkInput, 'type'>>) {
      const url = input.url === undefined ? undefined : await checkUrl(input.url);
      const sink = await db.transaction().execute(async (trx) => {
        const found = await findSink(trx, actor.principal.orgId, id);
        if (!found) throw notFound('Audit sink');
        const updated = await updateSink(trx, id, {
          ...(url !== undefined && { url }),
          ...(input.token !== undefined && { token_sealed: box.seal(input.token, SINK_PURPOSE.token) }),
          ...(input.headers !== undefined && {
            headers_sealed: box.seal(JSON.stringify(input.headers), SINK_PURPOSE.headers),
          }),
          // Turned on again: try at once rather than at the end of the back-off.
          ...(input.active !== undefined && {
            active: input.active,
            ...(input.active && { next_attempt_at: null }),
          }),
          updated_at: now(),
        });
        await audit.record(trx, actor, {
          action: 'audit_sink.update',
          target: target(updated),
          details: { changed: Object.keys(input) },
        });
        return updated;
      });
      return view(sink);
    },

    async remove(actor: Actor, id: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const sink = await findSink(trx, actor.principal.orgId, id);
        if (!sink) throw notFound('Audit sink');
        await trx.deleteFrom('audit_sinks').where('id', '=', id).execute();
        await audit.record(trx, actor, { action: 'audit_sink.delete', target: target(sink) });
      });
    },

    /** Sends one synthetic entry (seq 0, action audit_export.test) now; the cursor does not move. */
    async test(actor: Actor, id: string) {
      const sink = await load(actor, id);
      const at = now();
      const outcome = await exporter.send(sink, [
        {
          id: randomUUID(),
          seq: 0,
          action: 'audit_export.test',
          outcome: 'success',
          created_at: `${at.toISOString().slice(0, 19)}Z`,
          details: { sink_id: sink.id },
        },
      ]);
      await db.transaction().execute((trx) =>
        audit.record(trx, actor, {
          action: 'audit_sink.test',
          target: target(sink),
          outcome: outcome.ok ? 'success' : 'failure',
          details: { status_code: outcome.status },
        }),
      );
      return outcome.ok
        ? { ok: true, status_code: outcome.status, error: null }
        : { ok: false, status_code: outcome.status, error: outcome.error };
    },
  };
}
