// Deleting something, asked first in a dialog that names what goes with it (a project takes its
// connections, a connection its snapshots, patches, …), so that nothing piles up for want of a
// delete and nothing goes by a slipped click. The dialog is the browser's modal <dialog>: focus
// stays in it, Escape keeps the thing.
import { useMutation } from '@tanstack/react-query';
import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { ErrorText } from './ErrorText.tsx';

export function DeleteAction({
  noun,
  name,
  consequences,
  remove,
  onDeleted,
}: {
  /** What it is, in lower case: "project", "connection", "seed scenario". */
  noun: string;
  /** Its name, as the person gave it. */
  name: string;
  /** What goes with it, and what stays. */
  consequences: ReactNode;
  remove: () => Promise<unknown>;
  onDeleted: () => void;
}) {
  const [asking, setAsking] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const headingId = useId();
  const deletion = useMutation({ mutationFn: remove, onSuccess: onDeleted });
  useEffect(() => {
    if (asking && dialog.current && !dialog.current.open) dialog.current.showModal();
  }, [asking]);
  const keep = () => {
    dialog.current?.close();
    setAsking(false);
    deletion.reset();
  };
  return (
    <>
      <button type="button" className="danger secondary" onClick={() => setAsking(true)}>
        Delete…
      </button>
      {asking && (
        <dialog
          ref={dialog}
          className="confirm-delete"
          aria-labelledby={headingId}
          onCancel={(event) => {
            event.preventDefault();
            keep();
          }}
        >
          <h2 id={headingId}>
            Delete {noun} “{name}”?
          </h2>
          <div className="consequences">{consequences}</div>
          <p className="muted">This cannot be undone.</p>
          <div className="actions">
            <button
              type="button"
              className="danger"
              onClick={() => deletion.mutate()}
              disabled={deletion.isPending}
            >
              {deletion.isPending ? 'Deleting…' : `Delete ${noun}`}
            </button>
            <button type="button" className="secondary" onClick={keep}>
              Keep it
            </button>
          </div>
          <ErrorText error={deletion.error} />
        </dialog>
      )}
    </>
  );
}
