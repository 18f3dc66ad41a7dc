import { Type } from 'typebox';
import { Nullable, PageQuery, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { AuditEntry } from '../../store/tables.ts';

export const AuditEntrySchema = Type.Object(
  {
    id: Uuid,
    action: Type.String({ description: 'What happened, e.g. project.create, auth.login' }),
    outcome: Type.String({ enum: ['success', 'failure', 'denied'] }),
    actor_type: Type.String({ enum: ['user', 'api_key', 'system', 'anonymous'] }),
    actor_id: Nullable(Uuid),
    actor_label: Nullable(
      Type.String({ description: 'The actor as named at the time; redacted after a purge' }),
    ),
    api_key_id: Nullable(Uuid),
    target_type: Nullable(Type.String()),
    target_id: Nullable(Type.String()),
    target_label: Nullable(Type.String()),
    project_id: Nullable(Uuid),
    ip: Nullable(Type.String()),
    user_agent: Nullable(Type.String()),
    details: Type.Record(Type.String(), Type.Unknown()),
    created_at: Timestamp,
  },
  { title: 'AuditEntry' },
);

export const AuditQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    project_id: Type.Optional(Uuid),
    actor_id: Type.Optional(Uuid),
    action: Type.Optional(Type.String({ maxLength: 100 })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or after this time' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Entries before this time' })),
  }),
]);

export function toAuditResponse(entry: AuditEntry) {
  return { ...entry, created_at: toTimestamp(entry.created_at) };
}
