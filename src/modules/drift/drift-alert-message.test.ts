// The alert e-mail's content without a server: most severe changes first, at most ten named,
// markup from the target database escaped in the HTML part.
import { describe, expect, it } from 'vitest';
import type { SchemaDiff } from '../../engine/schema/diff.ts';
import { changeLines, composeDriftAlert, MOST_SEVERE_SHOWN } from './drift-alert-message.ts';

const diff: SchemaDiff = {
  tables_added: [{ table: 'public.new_one', severity: 'minor' }],
  tables_removed: [{ table: 'public.gone', severity: 'critical' }],
  tables_modified: [
    {
      table: 'public.people',
      severity: 'critical',
      changes: [
        ...Array.from({ length: 12 }, (_, i) => ({
          kind: 'column_added' as const,
          object: `c${i}`,
          from: null,
          to: 'text NULL',
          severity: 'minor' as const,
        })),
        { kind: 'column_type_changed', object: 'score', from: 'integer', to: 'bigint', severity: 'moderate' },
        { kind: 'column_removed', object: '<script>', from: 'text NULL', to: null, severity: 'critical' },
        {
          kind: 'column_default_reformatted',
          object: 'due',
          from: 'now()',
          to: 'now()::timestamp',
          severity: 'cosmetic',
        },
      ],
    },
  ],
};

const input = {
  report: {
    id: '5dc6d0f9-095f-4d9e-8ffc-4357cbfab2c0',
    severity: 'critical' as const,
    summary: { critical: 2, moderate: 1, minor: 13 },
    diff,
    created_at: new Date('2026-03-04T03:00:07.123Z'),
  },
  connection: {
    name: 'Orders & co',
    dialect: 'postgresql' as const,
    host: 'db.internal',
    database: 'orders',
    environment: 'staging' as const,
  },
  project: { id: '499ced81-f245-4f34-8cfd-e5a25173bd6c', name: 'Payments' },
  publicUrl: 'https://dbops.example.com',
};

describe('the drift alert message', () => {
  it('orders every change by severity, keeping the diff order within a level', () => {
    const lines = changeLines(diff);
    expect(lines.map((l) => l.severity)).toEqual([
      'critical',
      'critical',
      'moderate',
      ...Array(13).fill('minor'),
      'cosmetic',
    ]);
    expect(lines.slice(0, 3).map((l) => l.text)).toEqual([
      'table public.gone dropped',
      'public.people: column removed <script> (was text NULL)',
      'public.people: column type changed score (integer → bigint)',
    ]);
  });

  it('names the ten most severe changes, counts the rest, links the report', () => {
    const message = composeDriftAlert(input);
    expect(message.subject).toBe(
      '[dbops] Schema drift on "Orders & co" (staging): 2 critical, 1 moderate, 13 minor',
    );
    expect(message.link).toBe(
      'https://dbops.example.com/projects/499ced81-f245-4f34-8cfd-e5a25173bd6c/drifts/5dc6d0f9-095f-4d9e-8ffc-4357cbfab2c0',
    );
    const shown = message.text.split('\n').filter((line) => line.startsWith('  ['));
    expect(shown).toHaveLength(MOST_SEVERE_SHOWN);
    expect(message.text).toContain('  … and 7 more\n');
    expect(message.text).toContain('Detected at: 2026-03-04T03:00:07Z');
    expect(message.text).toContain('Connection:  Orders & co (postgresql, db.internal / orders)');
  });

  it('escapes names in the HTML part', () => {
    const { html, link } = composeDriftAlert(input);
    expect(html).toContain('<strong>Orders &amp; co</strong>');
    expect(html).toContain('column removed &lt;script&gt; (was text NULL)');
    expect(html).not.toContain('<script>');
    expect(html).toContain(`<a href="${link}">`);
    expect(html.match(/<li>/g)).toHaveLength(MOST_SEVERE_SHOWN + 1);
  });
});
