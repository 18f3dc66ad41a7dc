import { Type } from 'typebox';
import { AUDIT_SINK_TYPES } from '../../core/vocabulary.ts';
import { DocumentedAs, Nullable, StringEnum, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { AuditSink } from '../../store/tables.ts';

const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  description:
    "The receiver: an http sink's endpoint, Splunk's HEC URL (…/services/collector/event), or Datadog's logs intake (…/api/v2/logs). The webhooks' address rules apply.",
});

const Headers = Type.Record(
  Type.String({ pattern: '^[A-Za-z0-9-]{1,100}$' }),
  Type.String({ maxLength: 2000 }),
  {
    maxProperties: 20,
    description: 'Extra request headers; stored sealed and never shown again (only their names)',
  },
);

export const AuditSinkSchema = Type.Object(
  {
    id: Uuid,
    type: StringEnum(AUDIT_SINK_TYPES),
    url: Type.String(),
    active: Type.Boolean(),
    has_token: Type.Boolean({ description: 'The token is write-only' }),
    header_names: Type.Array(Type.String()),
    last_exported_seq: Type.Integer({ minimum: 0, description: 'Every entry up to this seq was accepted' }),
    lag: Type.Integer({
      minimum: 0,
      description: 'Entries of the organization not yet accepted by the sink',
    }),
    last_exported_at: Nullable(Timestamp),
    last_error: Nullable(Type.String()),
    last_error_at: Nullable(Timestamp),
    failures: Type.Integer({ minimum: 0, description: 'Failed attempts in a row' }),
    next_attempt_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'AuditSink' },
);

export const CreatedAuditSinkSchema = Type.Object(
  {
    ...AuditSinkSchema.properties,
    secret: Nullable(
      Type.String({
        description: "An http sink's signing secret (whsec_…), in this answer only; null for other types",
      }),
    ),
  },
  { title: 'CreatedAuditSink' },
);

const CreateAuditSinkFields = Type.Object(
  {
    type: StringEnum(AUDIT_SINK_TYPES),
    url: Url,
    token: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: 'Required for splunk_hec and datadog' }),
    ),
    headers: Type.Optional(Headers),
    active: Type.Optional(Type.Boolean({ default: true })),
  },
  { title: 'CreateAuditSinkRequest', additionalProperties: false },
);

/**
 * A splunk_hec or datadog sink needs its token; an http sink signs with a secret the service makes.
 * The document says so with `oneOf`; the service checks it itself (422 on `body.token`), so the
 * error names the field instead of listing the alternatives.
 */
export const CreateAuditSinkBody = DocumentedAs(
  {
    ...CreateAuditSinkFields,
    oneOf: [
      { properties: { type: { const: 'http' } }, required: ['type'] },
      { properties: { type: { enum: ['splunk_hec', 'datadog'] } }, required: ['type', 'token'] },
    ],
  },
  CreateAuditSinkFields,
);

export const UpdateAuditSinkBody = Type.Object(
  {
    url: Type.Optional(Url),
    token: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    headers: Type.Optional(Headers),
    active: Type.Optional(Type.Boolean()),
  },
  { title: 'UpdateAuditSinkRequest', additionalProperties: false },
);

export const SinkTestResult = Type.Object(
  {
    ok: Type.Boolean(),
    status_code: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
  },
  { title: 'AuditSinkTestResult' },
);

export function toSinkResponse(sink: AuditSink, headerNames: string[], head: number) {
  const exported = Number(sink.last_exported_seq);
  return {
    id: sink.id,
    type: sink.type,
    url: sink.url,
    active: sink.active,
    has_token: sink.token_sealed !== null,
    header_names: headerNames,
    last_exported_seq: exported,
    lag: Math.max(0, head - exported),
    last_exported_at: toTimestamp(sink.last_exported_at),
    last_error: sink.last_error,
    last_error_at: toTimestamp(sink.last_error_at),
    failures: sink.failures,
    next_attempt_at: toTimestamp(sink.next_attempt_at),
    created_at: toTimestamp(sink.created_at),
    updated_at: toTimestamp(sink.updated_at),
  };
}
