import { describe, expect, it } from 'vitest';
import { argumentsDiff } from './arguments-diff.js';

describe('argumentsDiff', () => {
  it('lists every argument as asked and approved, marking the changed ones, new ones last', () => {
    expect(
      argumentsDiff({ orderId: 42, amount: 30, reason: 'late' }, { orderId: 42, amount: 20, note: 'partial' }),
    ).toEqual([
      { name: 'orderId', asked: 42, approved: 42, changed: false },
      { name: 'amount', asked: 30, approved: 20, changed: true },
      { name: 'reason', asked: 'late', changed: true },
      { name: 'note', approved: 'partial', changed: true },
    ]);
  });

  it('compares nested values by content, and whole values when they are not objects', () => {
    expect(argumentsDiff({ items: [1, 2] }, { items: [1, 2] })).toEqual([
      { name: 'items', asked: [1, 2], approved: [1, 2], changed: false },
    ]);
    expect(argumentsDiff([1], [2])).toEqual([{ name: '', asked: [1], approved: [2], changed: true }]);
  });

  it('an inherited name is not taken for an argument', () => {
    expect(argumentsDiff({}, { toString: 1 })).toEqual([{ name: 'toString', approved: 1, changed: true }]);
  });
});
