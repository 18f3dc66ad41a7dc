// Signing in: password, 2FA and OAuth routes, signup, and the daily cleanup of dead sessions.
import type { Module, Shared } from '../module.ts';
import { registerAuthRoutes, sessionCookieWriter } from './auth.routes.ts';
import { registerOAuthRoutes } from './oauth.routes.ts';
import { createOAuthService } from './oauth.service.ts';
import { createOAuthProviders } from './oauth-providers.ts';
import { createSessionCleanup, SESSION_CLEANUP_JOB } from './session-cleanup.ts';
import { createSignupService } from './signup.service.ts';
import { registerTwoFactorRoutes } from './two-factor.routes.ts';

export function authModule(shared: Shared): Module {
  const { config, db, audit, auth, orgs, twoFactor, box, secretKey, logger, now } = shared;
  const signup = createSignupService({ orgs, auth, signupOpen: config.signupOpen });
  const oauth = createOAuthService({
    db,
    audit,
    auth,
    orgs,
    box,
    providers: createOAuthProviders(
      config.oauth,
      (provider) => `${config.publicUrl}/api/v1/auth/oauth/${provider}/callback`,
    ),
    signupOpen: config.signupOpen,
    now,
  });
  const cookieSecure = config.cookieSecure;
  return {
    name: 'auth',
    routes(api) {
      registerAuthRoutes(api, { auth, signup, secretKey, cookieSecure });
      registerTwoFactorRoutes(api, { twoFactor });
      registerOAuthRoutes(api, {
        oauth,
        publicUrl: config.publicUrl,
        cookieSecure,
        setSessionCookies: sessionCookieWriter({ secretKey, cookieSecure }),
      });
    },
    schedules: [
      {
        name: SESSION_CLEANUP_JOB,
        cron: config.sessionCleanupCron,
        run: createSessionCleanup({ db, logger, now }),
        retry: { limit: 3, delaySeconds: 30 },
        expireInSeconds: 10 * 60,
      },
    ],
  };
}
