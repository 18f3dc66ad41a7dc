import { Type } from 'typebox';
import { StringEnum } from '../../http/schemas.ts';
import { OAUTH_PROVIDERS } from './oauth-providers.ts';

export const OAuthProviderParams = Type.Object({
  provider: StringEnum(OAUTH_PROVIDERS, {
    description:
      'The provider. A name outside this list is a malformed path (422); a listed provider without ' +
      'configuration answers 404 `OAuth provider not configured`.',
  }),
});

/**
 * What the provider appends to the callback URL. Other parameters providers add (`scope`, `iss`,
 * `authuser`, `prompt`…) are accepted and passed on to the checks.
 */
export const OAuthCallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 2048, description: 'The authorization code' })),
    state: Type.Optional(Type.String({ maxLength: 512, description: 'Must equal the state of the sign-in' })),
    error: Type.Optional(
      Type.String({
        maxLength: 256,
        description: 'Set by the provider instead of a code, e.g. access_denied',
      }),
    ),
    error_description: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: Type.String({ maxLength: 2048 }) },
);

/** A redirect: no body, the target in `Location`. */
export function Redirect(description: string) {
  return Type.Unsafe<void>({
    type: 'null',
    description,
    headers: { location: { type: 'string', format: 'uri', description: 'Where the browser goes next' } },
  });
}
