// SAML single sign-on per organization (docs/contract.md §12.1): configuration and the service-provider endpoints.
import { sessionCookieWriter } from '../auth/auth.routes.ts';
import type { Module, Shared } from '../module.ts';
import { registerSamlRoutes } from './saml.routes.ts';
import { createSamlService } from './saml.service.ts';

export function samlModule(shared: Shared): Module {
  const { config, db, audit, auth, now, secretKey } = shared;
  const saml = createSamlService({ db, audit, auth, now, publicUrl: config.publicUrl });
  return {
    name: 'saml',
    routes: (api) =>
      registerSamlRoutes(api, {
        saml,
        publicUrl: config.publicUrl,
        setSessionCookies: sessionCookieWriter({ secretKey, cookieSecure: config.cookieSecure }),
      }),
  };
}
