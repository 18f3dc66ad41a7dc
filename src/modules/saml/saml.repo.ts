// SAML in the store: an organization's identity provider, the AuthnRequest ids sent (checked and
// consumed by the ACS of any process), and the assertion ids already accepted.
import type { Kysely } from 'kysely';
import type { Database, SamlConfig, User } from '../../store/tables.ts';

type Executor = Kysely<Database>;

export interface SamlConfigValues {
  idp_entity_id: string;
  idp_sso_url: string;
  idp_certificate: string;
  enforced: boolean;
}

export async function findSamlConfig(db: Executor, orgId: string): Promise<SamlConfig | undefined> {
  return db.selectFrom('saml_configs').selectAll().where('org_id', '=', orgId).executeTakeFirst();
}

/** True when the organization signs in through SAML only (its owners excepted, by the caller). */
export async function isSamlEnforced(db: Executor, orgId: string): Promise<boolean> {
  const row = await db
    .selectFrom('saml_configs')
    .select('enforced')
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  return row?.enforced === true;
}

export async function upsertSamlConfig(
  db: Executor,
  orgId: string,
  values: SamlConfigValues,
  at: Date,
): Promise<SamlConfig> {
  return db
    .insertInto('saml_configs')
    .values({ org_id: orgId, ...values, created_at: at, updated_at: at })
    .onConflict((oc) => oc.column('org_id').doUpdateSet({ ...values, updated_at: at }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteSamlConfig(db: Executor, orgId: string): Promise<boolean> {
  const result = await db.deleteFrom('saml_configs').where('org_id', '=', orgId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function insertSamlRequest(
  db: Executor,
  row: { org_id: string; request_id: string; created_at: Date; expires_at: Date },
): Promise<void> {
  await db.insertInto('saml_requests').values(row).execute();
}

/** When a live request of this organization was sent, or undefined (unknown, expired or used). */
export async function findLiveSamlRequest(
  db: Executor,
  orgId: string,
  requestId: string,
  now: Date,
): Promise<Date | undefined> {
  const row = await db
    .selectFrom('saml_requests')
    .select('created_at')
    .where('org_id', '=', orgId)
    .where('request_id', '=', requestId)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.created_at;
}

export async function deleteSamlRequest(db: Executor, orgId: string, requestId: string): Promise<void> {
  await db
    .deleteFrom('saml_requests')
    .where('org_id', '=', orgId)
    .where('request_id', '=', requestId)
    .execute();
}

/**
 * Marks an assertion id as used; false when it already was. The primary key decides, so two ACS
 * posts of one assertion racing each other cannot both win.
 */
export async function consumeAssertionId(
  db: Executor,
  row: { org_id: string; assertion_id: string; used_at: Date; expires_at: Date },
): Promise<boolean> {
  // DO NOTHING rather than catching the violation: inside a transaction an error would abort it.
  const result = await db
    .insertInto('saml_assertions')
    .values(row)
    .onConflict((oc) => oc.columns(['org_id', 'assertion_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** The live (not deleted) user of the organization named by a SAML NameID or SCIM externalId. */
export async function findSamlUser(
  db: Executor,
  orgId: string,
  by: { email: string | null; externalId: string | null },
): Promise<User | undefined> {
  return (
    db
      .selectFrom('users')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('deleted_at', 'is', null)
      .where((eb) => {
        const ors = [];
        if (by.email) ors.push(eb('email', '=', by.email.toLowerCase()));
        if (by.externalId) ors.push(eb('scim_external_id', '=', by.externalId));
        return ors.length > 0 ? eb.or(ors) : eb.val(false);
      })
      // An e-mail match first: it is what the identity provider was asked for.
      .orderBy((eb) =>
        eb
          .case()
          .when('email', '=', (by.email ?? '').toLowerCase())
          .then(0)
          .else(1)
          .end(),
      )
      .executeTakeFirst()
  );
}

/**
 * Forgets an organization's request and assertion ids past their time (they would be refused
 * anyway). Done as each sign-in starts, so the tables stay as small as the sign-ins in flight
 * without a schedule of their own.
 */
export async function deleteExpiredSamlIds(db: Executor, orgId: string, now: Date): Promise<void> {
  await db.deleteFrom('saml_requests').where('org_id', '=', orgId).where('expires_at', '<=', now).execute();
  await db.deleteFrom('saml_assertions').where('org_id', '=', orgId).where('expires_at', '<=', now).execute();
}
