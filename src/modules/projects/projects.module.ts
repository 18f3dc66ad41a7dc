// Projects, their members and their approval policy.
import type { Module, Shared } from '../module.ts';
import { registerProjectsRoutes } from './projects.routes.ts';
import { createProjectsService } from './projects.service.ts';

export function projectsModule({ db, plansCached, audit, now }: Shared): Module {
  const projects = createProjectsService({ db, plansCached, audit, now });
  return { name: 'projects', routes: (api) => registerProjectsRoutes(api, { projects }) };
}
