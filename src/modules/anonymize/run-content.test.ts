import { describe, expect, it } from 'vitest';
import { runContentHash } from './run-content.ts';

describe('runContentHash', () => {
  const config = {
    rules: [
      {
        table: 'public.users',
        column: 'email',
        transformer: 'fake',
        options: { kind: 'email', locale: 'en' },
      },
    ],
    propagated: [],
    key_id: 'k1',
  };

  it('changes with the rules, the key id and the schema, not with the order of option keys', () => {
    const base = runContentHash(config, 'schema-a');
    expect(runContentHash({ ...config, key_id: 'k2' }, 'schema-a')).not.toBe(base);
    expect(runContentHash(config, 'schema-b')).not.toBe(base);
    expect(
      runContentHash({ ...config, rules: [{ ...config.rules[0]!, column: 'mail' }] }, 'schema-a'),
    ).not.toBe(base);
    const reordered = [
      {
        table: 'public.users',
        column: 'email',
        transformer: 'fake',
        options: { locale: 'en', kind: 'email' },
      },
    ];
    expect(runContentHash({ ...config, rules: reordered }, 'schema-a')).toBe(base);
  });
});
