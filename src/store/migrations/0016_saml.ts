// SAML single sign-on (docs/contract.md §12.1): one identity provider per organization, the AuthnRequest ids this
// service sent (the ACS POST arrives cross-site, where no SameSite cookie can carry them, so they live
// here, for any process to check), and the assertion ids already accepted (each is good once).
// Numbered 0015 so that SCIM's migration, written at the same time, can take 0014.
import { type Kysely, sql } from 'kysely';

const now = sql`now()`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('saml_configs')
    .addColumn('org_id', 'uuid', (c) => c.primaryKey().references('organizations.id').onDelete('cascade'))
    .addColumn('idp_entity_id', 'text', (c) => c.notNull())
    .addColumn('idp_sso_url', 'text', (c) => c.notNull())
    // A public certificate (PEM): nothing secret to seal.
    .addColumn('idp_certificate', 'text', (c) => c.notNull())
    .addColumn('enforced', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable('saml_requests')
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('saml_requests_pk', ['org_id', 'request_id'])
    .execute();

  await db.schema
    .createTable('saml_assertions')
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('assertion_id', 'text', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    // Past this the assertion is refused by its own time bounds, so its id may be forgotten.
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('saml_assertions_pk', ['org_id', 'assertion_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('saml_assertions').execute();
  await db.schema.dropTable('saml_requests').execute();
  await db.schema.dropTable('saml_configs').execute();
}
