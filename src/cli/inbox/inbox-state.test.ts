import { describe, expect, it } from 'vitest';
import type { ActionView } from '../../client/index.js';
import { matchesFilter, mergeInbox, markSettled, MAX_SETTLED_ROWS, moveCursor, visibleWindow } from './inbox-state.js';

const action = (id: string, createdAt: string): ActionView =>
  ({
    id,
    kind: 'approval',
    conversationId: 'c',
    messageId: 'm',
    toolCallId: id,
    toolName: 'tool',
    status: 'pending',
    createdAt,
  }) as ActionView;

describe('the terminal inbox state', () => {
  it('adds new requests oldest first and keeps a row that left the inbox, reporting it for a look-up', () => {
    const first = mergeInbox([], [action('b', '2030-01-01T00:00:02Z'), action('a', '2030-01-01T00:00:01Z')]);
    expect(first.entries.map((entry) => entry.action.id)).toEqual(['a', 'b']);
    const second = mergeInbox(first.entries, [action('b', '2030-01-01T00:00:02Z')]);
    expect(second.vanished.map((gone) => gone.id)).toEqual(['a']);
    expect(second.entries.map((entry) => [entry.action.id, Boolean(entry.settled)])).toEqual([
      ['a', true],
      ['b', false],
    ]);
    const answered = markSettled(
      second.entries,
      {
        ...action('a', '2030-01-01T00:00:01Z'),
        status: 'resolved',
        resolvedBy: 'bob',
        resolution: { type: 'approval', decision: 'allow' },
      },
      false,
    );
    expect(answered[0].settled).toEqual({
      byMe: false,
      status: 'resolved',
      resolvedBy: 'bob',
      resolution: { type: 'approval', decision: 'allow' },
    });
  });

  it('a row being answered here is not reported as answered by someone else', () => {
    const { entries } = mergeInbox([], [action('a', '2030-01-01T00:00:01Z')]);
    const next = mergeInbox(entries, [], new Set(['a']));
    expect(next.vanished).toEqual([]);
    expect(next.entries[0].settled).toBeUndefined();
  });

  it(`keeps at most ${MAX_SETTLED_ROWS} settled rows`, () => {
    const many = Array.from({ length: MAX_SETTLED_ROWS + 5 }, (_, index) =>
      action(`a${String(index).padStart(3, '0')}`, `2030-01-01T00:00:${String(index).padStart(2, '0')}Z`),
    );
    const { entries } = mergeInbox([], many);
    expect(mergeInbox(entries, []).entries).toHaveLength(MAX_SETTLED_ROWS);
  });

  it('moves the cursor inside the list and keeps it in the visible window', () => {
    expect(moveCursor(0, -1, 3)).toBe(0);
    expect(moveCursor(2, 1, 3)).toBe(2);
    expect(visibleWindow(100, 50, 19)).toEqual({ start: 41, end: 60 });
    expect(visibleWindow(100, 99, 19)).toEqual({ start: 81, end: 100 });
    expect(visibleWindow(5, 4, 19)).toEqual({ start: 0, end: 5 });
  });

  it('/ filters by every word typed, in any case, across kind, agent, title, arguments and questions', () => {
    const refund = {
      action: {
        ...action('r', '2030-01-01T00:00:01Z'),
        title: 'Refund $80 on order 1042?',
        args: { orderId: 1042, amount: 80 },
      } as ActionView,
    };
    const trip = {
      action: {
        ...action('t', '2030-01-01T00:00:02Z'),
        kind: 'question',
        toolName: 'ask',
        questions: [
          { id: 'd', header: 'Destination', prompt: 'Where to?', options: [{ value: 'kyoto', label: 'Kyoto' }] },
        ],
      } as unknown as ActionView,
    };
    const match = (entry: { action: ActionView }, agent: string, filter: string) => matchesFilter(entry, agent, filter);
    expect(match(refund, 'finance', '')).toBe(true);
    expect(match(refund, 'finance', '1042')).toBe(true);
    expect(match(refund, 'finance', 'FINANCE refund')).toBe(true);
    expect(match(refund, 'finance', 'refund kyoto')).toBe(false);
    expect(match(trip, 'trip-planner', 'kyoto')).toBe(true);
    expect(match(trip, 'trip-planner', 'question trip')).toBe(true);
    expect(match(trip, 'trip-planner', '1042')).toBe(false);
  });
});
