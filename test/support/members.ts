// A new user of the organization, made a member of a project with a role by its owner: the caller
// most access tests need beside the owner.
import { expect } from 'vitest';
import type { ProjectRole } from '../../src/store/tables.ts';
import type { Client, TestApp } from './app.ts';

export async function newProjectMember(
  t: TestApp,
  orgId: string,
  owner: Client,
  projectId: string,
  role: ProjectRole,
): Promise<Client> {
  const client = await t.createUser(orgId, 'member');
  const added = await owner.post(`/api/v1/projects/${projectId}/members`, { user_id: client.user.id, role });
  expect(added.status).toBe(201);
  return client;
}
