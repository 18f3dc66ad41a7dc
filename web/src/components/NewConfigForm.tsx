// The form of a new connection-scoped config (anonymization config, seed scenario): its name and
// the project's connection it is for, any setting of the kind beside them, the kind's own fields
// below, the save button and what went wrong (reading the schema or saving).
import type { FormEvent, ReactNode } from 'react';
import { ConnectionSelect } from './ConnectionSelect.tsx';
import { ErrorText } from './ErrorText.tsx';

export function NewConfigForm({
  label,
  projectId,
  nameLabel,
  name,
  onNameChange,
  connectionId,
  onConnectionChange,
  settings,
  children,
  submitLabel,
  submitDisabled,
  error,
  onSubmit,
}: {
  /** The form's accessible name. */
  label: string;
  projectId: string;
  nameLabel: string;
  name: string;
  onNameChange: (name: string) => void;
  connectionId: string;
  onConnectionChange: (connectionId: string) => void;
  /** Fields on the line of the name and connection. */
  settings?: ReactNode;
  children: ReactNode;
  submitLabel: string;
  submitDisabled: boolean;
  error: unknown;
  onSubmit: () => void;
}) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <form className="card stack" onSubmit={submit} aria-label={label}>
      <div className="inline-form">
        <label>
          {nameLabel}
          <input required value={name} onChange={(e) => onNameChange(e.target.value)} />
        </label>
        <ConnectionSelect projectId={projectId} value={connectionId} onChange={onConnectionChange} />
        {settings}
      </div>
      {children}
      <div className="actions">
        <button type="submit" disabled={submitDisabled}>
          {submitLabel}
        </button>
      </div>
      <ErrorText error={error} />
    </form>
  );
}
