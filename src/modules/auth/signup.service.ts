// Self-service signup: a new organization on the Starter plan (docs/contract.md §11.3, whatever BILLING_MODE)
// with the new user as its owner, signed in at once. Refused while SIGNUP=closed.

import type { AnonymousActor } from '../../core/actors.ts';
import { AppError, forbidden } from '../../core/errors.ts';
import type { OrgsService } from '../orgs/orgs.service.ts';
import type { AuthService, NewSession } from './auth.service.ts';

export type SignupService = ReturnType<typeof createSignupService>;

export const SIGNUP_CLOSED = 'Signup is closed on this server';

export function createSignupService(deps: { orgs: OrgsService; auth: AuthService; signupOpen: boolean }) {
  const { orgs, auth, signupOpen } = deps;
  return {
    async signup(
      actor: AnonymousActor,
      input: { email: string; password: string; name: string; organization_name: string },
    ): Promise<NewSession> {
      if (!signupOpen) throw forbidden(SIGNUP_CLOSED);
      const { owner } = await orgs.createWithOwner(
        { orgName: input.organization_name, email: input.email, password: input.password, name: input.name },
        { actor, source: 'signup' },
      );
      // The login seam, like every other sign-in; a user made a moment ago has no second factor.
      const result = await auth.completeLogin(actor, owner, 'password');
      if (result.kind !== 'session') throw new AppError('internal', 'Internal Server Error');
      return result.session;
    },
  };
}
