// SAML single sign-on per organization (API §12.1): configuration, the service-provider endpoints,
// and a daily pass that forgets request and assertion ids past their time.
import { sessionCookieWriter } from '../auth/auth.routes.ts';
import type { Module, Shared } from '../module.ts';
import { deleteExpiredSamlIds } from './saml.repo.ts';
import { registerSamlRoutes } from './saml.routes.ts';
import { createSamlService } from './saml.service.ts';

export const SAML_CLEANUP_JOB = 'saml_ids_cleanup';

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
    schedules: [
      {
        name: SAML_CLEANUP_JOB,
        cron: '23 4 * * *',
        run: async () => ({ deleted: await deleteExpiredSamlIds(db, now()) }),
        retry: { limit: 3, delaySeconds: 30 },
        expireInSeconds: 10 * 60,
      },
    ],
  };
}
