// SAML routes: the organization admins' configuration under /admin/saml, and the service-provider
// endpoints under /auth/saml/{org_id}, which a browser reaches without a session: the metadata the
// identity provider imports, the start of a sign-in, and the ACS the identity provider posts to.

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { actorOf, anonymousActorOf } from '../../http/context.ts';
import { errors, NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { NewSession } from '../auth/auth.service.ts';
import { Redirect } from '../auth/oauth.schemas.ts';
import {
  AcsBody,
  PutSamlConfigBody,
  SamlConfigSchema,
  SamlOrgParams,
  toSamlConfigResponse,
} from './saml.schemas.ts';
import type { SamlService } from './saml.service.ts';

export interface SamlRoutesDeps {
  saml: SamlService;
  publicUrl: string;
  setSessionCookies: (reply: FastifyReply, session: NewSession) => void;
}

const FORM = 'application/x-www-form-urlencoded';
const errorResponse = (status: 401 | 404 | 409, description: string) => ({
  [status]: Type.Ref('Error', { description }),
});

export function registerSamlRoutes(app: App, deps: SamlRoutesDeps): void {
  const { saml, publicUrl, setSessionCookies } = deps;
  const adminTags = ['saml'];

  app.get(
    '/admin/saml',
    {
      config: { action: 'saml.read' },
      schema: {
        operationId: 'getSamlConfig',
        tags: adminTags,
        summary: "The organization's SAML single sign-on configuration (organization admins)",
        response: { 200: SamlConfigSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => toSamlConfigResponse(await saml.get(actorOf(request)), publicUrl),
  );

  app.put(
    '/admin/saml',
    {
      config: { action: 'saml.manage' },
      schema: {
        operationId: 'putSamlConfig',
        tags: adminTags,
        summary: "Set the organization's identity provider (organization admins)",
        description:
          'From `idp_metadata_xml`, or from `idp_entity_id`, `idp_sso_url` and `idp_certificate`; ' +
          'replaces the previous configuration. The answer names what to enter at the identity ' +
          'provider: `sp_entity_id` (Audience), `sp_acs_url` (ACS, HTTP-POST) and `sp_metadata_url`.',
        body: PutSamlConfigBody,
        response: { 200: SamlConfigSchema, ...errors(401, 403) },
      },
    },
    async (request) => toSamlConfigResponse(await saml.put(actorOf(request), request.body), publicUrl),
  );

  app.delete(
    '/admin/saml',
    {
      config: { action: 'saml.manage' },
      schema: {
        operationId: 'deleteSamlConfig',
        tags: adminTags,
        summary: 'Remove SAML single sign-on (and its enforcement) from the organization',
        response: { 204: NoContent, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await saml.remove(actorOf(request));
      return reply.code(204).send();
    },
  );

  const tags = ['auth'];

  app.get(
    '/auth/saml/:org_id/metadata',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'samlMetadata',
        tags,
        summary: "This service's SAML metadata for the organization (its URL is the SP entity id)",
        description: 'SPSSODescriptor with the ACS URL (HTTP-POST) and the e-mail NameID format.',
        security: [],
        params: SamlOrgParams,
        response: {
          200: {
            description: 'SAML metadata',
            content: { 'application/samlmetadata+xml': { schema: Type.String() } },
          },
          ...errors(),
          ...errorResponse(404, 'SAML not configured for this organization'),
        },
      },
    },
    async (request, reply) => {
      const xml = await saml.metadata(request.params.org_id);
      return reply.type('application/samlmetadata+xml').send(xml);
    },
  );

  app.get(
    '/auth/saml/:org_id/login',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'samlLogin',
        tags,
        summary: 'Start signing in through the organization identity provider: a redirect to it',
        description:
          'Answers 302 to the identity provider with an AuthnRequest (HTTP-Redirect binding). Its id ' +
          'is kept 10 minutes: the Response must answer it. Open this URL in the browser, not with fetch. ' +
          'A stored `idp_sso_url` that is not https:// (http:// only for a loopback host), saved before ' +
          'that rule, answers 409 until an organization admin corrects it.',
        security: [],
        params: SamlOrgParams,
        response: {
          302: Redirect('To the identity provider'),
          ...errors(),
          ...errorResponse(404, 'SAML not configured for this organization'),
          ...errorResponse(409, 'The stored SSO URL is not https:// (http:// only for a loopback host)'),
        },
      },
    },
    async (request, reply) => reply.redirect(await saml.loginUrl(request.params.org_id), 302),
  );

  // The identity provider's browser POST is a form, the one body this JSON API accepts that way: the
  // parser exists only in this route's scope.
  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.addContentTypeParser(FORM, { parseAs: 'string' }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    scope.post(
      '/auth/saml/:org_id/acs',
      {
        config: { auth: 'public' },
        schema: {
          operationId: 'samlAcs',
          tags,
          summary: 'Assertion Consumer Service: where the identity provider posts the SAML Response',
          description:
            'HTTP-POST binding (`application/x-www-form-urlencoded`). The Response or its assertion ' +
            'must be signed by the configured certificate, come from its issuer, be addressed to this ' +
            'ACS (Destination, Recipient) and this service (Audience), answer an AuthnRequest sent by ' +
            '`/login` in the last 10 minutes (InResponseTo; unsolicited responses are refused), be ' +
            'within its time bounds (3 minutes of skew) and be used once. The NameID (e-mail, any ' +
            'case) or an `externalId` attribute names an active user of the organization; no account ' +
            "is created. Signed in: the session cookies and 302 to the web application; the service's " +
            "own 2FA does not apply (the identity provider's does). Anything else: 401.",
          security: [],
          params: SamlOrgParams,
          body: AcsBody,
          consumes: [FORM],
          response: {
            302: Redirect('To the web application, signed in'),
            ...errors(415),
            ...errorResponse(401, 'SAML Response refused'),
          },
        },
      },
      async (request, reply) => {
        const session = await saml.acs(
          anonymousActorOf(request),
          request.params.org_id,
          request.body.SAMLResponse,
        );
        setSessionCookies(reply, session);
        return reply.redirect(`${publicUrl}/`, 302);
      },
    );
  });
}
