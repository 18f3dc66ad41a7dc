import { describe, expect, it } from 'vitest';
import { parentsFirst } from './table-order.ts';

describe('parentsFirst', () => {
  it('puts referenced tables before referencing ones, whatever the input order', () => {
    expect(
      parentsFirst([
        { key: 'line', parents: ['order', 'product'] },
        { key: 'order', parents: ['customer'] },
        { key: 'product', parents: [] },
        { key: 'customer', parents: [] },
      ]),
    ).toEqual(['product', 'customer', 'order', 'line']);
  });

  it('ends on cycles and self-references, and ignores tables outside the copy', () => {
    const order = parentsFirst([
      { key: 'b', parents: ['a', 'elsewhere'] },
      { key: 'a', parents: ['b'] },
      { key: 'tree', parents: ['tree'] },
      { key: 'leaf', parents: ['a'] },
    ]);
    expect(order).toHaveLength(4);
    expect(order.indexOf('leaf')).toBeGreaterThan(order.indexOf('a'));
    expect(order).toContain('tree');
  });
});
