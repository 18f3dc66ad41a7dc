// Finding 10 of the attack: after `PUT /admin/scim/group-mappings` dropped the mapping of a group to a
// project role, the group's SCIM members kept that project role. docs/contract.md §12: a user's roles are
// recomputed whenever the mappings change, at once. SCIM takes back only what it gave: a project
// role an admin gave by hand stays (and is what the user returns to where a mapping had raised it).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../support/app.ts';

const API = '/api/v1';

describe('dropping a SCIM group mapping takes back the project roles it gave', () => {
  let t: TestApp;
  let owner: Client;
  let token: string;

  async function scim(method: 'POST' | 'PATCH', url: string, body: unknown) {
    const response = await t.app.inject({
      method,
      url: `/scim/v2${url}`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
      payload: JSON.stringify(body),
    });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return JSON.parse(response.body);
  }

  const provision = async (tag: string) => {
    const email = `${tag}-${randomUUID().slice(0, 8)}@example.com`;
    return (
      await scim('POST', '/Users', {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName: email,
        emails: [{ primary: true, value: email }],
        active: true,
      })
    ).id as string;
  };
  const newProject = async (name: string) =>
    (await owner.post(`${API}/projects`, { name })).body.id as string;
  /** The project role of each user, as the members list shows it (undefined: not a member). */
  async function rolesIn(projectId: string): Promise<Record<string, string>> {
    const members = await owner.get(`${API}/projects/${projectId}/members?page_size=100`);
    expect(members.status).toBe(200);
    return Object.fromEntries(
      members.body.items.map((m: { user_id: string; role: string }) => [m.user_id, m.role]),
    );
  }
  const setMappings = async (mappings: unknown[]) => {
    const response = await owner.put(`${API}/admin/scim/group-mappings`, { mappings });
    expect(response.status).toBe(200);
  };

  beforeAll(async () => {
    t = await createTestApp();
    ({ owner } = await t.createOrg('Mapped roles'));
    token = (await owner.post(`${API}/admin/scim/token`)).body.token;
  });
  afterAll(async () => {
    await t?.close();
  });

  const group = (displayName: string, members: string[]) =>
    scim('POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName,
      members: members.map((value) => ({ value })),
    });

  it('removes at once the project role a dropped mapping gave, and audits it', async () => {
    const engineer = await provision('engineer');
    const project = await newProject('Mapped');
    await group('Engineers', [engineer]);
    await setMappings([{ group: 'Engineers', projects: [{ project_id: project, role: 'developer' }] }]);
    expect((await rolesIn(project))[engineer]).toBe('developer');

    // The attack: the mapping went, the role it gave stayed.
    await setMappings([]);
    expect(await rolesIn(project)).not.toHaveProperty(engineer);

    // Replaced by a mapping of another group or project: the same.
    await setMappings([{ group: 'Engineers', projects: [{ project_id: project, role: 'viewer' }] }]);
    expect((await rolesIn(project))[engineer]).toBe('viewer');
    await setMappings([{ group: 'Someone else', projects: [{ project_id: project, role: 'admin' }] }]);
    expect(await rolesIn(project)).not.toHaveProperty(engineer);

    const audited = (await owner.get(`${API}/audit?action=project.member.remove&project_id=${project}`)).body
      .items;
    expect(audited.map((e: { target_id: string }) => e.target_id)).toEqual([engineer, engineer]);
  });

  it('keeps the project roles given by hand, and returns to them when SCIM lets go', async () => {
    const raisedUser = await provision('raised');
    const keptUser = await provision('kept');
    const [mapped, byHand] = [await newProject('Mapped by hand too'), await newProject('By hand only')];
    const add = (project: string, user: string, role: string) =>
      owner.post(`${API}/projects/${project}/members`, { user_id: user, role });
    expect((await add(mapped, raisedUser, 'viewer')).status).toBe(201);
    expect((await add(mapped, keptUser, 'admin')).status).toBe(201);
    expect((await add(byHand, keptUser, 'admin')).status).toBe(201);
    await group('Operators', [raisedUser, keptUser]);

    // A mapping raises a role given by hand, never lowers it.
    await setMappings([{ group: 'Operators', projects: [{ project_id: mapped, role: 'developer' }] }]);
    expect(await rolesIn(mapped)).toMatchObject({ [raisedUser]: 'developer', [keptUser]: 'admin' });

    await setMappings([]);
    expect(await rolesIn(mapped)).toMatchObject({ [raisedUser]: 'viewer', [keptUser]: 'admin' });
    expect((await rolesIn(byHand))[keptUser]).toBe('admin');
  });
});
