import { describe, expect, it } from 'vitest';
import type { LintWarning, MigrationStatement } from '../api/types.ts';
import { changedFields, initialForm } from './connection-form.ts';
import { readCookie } from './cookies.ts';
import { detailText } from './errors.ts';
import { parseOptions, rowsOf } from './forms.ts';
import { blockingWarnings, destructiveStatements, warningsByStatement } from './lint.ts';
import { countOf } from './plural.ts';
import { isActiveRun, percentDone, pollInterval } from './poll.ts';
import { retriesAgain } from './retry.ts';
import { generatorColumns } from './seed-columns.ts';
import { remainingText } from './time.ts';

const statement = (sql: string, destructive = false): MigrationStatement => ({
  sql,
  kind: 'alter_table',
  destructive,
  transactional: true,
  reversible: !destructive,
});
const warning = (index: number, severity: LintWarning['severity'], rule = 'r'): LintWarning => ({
  rule,
  severity,
  statement_index: index,
  object: 'public.items',
  message: `${rule} ${severity}`,
});

describe('lint warnings beside their statements', () => {
  it('puts each warning beside the statement it names, most severe first', () => {
    const statements = [statement('ALTER 1'), statement('ALTER 2', true)];
    const reviewed = warningsByStatement(statements, [
      warning(1, 'info', 'a'),
      warning(1, 'error', 'b'),
      warning(0, 'warning', 'c'),
      warning(1, 'warning', 'd'),
    ]);
    expect(reviewed.map((r) => r.warnings.map((w) => w.rule))).toEqual([['c'], ['b', 'd', 'a']]);
    expect(reviewed[1]!.statement.sql).toBe('ALTER 2');
  });

  it('finds what blocks apply and what needs the double confirmation', () => {
    expect(blockingWarnings([warning(0, 'warning'), warning(1, 'error', 'x')]).map((w) => w.rule)).toEqual([
      'x',
    ]);
    expect(destructiveStatements([statement('a'), statement('DROP', true)]).map((s) => s.sql)).toEqual([
      'DROP',
    ]);
  });
});

describe('polling a run', () => {
  it('polls every second at first, backs off to 10 s, and stops when the run ended', () => {
    expect(pollInterval('running', 1)).toBe(1000);
    expect(pollInterval('queued', 5)).toBe(1000);
    expect(pollInterval('running', 6)).toBe(1500);
    expect(pollInterval('running', 40)).toBe(10_000);
    expect(pollInterval(undefined, 1)).toBe(1000);
    for (const ended of ['succeeded', 'failed', 'cancelled']) expect(pollInterval(ended, 1)).toBe(false);
    expect(isActiveRun('awaiting_approval')).toBe(true);
  });

  it('computes the percentage only when the total is known', () => {
    expect(percentDone({ done: 5, total: 20 })).toBe(25);
    expect(percentDone({ done: 30, total: 20 })).toBe(100);
    expect(percentDone({ done: 5, total: null })).toBeUndefined();
    expect(percentDone({ done: 0, total: 0 })).toBeUndefined();
  });
});

describe('API errors as text', () => {
  it('shows a detail sentence as it is', () => {
    expect(detailText({ detail: 'Invalid email or password' }, 401)).toBe('Invalid email or password');
  });
  it('turns a 422 list into field: message lines', () => {
    const body = {
      detail: [
        { loc: ['body', 'name'], msg: 'must not be empty', type: 'x' },
        { loc: ['body'], msg: 'malformed JSON', type: 'json_invalid' },
      ],
    };
    expect(detailText(body, 422)).toBe('name: must not be empty\nmalformed JSON');
  });
  it('falls back to the status when there is no detail', () => {
    expect(detailText(undefined, 502)).toBe('Request failed (502)');
  });
});

describe('cookies', () => {
  it('reads the CSRF token among other cookies', () => {
    expect(readCookie('a=1; csrf_token=abc%3D%3D; b=2', 'csrf_token')).toBe('abc==');
    expect(readCookie('a=1', 'csrf_token')).toBeUndefined();
    expect(readCookie('x_csrf_token=no; csrf_token=yes', 'csrf_token')).toBe('yes');
  });
});

