import { Type } from 'typebox';
import { Name } from '../../http/schemas.ts';
import { Email, Password } from '../users/users.schemas.ts';

export const SignupBody = Type.Object(
  {
    email: Email,
    password: Password,
    name: Name,
    organization_name: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '\\S',
      description: 'The new organization, of which you become the owner',
    }),
  },
  { title: 'SignupRequest', additionalProperties: false },
);
