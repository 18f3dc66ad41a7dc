// Projects, their members and their approval policy. Any organization member may create a project
// and becomes its admin; organization owners and admins act as admins of every project.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { conflict, invalid, notFound } from '../../core/errors.ts';
import { isOrgAdmin } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import { countRows, offsetOf, type PageRequest, paginate, totalFromPage } from '../../store/paging.ts';
import type { PolicyRule, Project, ProjectRole } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { findUser } from '../users/users.repo.ts';
import { requireProject } from './projects.access.ts';
import {
  countOpenDriftReports,
  countPendingApprovals,
  deleteMember,
  deleteProject,
  findMember,
  findProjectByName,
  insertMember,
  insertProject,
  membersQuery,
  projectsPageStatement,
  updateMemberRole,
  updateProject,
  visibleProjectsQuery,
} from './projects.repo.ts';
import { DEFAULT_POLICY, type ProjectView } from './projects.schemas.ts';

export type ProjectsService = ReturnType<typeof createProjectsService>;

const duplicateName = () => conflict('A project with this name already exists in the organization');

export function createProjectsService(deps: {
  db: Db;
  /** The store keeps statements' plans: the list may then guard its badge counts (projects.repo.ts). */
  plansCached: boolean;
  audit: AuditService;
  now: () => Date;
}) {
  const { db, audit, now } = deps;
  const listPage = projectsPageStatement(db, deps.plansCached);

  function projectEvent(action: string, project: Project, details?: Record<string, unknown>) {
    return {
      action,
      projectId: project.id,
      target: { type: 'project', id: project.id, label: project.name },
      details,
    };
  }

  return {
    /**
     * A page of the projects the actor sees, already in the API's item form. `withEpoch`: also the
     * credential epoch, read in the same statement (src/http/confirmed-read.ts).
     */
    async list(actor: Actor, page: PageRequest, options: { withEpoch?: boolean } = {}) {
      const { orgId, userId } = actor.principal;
      const seesAll = isOrgAdmin(actor.principal);
      const shape = { seesAll, withEpoch: options.withEpoch ?? false };
      const slice = { limit: page.page_size, offset: offsetOf(page) };
      const { rows } = await listPage.execute(shape, { orgId, userId, ...slice });
      // A select without FROM: always one row.
      const found = rows[0] as NonNullable<(typeof rows)[0]>;
      return {
        rows: found.items,
        total:
          totalFromPage(found.items.length, page) ??
          (await countRows(visibleProjectsQuery(db, orgId, userId, seesAll, deps.plansCached))),
        credentialEpoch: found.credential_epoch,
      };
    },

    async get(actor: Actor, id: string): Promise<ProjectView> {
      const project = await requireProject(db, actor, id, 'project.read');
      return {
        ...project,
        pending_approvals: await countPendingApprovals(db, id),
        open_drift_reports: await countOpenDriftReports(db, id),
      };
    },

    async create(actor: Actor, input: { name: string; description?: string | null }): Promise<ProjectView> {
      return db.transaction().execute(async (trx) => {
        const name = input.name.trim();
        if (await findProjectByName(trx, actor.principal.orgId, name)) throw duplicateName();
        const at = now();
        const project = await insertProject(trx, {
          id: randomUUID(),
          org_id: actor.principal.orgId,
          name,
          description: input.description ?? null,
          created_at: at,
          updated_at: at,
        });
        await insertMember(trx, {
          project_id: project.id,
          user_id: actor.principal.userId,
          role: 'admin',
          created_at: at,
        });
        await audit.record(trx, actor, projectEvent('project.create', project));
        return { ...project, pending_approvals: 0, open_drift_reports: 0 };
      });
    },

    async update(
      actor: Actor,
      id: string,
      changes: { name?: string; description?: string | null },
    ): Promise<ProjectView> {
      return db.transaction().execute(async (trx) => {
        const project = await requireProject(trx, actor, id, 'project.update');
        const name = changes.name?.trim();
        if (name !== undefined && (await findProjectByName(trx, project.org_id, name, id)))
          throw duplicateName();
        const updated = await updateProject(trx, id, {
          ...(name !== undefined && { name }),
          ...(changes.description !== undefined && { description: changes.description }),
          updated_at: now(),
        });
        await audit.record(trx, actor, projectEvent('project.update', updated, { changes }));
        return {
          ...updated,
          pending_approvals: await countPendingApprovals(trx, id),
          open_drift_reports: await countOpenDriftReports(trx, id),
        };
      });
    },

    async remove(actor: Actor, id: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const project = await requireProject(trx, actor, id, 'project.delete');
        await deleteProject(trx, id);
        await audit.record(trx, actor, projectEvent('project.delete', project));
      });
    },

    async listMembers(actor: Actor, projectId: string, page: PageRequest) {
      await requireProject(db, actor, projectId, 'project.read');
      return paginate(membersQuery(db, projectId), page);
    },

    async addMember(actor: Actor, projectId: string, input: { user_id: string; role: ProjectRole }) {
      return db.transaction().execute(async (trx) => {
        const project = await requireProject(trx, actor, projectId, 'project.members');
        const user = await findUser(trx, project.org_id, input.user_id);
        if (!user || user.deleted_at) throw invalid(['body', 'user_id'], 'No such user in this organization');
        if (await findMember(trx, projectId, input.user_id)) throw conflict('The user is already a member');
        await insertMember(trx, {
          project_id: projectId,
          user_id: input.user_id,
          role: input.role,
          created_at: now(),
        });
        await audit.record(
          trx,
          actor,
          projectEvent('project.member.add', project, { user_id: user.id, role: input.role }),
        );
        return (await findMember(trx, projectId, input.user_id))!;
      });
    },

    async changeMember(actor: Actor, projectId: string, userId: string, role: ProjectRole) {
      return db.transaction().execute(async (trx) => {
        const project = await requireProject(trx, actor, projectId, 'project.members');
        if (!(await findMember(trx, projectId, userId))) throw notFound('Member');
        await updateMemberRole(trx, projectId, userId, role);
        await audit.record(
          trx,
          actor,
          projectEvent('project.member.update', project, { user_id: userId, role }),
        );
        return (await findMember(trx, projectId, userId))!;
      });
    },

    async removeMember(actor: Actor, projectId: string, userId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const project = await requireProject(trx, actor, projectId, 'project.members');
        if (!(await findMember(trx, projectId, userId))) throw notFound('Member');
        await deleteMember(trx, projectId, userId);
        await audit.record(trx, actor, projectEvent('project.member.remove', project, { user_id: userId }));
      });
    },

    async getPolicy(actor: Actor, projectId: string): Promise<PolicyRule[]> {
      const project = await requireProject(db, actor, projectId, 'project.read');
      return project.policy ?? DEFAULT_POLICY;
    },

    async putPolicy(actor: Actor, projectId: string, rules: PolicyRule[]): Promise<PolicyRule[]> {
      const seen = new Set<string>();
      rules.forEach((rule, index) => {
        if (seen.has(rule.operation)) {
          throw invalid(['body', 'rules', index, 'operation'], 'Each operation may have one rule only');
        }
        seen.add(rule.operation);
      });
      return db.transaction().execute(async (trx) => {
        const project = await requireProject(trx, actor, projectId, 'project.policy');
        const updated = await updateProject(trx, projectId, { policy: rules, updated_at: now() });
        await audit.record(trx, actor, projectEvent('project.policy.update', project, { rules }));
        return updated.policy ?? DEFAULT_POLICY;
      });
    },
  };
}
