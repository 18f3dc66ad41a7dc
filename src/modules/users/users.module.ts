// The users of an organization.
import type { Module, Shared } from '../module.ts';
import { registerUsersRoutes } from './users.routes.ts';
import { createUsersService } from './users.service.ts';

export function usersModule({ db, audit, passwords, now }: Shared): Module {
  const users = createUsersService({ db, audit, passwords, now });
  return { name: 'users', routes: (api) => registerUsersRoutes(api, { users }) };
}
