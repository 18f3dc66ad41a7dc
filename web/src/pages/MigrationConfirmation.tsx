// Applying or rolling back a migration, confirmed. Statements that destroy data get the double
// confirmation the API asks for (tick that it cannot be undone, and type the target connection's
// name); otherwise one click. The API's refusal (422 naming the statements) shows in the dialog.
import { type FormEvent, useState } from 'react';
import { ErrorText } from '../components/ErrorText.tsx';

export type MigrationRunAction = 'apply' | 'rollback';

export interface ConfirmationBody {
  confirm_irreversible?: boolean;
  confirmation?: string;
}

const WORDING: Record<MigrationRunAction, { label: string; heading: string; submit: string; plain: string }> =
  {
    apply: {
      label: 'Confirm apply',
      heading: 'Apply to',
      submit: 'Apply migration',
      plain: 'The statements run as shown. Continue?',
    },
    rollback: {
      label: 'Confirm rollback',
      heading: 'Roll back on',
      submit: 'Roll back migration',
      plain: 'The rollback statements run as shown. Continue?',
    },
  };

export function MigrationConfirmation({
  action,
  targetName,
  destructive,
  onConfirm,
  onCancel,
  pending,
  error,
}: {
  action: MigrationRunAction;
  targetName: string;
  /** The statements that destroy data: any asks for the double confirmation. */
  destructive: { sql: string }[];
  onConfirm: (body: ConfirmationBody) => void;
  onCancel: () => void;
  pending: boolean;
  error?: unknown;
}) {
  const [irreversible, setIrreversible] = useState(false);
  const [typed, setTyped] = useState('');
  const wording = WORDING[action];
  const needsDouble = destructive.length > 0;
  const ready = !needsDouble || (irreversible && typed === targetName);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onConfirm(needsDouble ? { confirm_irreversible: irreversible, confirmation: typed } : {});
  };
  return (
    <form className="card confirm" onSubmit={submit} aria-label={wording.label}>
      <h2>
        {wording.heading} {targetName}
      </h2>
      {needsDouble ? (
        <>
          <p>These statements destroy data and cannot be undone:</p>
          <ul className="compact">
            {destructive.map((s) => (
              <li key={s.sql}>
                <code className="sql">{s.sql}</code>
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
            <span>
              Type the target's name, <strong>{targetName}</strong>, to confirm
            </span>
            <input value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />
          </label>
        </>
      ) : (
        <p>{wording.plain}</p>
      )}
      <div className="actions">
        <button type="submit" className={needsDouble ? 'danger' : ''} disabled={!ready || pending}>
          {wording.submit}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ErrorText error={error} />
    </form>
  );
}
