// The rules of an anonymization config as the form edits them: table and column picked from the
// live schema, the transformer and its options as JSON. Used to create a config and to edit the
// rules of a saved one.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, call } from '../api/client.ts';
import type { components } from '../api/schema';
import { ErrorText } from '../components/ErrorText.tsx';
import { parseOptions } from '../lib/forms.ts';
import { useLiveSchema } from '../shell/connections.ts';

type Config = components['schemas']['AnonymizeConfig'];
type SchemaTable = components['schemas']['SchemaModel']['tables'][number];
type Transformer = Config['rules'][number]['transformer'];
const TRANSFORMERS: Transformer[] = [
  'fake',
  'hash',
  'mask',
  'scramble',
  'redact',
  'null',
  'constant',
  'choice',
  'noise',
  'range',
  'generalize',
  'shuffle',
  'json',
];

export interface RuleDraft {
  table: string;
  column: string;
  transformer: Transformer;
  options: string;
}

/** The drafts as the API takes them; throws, naming the rule, when options are not a JSON object. */
export function rulesOf(rules: RuleDraft[]) {
  return rules.map((r, index) => ({
    table: r.table,
    column: r.column,
    transformer: r.transformer,
    options: parseOptions(r.options, index),
  }));
}

function draftsOf(config: Config): RuleDraft[] {
  return config.rules.map((r) => ({
    table: r.table,
    column: r.column,
    transformer: r.transformer,
    options: Object.keys(r.options).length > 0 ? JSON.stringify(r.options) : '',
  }));
}

const tableName = (t: SchemaTable) => (t.schema ? `${t.schema}.${t.name}` : t.name);

export function RulesEditor({
  rules,
  onChange,
  tables,
  disabled,
}: {
  rules: RuleDraft[];
  onChange: (rules: RuleDraft[]) => void;
  tables: SchemaTable[];
  disabled: boolean;
}) {
  const change = (index: number, patch: Partial<RuleDraft>) =>
    onChange(rules.map((rule, i) => (i === index ? { ...rule, ...patch } : rule)));
  return (
    <>
      {rules.map((rule, index) => {
        const columns = tables.find((t) => tableName(t) === rule.table)?.columns ?? [];
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: rules being edited have no identity yet
          <fieldset key={index} className="inline-form" aria-label={`Rule ${index + 1}`}>
            <legend>Rule {index + 1}</legend>
            <label>
              Table
              <select
                required
                value={rule.table}
                onChange={(e) => change(index, { table: e.target.value, column: '' })}
              >
                <option value="">Choose…</option>
                {tables.map((t) => (
                  <option key={tableName(t)} value={tableName(t)}>
                    {tableName(t)}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Column
              <select
                required
                value={rule.column}
                onChange={(e) => change(index, { column: e.target.value })}
              >
                <option value="">Choose…</option>
                {columns.map((c) => (
                  <option key={c.name} value={c.name}>
                    {c.name} ({c.type})
                  </option>
                ))}
              </select>
            </label>
            <label>
              Transformer
              <select
                value={rule.transformer}
                onChange={(e) => change(index, { transformer: e.target.value as Transformer })}
              >
                {TRANSFORMERS.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Options (JSON)
              <input
                value={rule.options}
                placeholder='{"kind": "email"}'
                onChange={(e) => change(index, { options: e.target.value })}
              />
            </label>
            <button
              type="button"
              className="link danger"
              onClick={() => onChange(rules.filter((_, i) => i !== index))}
            >
              Remove rule {index + 1}
            </button>
          </fieldset>
        );
      })}
      <div className="actions">
        <button
          type="button"
          className="secondary"
          disabled={disabled}
          onClick={() => onChange([...rules, { table: '', column: '', transformer: 'fake', options: '' }])}
        >
          Add rule
        </button>
      </div>
    </>
  );
}

/** A saved config's rules, edited in place and saved with PATCH (the other settings stay). */
export function ConfigRulesForm({ config, onDone }: { config: Config; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [rules, setRules] = useState(() => draftsOf(config));
  const schema = useLiveSchema(config.connection_id);
  const save = useMutation({
    mutationFn: () =>
      call(
        api.PATCH('/api/v1/anonymize/configs/{id}', {
          params: { path: { id: config.id } },
          body: { rules: rulesOf(rules) },
        }),
      ),
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: ['anonymize', config.project_id] });
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="stack" onSubmit={submit} aria-label={`Rules of ${config.name}`}>
      <RulesEditor
        rules={rules}
        onChange={setRules}
        tables={schema.data?.tables ?? []}
        disabled={!schema.data}
      />
      <div className="actions">
        <button type="submit" disabled={save.isPending}>
          Save rules
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
      <ErrorText error={schema.error ?? save.error} />
    </form>
  );
}
