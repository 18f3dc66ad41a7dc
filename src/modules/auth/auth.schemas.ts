import { Type } from 'typebox';
import { Name, Nullable, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import { Password, UserSchema } from '../users/users.schemas.ts';

export const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { title: 'LoginRequest', additionalProperties: false },
);

/** A completed login: the user, with the session and csrf_token cookies set. */
export const SignedInResponse = Type.Object({ user: UserSchema }, { title: 'SignedIn' });

/** A user with 2FA: no cookie yet; the partial token goes to POST /auth/login/2fa with a code. */
export const NeedsTwoFactorResponse = Type.Object(
  {
    partial_token: Type.String({ description: 'Valid 5 minutes, once, and for at most 5 wrong codes' }),
    needs_2fa: Type.Literal(true),
  },
  { title: 'NeedsTwoFactor' },
);

export const LoginResponse = Type.Union([SignedInResponse, NeedsTwoFactorResponse], {
  title: 'LoginResult',
  description:
    '`{user}` with the session cookies, or, for a user with two-factor authentication, ' +
    '`{partial_token, needs_2fa: true}` and no cookie',
});

export const UpdateMeBody = Type.Object(
  {
    name: Type.Optional(Name),
    current_password: Type.Optional(Type.String({ maxLength: 256 })),
    new_password: Type.Optional(Password),
  },
  { title: 'UpdateMeRequest', additionalProperties: false },
);

export const SessionSchema = Type.Object(
  {
    id: Uuid,
    ip: Nullable(Type.String()),
    user_agent: Nullable(Type.String()),
    created_at: Timestamp,
    last_seen_at: Timestamp,
    expires_at: Timestamp,
    current: Type.Boolean({ description: 'The session making this request' }),
  },
  { title: 'Session' },
);

export function toSessionResponse(
  session: {
    id: string;
    ip: string | null;
    user_agent: string | null;
    created_at: Date;
    last_seen_at: Date;
    expires_at: Date;
  },
  currentId: string | null,
) {
  return {
    ...session,
    created_at: toTimestamp(session.created_at),
    last_seen_at: toTimestamp(session.last_seen_at),
    expires_at: toTimestamp(session.expires_at),
    current: session.id === currentId,
  };
}
