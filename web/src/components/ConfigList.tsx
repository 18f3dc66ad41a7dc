// The page of a project's connection-scoped configs (anonymization configs, seed scenarios): the
// form of a new one, the list saying what each holds, and the opened one below it. A config just
// created is opened at once, so its preview and run are one click away; `?open=<id>` opens one (the
// link of an approval or a run about it). Each can be deleted from the list, after a confirmation.
import { Fragment, type ReactNode, useState } from 'react';
import { useSearchParams } from 'react-router';
import { DeleteAction } from './DeleteAction.tsx';
import { QueryState } from './States.tsx';

export function ConfigList<Config extends { id: string; name: string }>({
  title,
  list,
  empty,
  newForm,
  summary,
  detail,
  deletion,
}: {
  title: string;
  list: {
    isLoading: boolean;
    error: unknown;
    data?: { items: Config[] };
    refetch: () => unknown;
    isFetching: boolean;
  };
  empty: string;
  newForm: (onCreated: (id: string) => void) => ReactNode;
  summary: (config: Config) => ReactNode;
  detail: (config: Config) => ReactNode;
  /** How one is deleted: what it is called, what goes with it, the call, what to refresh after. */
  deletion: {
    noun: string;
    consequences: (config: Config) => ReactNode;
    remove: (config: Config) => Promise<unknown>;
    onDeleted: () => void;
  };
}) {
  const [search] = useSearchParams();
  const [selected, setSelected] = useState<string | undefined>(search.get('open') ?? undefined);
  const opened = list.data?.items.find((c) => c.id === selected);
  return (
    <>
      <h1>{title}</h1>
      {newForm(setSelected)}
      <QueryState
        isLoading={list.isLoading}
        error={list.error}
        onRetry={() => void list.refetch()}
        retrying={list.isFetching}
        isEmpty={list.data?.items.length === 0}
        empty={empty}
      >
        <ul className="list">
          {list.data?.items.map((c) => (
            <li key={c.id} className="card row">
              <strong>{c.name}</strong>
              <span className="muted">{summary(c)}</span>
              <span className="spacer" />
              <button
                type="button"
                className="secondary"
                aria-pressed={selected === c.id}
                onClick={() => setSelected(c.id)}
              >
                Open {c.name}
              </button>
              <DeleteAction
                noun={deletion.noun}
                name={c.name}
                consequences={deletion.consequences(c)}
                remove={() => deletion.remove(c)}
                onDeleted={() => {
                  if (selected === c.id) setSelected(undefined);
                  deletion.onDeleted();
                }}
              />
            </li>
          ))}
        </ul>
      </QueryState>
      {/* Keyed: another config opened starts with its own state (no run or preview of the last). */}
      {opened && <Fragment key={opened.id}>{detail(opened)}</Fragment>}
    </>
  );
}
