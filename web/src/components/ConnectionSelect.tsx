// The pick of one of the project's connections for a new patch or config, each named with its
// environment so that production is never chosen by mistake for its namesake.
import { useConnections } from '../shell/connections.ts';

export function ConnectionSelect({
  projectId,
  value,
  onChange,
}: {
  projectId: string;
  value: string;
  onChange: (connectionId: string) => void;
}) {
  const connections = useConnections(projectId);
  return (
    <label>
      Connection
      <select required value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Choose…</option>
        {connections.data?.items.map((c) => (
          <option key={c.id} value={c.id}>
            {c.name} ({c.environment})
          </option>
        ))}
      </select>
    </label>
  );
}
