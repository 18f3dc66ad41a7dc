import { Type } from 'typebox';
import { SCOPES } from '../../core/vocabulary.ts';
import { Name, Nullable, StringEnum, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { Scope } from '../../store/tables.ts';

export { SCOPES };

const scopesDescription =
  '`read` = GET; `write` = POST, PUT and PATCH on operational resources; `admin` = DELETE, policies, ' +
  'members, API keys and organization settings. `admin` implies `write`, `write` implies `read`. ' +
  "A key never exceeds its owner's current roles.";

export const ApiKeySchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    scopes: Type.Array(StringEnum(SCOPES), { description: scopesDescription }),
    prefix: Type.String({ description: 'The public part of the key: ak_<prefix>_…' }),
    expires_at: Nullable(Timestamp),
    revoked_at: Nullable(Timestamp),
    created_at: Timestamp,
    last_used_at: Nullable(Timestamp),
  },
  { title: 'ApiKey' },
);

export const CreatedApiKeySchema = Type.Object(
  {
    ...ApiKeySchema.properties,
    secret: Type.String({ description: 'The whole key, ak_<prefix>_<secret>: shown here once, never again' }),
  },
  { title: 'CreatedApiKey' },
);

export const CreateApiKeyBody = Type.Object(
  {
    name: Name,
    scopes: Type.Array(StringEnum(SCOPES), {
      minItems: 1,
      uniqueItems: true,
      description: scopesDescription,
    }),
    expires_at: Type.Optional(
      Nullable(
        Type.String({ format: 'date-time', description: 'In the future; omitted or null: never expires' }),
      ),
    ),
  },
  { title: 'CreateApiKeyRequest', additionalProperties: false },
);

export function toApiKeyResponse(key: {
  id: string;
  name: string;
  scopes: Scope[];
  prefix: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
  last_used_at: Date | null;
}) {
  return {
    ...key,
    expires_at: toTimestamp(key.expires_at),
    revoked_at: toTimestamp(key.revoked_at),
    created_at: toTimestamp(key.created_at),
    last_used_at: toTimestamp(key.last_used_at),
  };
}
