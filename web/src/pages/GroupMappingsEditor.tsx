// The SCIM group mappings: per identity-provider group, the organization role it grants (owner is
// never granted by SCIM) and a role per project. Saved whole (PUT replaces the list).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, call } from '../api/client.ts';
import type { components } from '../api/schema.d.ts';
import { ErrorText } from '../components/ErrorText.tsx';
import { useProjects } from '../shell/projects.ts';

type Mapping = components['schemas']['ScimGroupMapping'];
type ProjectRole = NonNullable<Mapping['projects']>[number]['role'];
type OrgRole = 'admin' | 'member';

/** A role per project, or none, for one mapping. */
function withProjectRole(mapping: Mapping, projectId: string, role: ProjectRole | ''): Mapping {
  const others = (mapping.projects ?? []).filter((p) => p.project_id !== projectId);
  return { ...mapping, projects: role ? [...others, { project_id: projectId, role }] : others };
}

export function GroupMappingsEditor({ saved }: { saved: Mapping[] }) {
  const queryClient = useQueryClient();
  const projects = useProjects();
  const [mappings, setMappings] = useState<Mapping[]>(saved);
  const [done, setDone] = useState(false);
  const put = (index: number, mapping: Mapping) => {
    setDone(false);
    setMappings(mappings.map((m, i) => (i === index ? mapping : m)));
  };
  const save = useMutation({
    mutationFn: () =>
      call(
        api.PUT('/api/v1/admin/scim/group-mappings', {
          body: { mappings: mappings.filter((m) => m.group.trim() !== '') },
        }),
      ),
    onSuccess: () => {
      setDone(true);
      queryClient.invalidateQueries({ queryKey: ['scim'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Group mappings">
      <h3>Group mappings</h3>
      {mappings.length === 0 && <p className="muted empty">No group grants a role yet.</p>}
      {mappings.map((mapping, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no id until saved, and are edited in place
        <fieldset key={index} className="grid-form" data-testid="group-mapping">
          <legend>Group {index + 1}</legend>
          <label>
            Group name
            <input
              required
              value={mapping.group}
              onChange={(e) => put(index, { ...mapping, group: e.target.value })}
            />
          </label>
          <label>
            Organization role
            <select
              value={mapping.org_role ?? ''}
              onChange={(e) => {
                const { org_role: _old, ...rest } = mapping;
                const role = e.target.value as OrgRole | '';
                put(index, role ? { ...rest, org_role: role } : rest);
              }}
            >
              <option value="">none</option>
              <option value="member">member</option>
              <option value="admin">admin</option>
            </select>
          </label>
          {projects.data?.items.map((project) => (
            <label key={project.id}>
              Role in {project.name}
              <select
                value={mapping.projects?.find((p) => p.project_id === project.id)?.role ?? ''}
                onChange={(e) =>
                  put(index, withProjectRole(mapping, project.id, e.target.value as ProjectRole | ''))
                }
              >
                <option value="">none</option>
                <option value="viewer">viewer</option>
                <option value="developer">developer</option>
                <option value="admin">admin</option>
              </select>
            </label>
          ))}
          <div className="actions">
            <button
              type="button"
              className="link danger"
              onClick={() => {
                setDone(false);
                setMappings(mappings.filter((_, i) => i !== index));
              }}
            >
              Remove group {index + 1}
            </button>
          </div>
        </fieldset>
      ))}
      <div className="actions">
        <button type="button" className="secondary" onClick={() => setMappings([...mappings, { group: '' }])}>
          Add group
        </button>
        <button type="submit" disabled={save.isPending}>
          Save mappings
        </button>
      </div>
      {done && (
        <p className="ok" role="status">
          Saved.
        </p>
      )}
      <ErrorText error={save.error} />
    </form>
  );
}
