// How a user and a group look in SCIM (RFC 7643 §4): the service keeps one `name`, an identity
// provider sends given and family names; they are joined with a space and split at the first one.
import type { ScimGroup, User } from '../../store/tables.ts';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export function joinName(givenName: string | undefined, familyName: string | undefined): string {
  return [givenName, familyName]
    .filter((part) => part && part.trim() !== '')
    .join(' ')
    .trim();
}

export function splitName(name: string): { givenName: string; familyName: string } {
  const at = name.indexOf(' ');
  return at < 0
    ? { givenName: name, familyName: '' }
    : { givenName: name.slice(0, at), familyName: name.slice(at + 1) };
}

export function userResource(user: User, baseUrl: string) {
  const { givenName, familyName } = splitName(user.name);
  return {
    schemas: [USER_SCHEMA],
    id: user.id,
    ...(user.scim_external_id !== null && { externalId: user.scim_external_id }),
    userName: user.email,
    name: { givenName, familyName, formatted: user.name },
    displayName: user.name,
    emails: [{ value: user.email, type: 'work', primary: true }],
    active: user.active,
    meta: {
      resourceType: 'User',
      created: user.created_at.toISOString(),
      lastModified: user.updated_at.toISOString(),
      location: `${baseUrl}/Users/${user.id}`,
    },
  };
}

export function groupResource(group: ScimGroup, members: { id: string; email: string }[], baseUrl: string) {
  return {
    schemas: [GROUP_SCHEMA],
    id: group.id,
    ...(group.external_id !== null && { externalId: group.external_id }),
    displayName: group.display_name,
    members: members.map((m) => ({ value: m.id, display: m.email, $ref: `${baseUrl}/Users/${m.id}` })),
    meta: {
      resourceType: 'Group',
      created: group.created_at.toISOString(),
      lastModified: group.updated_at.toISOString(),
      location: `${baseUrl}/Groups/${group.id}`,
    },
  };
}

export function listResponse<T>(resources: T[], total: number, startIndex: number) {
  return {
    schemas: [LIST_SCHEMA],
    totalResults: total,
    itemsPerPage: resources.length,
    startIndex,
    Resources: resources,
  };
}
