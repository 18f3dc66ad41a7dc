// SAML single sign-on (src/modules/saml): each organization's identity provider, the AuthnRequest ids
// sent and not yet answered, and the assertion ids already accepted.
import type { Generated } from 'kysely';
import type { Timestamp } from './columns.ts';

export interface SamlConfigsTable {
  org_id: string;
  idp_entity_id: string;
  idp_sso_url: string;
  /** The identity provider's signing certificate, PEM. */
  idp_certificate: string;
  /** Password and OAuth sign-in refused for the organization's users except its owners. */
  enforced: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SamlRequestsTable {
  org_id: string;
  /** The AuthnRequest's ID, which the Response must name in InResponseTo. */
  request_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface SamlAssertionsTable {
  org_id: string;
  assertion_id: string;
  used_at: Timestamp;
  expires_at: Timestamp;
}
