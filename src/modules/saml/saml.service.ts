// SAML single sign-on (docs/contract.md §12.1). Organization admins set their identity provider (from its metadata
// or three fields); users start at /login, which sends them to it with an AuthnRequest, and come back
// through the ACS, which accepts a Response only after node-saml's checks and ours (saml-sp.ts), and
// then finds an active user of that organization: SAML creates no account. Every ACS attempt is
// audited as `auth.saml_login`, the refusals with their reason, never with the assertion itself.
import type { Actor, AnonymousActor } from '../../core/actors.ts';
import { AppError, conflict, invalid, notFound, unauthenticated } from '../../core/errors.ts';
import type { Db } from '../../store/db.ts';
import type { SamlConfig, User } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { AuthService, NewSession } from '../auth/auth.service.ts';
import {
  consumeAssertionId,
  deleteSamlConfig,
  findSamlConfig,
  findSamlUser,
  type SamlConfigValues,
  upsertSamlConfig,
} from './saml.repo.ts';
import { toPemCertificate } from './saml-certificate.ts';
import { type IdpSettings, readIdpMetadata } from './saml-idp-metadata.ts';
import { checkAssertion, checkResponse, SamlRefusal, samlProvider, spUrls } from './saml-sp.ts';
import { isAcceptedSsoUrl, SSO_URL_RULE } from './saml-sso-url.ts';
import { XmlError } from './saml-xml.ts';

export type SamlService = ReturnType<typeof createSamlService>;

const NOT_CONFIGURED = 'SAML single sign-on is not configured for this organization';

export interface SamlConfigInput {
  idp_metadata_xml?: string;
  idp_entity_id?: string;
  idp_sso_url?: string;
  idp_certificate?: string;
  enforced?: boolean;
}

/** The identity provider's settings from the metadata or the three fields, or a 422 naming the field. */
function settingsOf(input: SamlConfigInput): IdpSettings {
  const fields = ['idp_entity_id', 'idp_sso_url', 'idp_certificate'] as const;
  const given = fields.filter((f) => input[f] !== undefined);
  let settings: IdpSettings;
  if (input.idp_metadata_xml !== undefined) {
    if (given.length > 0) {
      throw invalid(
        ['body', given[0] as string],
        'Give idp_metadata_xml or the idp_* fields, not both',
        'extra_forbidden',
      );
    }
    try {
      settings = readIdpMetadata(input.idp_metadata_xml);
    } catch (error) {
      if (error instanceof XmlError) throw invalid(['body', 'idp_metadata_xml'], error.message);
      throw error;
    }
  } else {
    const missing = fields.find((f) => input[f] === undefined);
    if (missing) throw invalid(['body', missing], 'Field required (or give idp_metadata_xml)', 'missing');
    settings = {
      idp_entity_id: input.idp_entity_id as string,
      idp_sso_url: input.idp_sso_url as string,
      idp_certificate: input.idp_certificate as string,
    };
  }
  const loc = input.idp_metadata_xml !== undefined ? 'idp_metadata_xml' : 'idp_certificate';
  const pem = toPemCertificate(settings.idp_certificate);
  if (!pem) throw invalid(['body', loc], 'The certificate is not an X.509 certificate (PEM or base64)');
  if (!isAcceptedSsoUrl(settings.idp_sso_url)) {
    throw invalid(['body', input.idp_metadata_xml !== undefined ? loc : 'idp_sso_url'], SSO_URL_RULE);
  }
  return { ...settings, idp_certificate: pem };
}

/** What the audit trail and the caller are told about a refusal of node-saml's, by its check. */
const REFUSED = {
  signature: 'The SAML Response is not signed by the configured identity provider certificate',
  in_response_to:
    'The SAML Response does not answer a sign-in request of this service made in the last 10 minutes: start the sign-in again',
  audience: 'The SAML assertion is meant for another service (Audience)',
  time: 'The SAML assertion is expired or not yet valid',
  invalid_response: 'The SAML Response was refused',
} as const;

function nodeSamlReason(message: string): keyof typeof REFUSED {
  if (/signature/i.test(message)) return 'signature';
  if (/InResponseTo/i.test(message)) return 'in_response_to';
  if (/audience/i.test(message)) return 'audience';
  if (/expired|not yet valid|subject confirmation/i.test(message)) return 'time';
  return 'invalid_response';
}

