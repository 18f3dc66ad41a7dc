// Organizations: their settings, and the operator's `create-admin` command.
import { parseArgs } from 'node:util';
import { AppError } from '../../core/errors.ts';
import type { Module, Shared } from '../module.ts';
import { createAdmin } from './first-admin.ts';
import { registerOrgsRoutes } from './orgs.routes.ts';

export function orgsModule({ orgs }: Shared): Module {
  return {
    name: 'orgs',
    routes: (api) => registerOrgsRoutes(api, { orgs }),
    commands: [
      {
        name: 'create-admin',
        usage:
          'create-admin --email E --org NAME [--name N]   create an organization and its owner;\n' +
          '      the password comes from ADMIN_PASSWORD, or is asked for on a terminal',
        secret: {
          option: 'password',
          prompt: 'Password of the new owner: ',
          config: 'adminPassword',
        },
        async run(args) {
          const { values } = parseArgs({
            args,
            options: {
              email: { type: 'string' },
              password: { type: 'string' },
              org: { type: 'string' },
              name: { type: 'string' },
            },
          });
          if (!values.email || !values.password || !values.org)
            throw new AppError(
              'validation',
              'create-admin needs --email, --org and a password (ADMIN_PASSWORD)',
            );
          const { org, owner } = await createAdmin(orgs, {
            email: values.email,
            password: values.password,
            orgName: values.org,
            name: values.name,
          });
          return `Created organization "${org.name}" (${org.id}) with owner ${owner.email}, on the ${org.plan} plan`;
        },
      },
    ],
  };
}
