// 2FA management for the signed-in user: setup, enable, disable. Session only: an API key can neither
// read a seed nor turn the second factor off (API keys are outside 2FA altogether).
import { actorOf } from '../../http/context.ts';
import { errors, NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import {
  DisableTwoFactorBody,
  EnableTwoFactorBody,
  RecoveryCodesResponse,
  TwoFactorSetupResponse,
} from './two-factor.schemas.ts';
import type { TwoFactorService } from './two-factor.service.ts';

export function registerTwoFactorRoutes(app: App, { twoFactor }: { twoFactor: TwoFactorService }): void {
  const tags = ['auth'];

  app.post(
    '/auth/2fa/setup',
    {
      config: { auth: 'session', action: 'self.update' },
      schema: {
        operationId: 'setupTwoFactor',
        tags,
        summary: 'Start enrolling an authenticator app: a new TOTP seed, shown once',
        description:
          'The seed stays pending until POST /auth/2fa/enable confirms it with a code; a new setup ' +
          'replaces a pending seed. 409 when 2FA is already enabled.',
        response: { 200: TwoFactorSetupResponse, ...errors(401, 403, 409) },
      },
    },
    async (request) => {
      const { secret, otpauthUrl } = await twoFactor.setup(actorOf(request));
      return { secret, otpauth_url: otpauthUrl };
    },
  );

  app.post(
    '/auth/2fa/enable',
    {
      config: { auth: 'session', action: 'self.update' },
      schema: {
        operationId: 'enableTwoFactor',
        tags,
        summary: 'Turn 2FA on with a code of the pending seed; returns ten one-time recovery codes',
        description:
          'The recovery codes are shown only here. A wrong code answers 422 at `body.code`; no setup ' +
          'in progress, or 2FA already on, answers 409.',
        body: EnableTwoFactorBody,
        response: { 200: RecoveryCodesResponse, ...errors(401, 403, 409) },
      },
    },
    async (request) => ({
      recovery_codes: await twoFactor.enable(actorOf(request), request.body.code),
    }),
  );

  app.post(
    '/auth/2fa/disable',
    {
      config: { auth: 'session', action: 'self.update' },
      schema: {
        operationId: 'disableTwoFactor',
        tags,
        summary: 'Turn 2FA off with a current TOTP code or an unused recovery code',
        description:
          'The seed and the recovery codes are erased. A wrong or replayed code answers 422 at ' +
          '`body.code`; 409 when 2FA is not enabled.',
        body: DisableTwoFactorBody,
        response: { 204: NoContent, ...errors(401, 403, 409) },
      },
    },
    async (request, reply) => {
      await twoFactor.disable(actorOf(request), request.body.code);
      return reply.code(204).send();
    },
  );
}