export function createSamlService(deps: {
  db: Db;
  audit: AuditService;
  auth: Pick<AuthService, 'openSsoSession'>;
  now: () => Date;
  publicUrl: string;
}) {
  const { db, audit, auth, now, publicUrl } = deps;

  async function configOf(orgId: string): Promise<SamlConfig> {
    const config = await findSamlConfig(db, orgId);
    if (!config) throw new AppError('not_found', NOT_CONFIGURED);
    return config;
  }

  const provider = (config: SamlConfig) => samlProvider({ db, now, publicUrl, config });

  return {
    async get(actor: Actor): Promise<SamlConfig> {
      const config = await findSamlConfig(db, actor.principal.orgId);
      if (!config) throw notFound('SAML configuration');
      return config;
    },

    async put(actor: Actor, input: SamlConfigInput): Promise<SamlConfig> {
      const values: SamlConfigValues = { ...settingsOf(input), enforced: input.enforced ?? false };
      return db.transaction().execute(async (trx) => {
        const config = await upsertSamlConfig(trx, actor.principal.orgId, values, now());
        await audit.record(trx, actor, {
          action: 'saml.config.update',
          target: { type: 'saml_config', id: actor.principal.orgId },
          details: {
            idp_entity_id: values.idp_entity_id,
            idp_sso_url: values.idp_sso_url,
            enforced: values.enforced,
            from: input.idp_metadata_xml !== undefined ? 'metadata' : 'fields',
          },
        });
        return config;
      });
    },

    async remove(actor: Actor): Promise<void> {
      await db.transaction().execute(async (trx) => {
        if (!(await deleteSamlConfig(trx, actor.principal.orgId))) throw notFound('SAML configuration');
        await audit.record(trx, actor, {
          action: 'saml.config.delete',
          target: { type: 'saml_config', id: actor.principal.orgId },
        });
      });
    },

    /** This service provider's metadata XML for the organization's identity provider. */
    async metadata(orgId: string): Promise<string> {
      return provider(await configOf(orgId)).generateServiceProviderMetadata(null);
    },

    /**
     * The identity provider's URL with a fresh AuthnRequest, whose id is kept for the ACS. A URL
     * stored before the https rule is refused (409) until an admin corrects it: never redirected to.
     */
    async loginUrl(orgId: string): Promise<string> {
      const config = await configOf(orgId);
      if (!isAcceptedSsoUrl(config.idp_sso_url))
        throw conflict(`${SSO_URL_RULE}: an organization admin must correct the SAML configuration`);
      return provider(config).getAuthorizeUrlAsync('', undefined, {});
    },

    /** The ACS: a session for the user the identity provider vouches for, or an audited 401. */
    async acs(actor: AnonymousActor, orgId: string, samlResponse: string): Promise<NewSession> {
      const config = await findSamlConfig(db, orgId);

      async function refuse(reason: string, detail: string, user?: User, extra: object = {}): Promise<never> {
        await audit.record(db, actor, {
          action: 'auth.saml_login',
          outcome: 'failure',
          // An unconfigured or unknown organization id is the caller's word only: not theirs to log into.
          orgId: config ? orgId : null,
          target: user ? { type: 'user', id: user.id, label: user.email } : undefined,
          details: { reason, ...extra },
        });
        throw unauthenticated(detail);
      }

      if (!config) return refuse('not_configured', NOT_CONFIGURED);
      const { acsUrl } = spUrls(publicUrl, orgId);

      let checked: ReturnType<typeof checkAssertion>;
      try {
        const expected = { idpEntityId: config.idp_entity_id, acsUrl };
        const { inResponseTo } = checkResponse(
          Buffer.from(samlResponse, 'base64').toString('utf8'),
          expected,
        );
        const { profile } = await provider(config).validatePostResponseAsync({ SAMLResponse: samlResponse });
        if (!profile) return refuse('no_assertion', 'The SAML Response carries no assertion');
        checked = checkAssertion(profile.getAssertionXml?.() ?? '', expected, inResponseTo, now());
      } catch (error) {
        if (error instanceof AppError) throw error;
        if (error instanceof SamlRefusal) return refuse(error.reason, error.message);
        // node-saml's refusals are plain Errors; their message names the failed check, not a secret.
        const message = error instanceof Error ? error.message : String(error);
        const reason = nodeSamlReason(message);
        return refuse(reason, REFUSED[reason], undefined, { error: message.slice(0, 300) });
      }

      const user = await findSamlUser(db, orgId, { email: checked.nameId, externalId: checked.externalId });
      const who = { name_id: checked.nameId, external_id: checked.externalId };
      if (!user)
        return refuse(
          'unknown_user',
          'No user of this organization matches the SAML assertion',
          undefined,
          who,
        );
      if (!user.active) return refuse('deactivated', 'This account is deactivated', user);

      try {
        return await auth.openSsoSession(actor, user, async (trx, sessionId) => {
          const first = await consumeAssertionId(trx, {
            org_id: orgId,
            assertion_id: checked.assertionId,
            used_at: now(),
            expires_at: checked.usableUntil,
          });
          if (!first) throw new SamlRefusal('replayed', 'This SAML assertion was already used');
          await audit.record(trx, actor, {
            action: 'auth.saml_login',
            orgId,
            target: { type: 'user', id: user.id, label: user.email },
            details: {
              session_id: sessionId,
              assertion_id: checked.assertionId,
              idp_entity_id: config.idp_entity_id,
            },
          });
        });
      } catch (error) {
        if (error instanceof SamlRefusal) return refuse(error.reason, error.message, user);
        throw error;
      }
    },
  };
}
