// Apply with the double confirmation the contract asks for statements that destroy data: tick that
// it cannot be undone, and type the target connection's name.
import { type FormEvent, useState } from 'react';
import type { MigrationStatement } from '../api/types.ts';

export function ApplyConfirmation({
  targetName,
  destructive,
  onConfirm,
  onCancel,
  pending,
}: {
  targetName: string;
  destructive: MigrationStatement[];
  onConfirm: (body: { confirm_irreversible?: boolean; confirmation?: string }) => void;
  onCancel: () => void;
  pending: boolean;
}) {
  const [irreversible, setIrreversible] = useState(false);
  const [typed, setTyped] = useState('');
  const needsDouble = destructive.length > 0;
  const ready = !needsDouble || (irreversible && typed === targetName);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onConfirm(needsDouble ? { confirm_irreversible: irreversible, confirmation: typed } : {});
  };
  return (
    <form className="card confirm" onSubmit={submit} aria-label="Confirm apply">
      <h2>Apply to {targetName}</h2>
      {needsDouble ? (
        <>
          <p>These statements destroy data and cannot be undone:</p>
          <ul className="compact">
            {destructive.map((s) => (
              <li key={s.sql}>
                <code>{s.sql}</code>
              </li>
            ))}
          </ul>
          <label className="checkbox">
            <input
              type="checkbox"
              checked={irreversible}
              onChange={(e) => setIrreversible(e.target.checked)}
            />
            I understand that this is irreversible
          </label>
          <label>
            Type the target's name, <strong>{targetName}</strong>, to confirm
            <input value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />
          </label>
        </>
      ) : (
        <p>The statements run as shown. Continue?</p>
      )}
      <div className="actions">
        <button type="submit" className={needsDouble ? 'danger' : ''} disabled={!ready || pending}>
          Apply migration
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
