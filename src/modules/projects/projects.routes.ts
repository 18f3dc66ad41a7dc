import { confirmedRead } from '../../http/confirmed-read.ts';
import { actorOf } from '../../http/context.ts';
import { errors, NoContent, Page, PageQuery, pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import {
  AddMemberBody,
  CreateProjectBody,
  MemberParams,
  MemberSchema,
  PolicySchema,
  ProjectParams,
  ProjectSchema,
  toMemberResponse,
  toProjectResponse,
  UpdateMemberBody,
  UpdateProjectBody,
} from './projects.schemas.ts';
import type { ProjectsService } from './projects.service.ts';

export function registerProjectsRoutes(app: App, { projects }: { projects: ProjectsService }): void {
  const tags = ['projects'];

  app.get(
    '/projects',
    {
      config: { action: 'projects.list', epochInQuery: true },
      schema: {
        operationId: 'listProjects',
        tags,
        summary: 'List the projects the caller can see, newest first',
        querystring: PageQuery,
        response: { 200: Page(ProjectSchema), ...errors(401, 403) },
      },
    },
    async (request) => {
      const paging = request.query;
      const found = await confirmedRead(
        request,
        (actor, withEpoch) => projects.list(actor, paging, { withEpoch }),
        (page) => page.credentialEpoch,
      );
      return pageOf(paging, found);
    },
  );

  app.post(
    '/projects',
    {
      config: { action: 'projects.create' },
      schema: {
        operationId: 'createProject',
        tags,
        summary: 'Create a project; the caller becomes its admin',
        body: CreateProjectBody,
        response: { 201: ProjectSchema, ...errors(401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(toProjectResponse(await projects.create(actorOf(request), request.body))),
  );

  app.get(
    '/projects/:pid',
    {
      config: { action: 'project.read' },
      schema: {
        operationId: 'getProject',
        tags,
        summary: 'Get a project',
        params: ProjectParams,
        response: { 200: ProjectSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => toProjectResponse(await projects.get(actorOf(request), request.params.pid)),
  );

  app.patch(
    '/projects/:pid',
    {
      config: { action: 'project.update' },
      schema: {
        operationId: 'updateProject',
        tags,
        summary: 'Rename a project or change its description (project admins)',
        params: ProjectParams,
        body: UpdateProjectBody,
        response: { 200: ProjectSchema, ...errors(401, 403, 404, 409) },
      },
    },
    async (request) =>
      toProjectResponse(await projects.update(actorOf(request), request.params.pid, request.body)),
  );

  app.delete(
    '/projects/:pid',
    {
      config: { action: 'project.delete' },
      schema: {
        operationId: 'deleteProject',
        tags,
        summary: 'Delete a project and its memberships (project admins); its audit entries stay',
        params: ProjectParams,
        response: { 204: NoContent, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await projects.remove(actorOf(request), request.params.pid);
      return reply.code(204).send();
    },
  );
  registerMemberRoutes(app, projects, tags);
  registerPolicyRoutes(app, projects, tags);
}

/** A project's members and their roles. */
function registerMemberRoutes(app: App, projects: ProjectsService, tags: string[]): void {
  app.get(
    '/projects/:pid/members',
    {
      config: { action: 'project.read' },
      schema: {
        operationId: 'listProjectMembers',
        tags,
        summary: 'List the members of a project',
        params: ProjectParams,
        querystring: PageQuery,
        response: { 200: Page(MemberSchema), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const paging = request.query;
      return pageOf(
        paging,
        await projects.listMembers(actorOf(request), request.params.pid, paging),
        toMemberResponse,
      );
    },
  );

  app.post(
    '/projects/:pid/members',
    {
      config: { action: 'project.members' },
      schema: {
        operationId: 'addProjectMember',
        tags,
        summary: 'Add a user of the organization to the project (project admins)',
        params: ProjectParams,
        body: AddMemberBody,
        response: { 201: MemberSchema, ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(toMemberResponse(await projects.addMember(actorOf(request), request.params.pid, request.body))),
  );

  app.patch(
    '/projects/:pid/members/:user_id',
    {
      config: { action: 'project.members' },
      schema: {
        operationId: 'updateProjectMember',
        tags,
        summary: "Change a member's project role (project admins)",
        params: MemberParams,
        body: UpdateMemberBody,
        response: { 200: MemberSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const { pid, user_id } = request.params;
      return toMemberResponse(await projects.changeMember(actorOf(request), pid, user_id, request.body.role));
    },
  );

  app.delete(
    '/projects/:pid/members/:user_id',
    {
      config: { action: 'project.members' },
      schema: {
        operationId: 'removeProjectMember',
        tags,
        summary: 'Remove a member from the project (project admins)',
        params: MemberParams,
        response: { 204: NoContent, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await projects.removeMember(actorOf(request), request.params.pid, request.params.user_id);
      return reply.code(204).send();
    },
  );
}

/** A project's approval policy. */
function registerPolicyRoutes(app: App, projects: ProjectsService, tags: string[]): void {
  app.get(
    '/projects/:pid/policy',
    {
      config: { action: 'project.read' },
      schema: {
        operationId: 'getProjectPolicy',
        tags,
        summary: 'The approval policy of the project (the default until one is set)',
        params: ProjectParams,
        response: { 200: PolicySchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ rules: await projects.getPolicy(actorOf(request), request.params.pid) }),
  );

  app.put(
    '/projects/:pid/policy',
    {
      config: { action: 'project.policy' },
      schema: {
        operationId: 'putProjectPolicy',
        tags,
        summary: 'Replace the approval policy of the project (project admins)',
        params: ProjectParams,
        body: PolicySchema,
        response: { 200: PolicySchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({
      rules: await projects.putPolicy(actorOf(request), request.params.pid, request.body.rules),
    }),
  );
}
