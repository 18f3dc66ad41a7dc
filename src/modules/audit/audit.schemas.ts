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
    seq: Type.Integer({
      minimum: 1,
      description: "The entry's place in its organization's chain, from 1 without gaps",
    }),
    prev_hash: Type.String({ description: 'hash of the entry before (64 zeros for the first)' }),
    hash: Type.String({
      description:
        'SHA-256 (hex) over the canonical JSON of the entry without actor_label, target_label, ip and user_agent (which a purge redacts), and prev_hash',
    }),
  },
  { title: 'AuditEntry' },
);

export const AuditVerification = Type.Object(
  {
    ok: Type.Boolean(),
    entries: Type.Integer({ minimum: 0, description: 'Entries checked and found whole, from seq 1' }),
    first_broken_seq: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: 'The first place where an entry is missing, changed or linked to the wrong one',
    }),
  },
  { title: 'AuditVerification' },
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
  const { position: _, ...shown } = entry;
  return { ...shown, seq: Number(entry.seq), created_at: toTimestamp(entry.created_at) };
}
