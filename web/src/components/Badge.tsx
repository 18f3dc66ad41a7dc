/** A count beside a sidebar link; hidden at zero. The label is read by screen readers only. */
export function CountBadge({ count, label }: { count: number; label: string }) {
  if (count <= 0) return null;
  return (
    <span className="badge" data-testid={`badge-${label.replace(/\s+/g, '-')}`}>
      {count}
      <span className="visually-hidden"> {label}</span>
    </span>
  );
}

export function Severity({ value }: { value: string }) {
  return <span className={`severity severity-${value}`}>{value}</span>;
}

export function Status({ value }: { value: string }) {
  return <span className={`status status-${value.replace(/\s+/g, '_')}`}>{value.replace(/_/g, ' ')}</span>;
}