describe('remaining time of a grant', () => {
  const now = new Date('2026-01-01T10:00:00Z');
  it('says minutes, hours and expired', () => {
    expect(remainingText('2026-01-01T10:00:30Z', now)).toBe('1 min left');
    expect(remainingText('2026-01-01T10:45:00Z', now)).toBe('45 min left');
    expect(remainingText('2026-01-01T12:00:00Z', now)).toBe('2 h left');
    expect(remainingText('2026-01-01T11:05:00Z', now)).toBe('1 h 5 min left');
    expect(remainingText('2026-01-01T09:59:59Z', now)).toBe('expired');
  });
});

describe('form parsing', () => {
  it('reads transformer options as a JSON object and names the rule otherwise', () => {
    expect(parseOptions('', 0)).toEqual({});
    expect(parseOptions('{"kind": "email"}', 0)).toEqual({ kind: 'email' });
    expect(() => parseOptions('{kind: email}', 1)).toThrow('Rule 2: the options are not valid JSON');
    expect(() => parseOptions('[1]', 2)).toThrow('Rule 3: the options must be a JSON object');
  });

  it('shows every operation in the policy editor, with the saved rules in place', () => {
    const rows = rowsOf([
      {
        operation: 'bridge_run',
        environments: ['staging'],
        required_approvals: 2,
        allow_self_approval: true,
      },
    ]);
    expect(rows).toHaveLength(7);
    expect(rows.find((r) => r.operation === 'bridge_run')?.required_approvals).toBe(2);
    expect(rows.find((r) => r.operation === 'patch_execute')?.environments).toEqual([]);
  });
});

describe('seed generators per column', () => {
  it('keeps only the columns given a kind, with their options', () => {
    expect(
      generatorColumns('public.people', {
        id: { kind: '', options: '' },
        age: { kind: 'int', options: '{"min": 18, "max": 99}' },
        note: { kind: 'null', options: '' },
      }),
    ).toEqual({ age: { kind: 'int', min: 18, max: 99 }, note: { kind: 'null' } });
    expect(generatorColumns('t', { id: { kind: '', options: '{"x": 1}' } })).toBeUndefined();
  });
  it('names the column whose options are not a JSON object', () => {
    expect(() => generatorColumns('t', { a: { kind: 'int', options: '{min: 1' } })).toThrow(
      /^t\.a: .*not valid JSON/,
    );
    expect(() => generatorColumns('t', { a: { kind: 'choice', options: '[1]' } })).toThrow(
      /^t\.a: .*JSON object/,
    );
  });
});

describe('editing a connection', () => {
  const saved = {
    ...initialForm(),
    id: 'c1',
    name: 'orders',
    database: 'orders',
    username: 'app',
  } as unknown as Parameters<typeof changedFields>[0];
  it('sends only the fields that changed, never the engine', () => {
    const form = { ...initialForm(saved), name: 'orders-eu', dialect: 'mysql' as const };
    expect(changedFields(saved, form)).toEqual({ name: 'orders-eu' });
    expect(changedFields(saved, initialForm(saved))).toEqual({});
  });
  it('starts with an empty password and sends one only when typed', () => {
    expect(initialForm(saved).password).toBe('');
    expect(changedFields(saved, { ...initialForm(saved), password: 's3cret' })).toEqual({
      password: 's3cret',
    });
  });
});

describe('asking the API again by itself', () => {
  it('never after a refused login to a target, never after a 4xx, otherwise once', () => {
    expect(retriesAgain(0, { status: 502, targetCause: 'authentication_failed' })).toBe(false);
    expect(retriesAgain(0, { status: 404 })).toBe(false);
    expect(retriesAgain(0, { status: 502, targetCause: 'unreachable' })).toBe(true);
    expect(retriesAgain(1, { status: 502, targetCause: 'unreachable' })).toBe(false);
    // A network failure has no status: once too.
    expect([retriesAgain(0, {}), retriesAgain(1, {})]).toEqual([true, false]);
  });

  it('counts in words: 1 row, 2 rows', () => {
    expect([countOf(1, 'row'), countOf(2, 'row'), countOf(0, 'rule')]).toEqual([
      '1 row',
      '2 rows',
      '0 rules',
    ]);
  });
});
