// API keys: `ak_<prefix>_<secret>`, the secret shown once and stored as a hash. A key acts for its
// owner with at most its scopes, and a key can only create keys with scopes it has itself.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { forbidden, invalid, notFound } from '../../core/errors.ts';
import { hasScope, highestScope } from '../../security/policy.ts';
import { randomBase62, sha256 } from '../../security/tokens.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { Scope } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { findUserKey, insertKey, revokeKey, userKeysQuery } from './api-keys.repo.ts';

export type ApiKeysService = ReturnType<typeof createApiKeysService>;

export function createApiKeysService(deps: { db: Db; audit: AuditService; now: () => Date }) {
  const { db, audit, now } = deps;
  return {
    async create(actor: Actor, input: { name: string; scopes: Scope[]; expires_at?: string | null }) {
      const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
      if (expiresAt && expiresAt <= now()) throw invalid(['body', 'expires_at'], 'Must be in the future');
      if (!hasScope(actor.principal.scopes, highestScope(input.scopes))) {
        throw forbidden('A key cannot create a key with wider scopes than its own');
      }
      const prefix = randomBase62(8);
      const secret = randomBase62(40);
      return db.transaction().execute(async (trx) => {
        const key = await insertKey(trx, {
          id: randomUUID(),
          org_id: actor.principal.orgId,
          user_id: actor.principal.userId,
          name: input.name.trim(),
          prefix,
          secret_hash: sha256(secret),
          scopes: input.scopes,
          expires_at: expiresAt,
          created_at: now(),
        });
        await audit.record(trx, actor, {
          action: 'api_key.create',
          target: { type: 'api_key', id: key.id, label: key.name },
          details: { scopes: key.scopes, prefix },
        });
        return { ...key, secret: `ak_${prefix}_${secret}` };
      });
    },

    list: (actor: Actor, page: PageRequest) => paginate(userKeysQuery(db, actor.principal.userId), page),

    async get(actor: Actor, id: string) {
      const key = await findUserKey(db, actor.principal.userId, id);
      if (!key) throw notFound('API key');
      return key;
    },

    async revoke(actor: Actor, id: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const key = await findUserKey(trx, actor.principal.userId, id);
        if (!key) throw notFound('API key');
        await revokeKey(trx, id, now());
        await audit.record(trx, actor, {
          action: 'api_key.revoke',
          target: { type: 'api_key', id, label: key.name },
        });
      });
    },
  };
}
