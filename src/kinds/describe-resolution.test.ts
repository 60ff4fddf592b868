import { describe, expect, it } from 'vitest';
import { urlView } from '../../test/fixtures/url-action.js';
import {
  describeResolution,
  detailLinesOf,
  headlineOf,
  nounOf,
  oneClickChoiceOf,
  outcomeOf,
  type ActionView,
} from './index.js';

const base = {
  id: 'act_2',
  conversationId: 'conv_1',
  messageId: 'msg_1',
  toolCallId: 'call_2',
  createdAt: '2030-01-01T00:00:00.000Z',
};
const approval = {
  ...base,
  kind: 'approval',
  toolName: 'issue_refund',
  status: 'resolved',
  args: { orderId: 42, amount: 30 },
  title: 'Refund $30 on order 42?',
  summary: 'A refund to the card it was paid with.',
  canRemember: false,
  resolution: { type: 'approval', decision: 'deny', comment: 'not today' },
} as ActionView;
const question = {
  ...base,
  kind: 'question',
  toolName: 'ask',
  status: 'resolved',
  questions: [
    {
      id: 'size',
      header: 'Size',
      prompt: 'Which size?',
      options: [
        { value: 's', label: 'Small' },
        { value: 'l', label: 'Large' },
      ],
    },
  ],
  resolution: { type: 'question', answers: { size: ['l'] } },
} as ActionView;

describe('a kind says how its request ended, the same wherever it is shown', () => {
  it('the settled line: the outcome, then what the answer said (labels, not stored values)', () => {
    expect(describeResolution(approval)).toBe('Denied ("not today")');
    expect(outcomeOf(approval)).toBe('Denied');
    expect(describeResolution(question)).toBe('Answered (Size: Large)');
    expect(
      describeResolution({ ...urlView, status: 'resolved', resolution: { type: 'url', decision: 'accept' } }),
    ).toBe('Opened');
  });

  it('a lapse and a withdrawal are said whatever the kind', () => {
    expect(describeResolution({ ...approval, status: 'expired', channel: 'timeout' })).toBe(
      'Lapsed: nobody answered in time',
    );
    expect(outcomeOf({ ...urlView, status: 'expired' })).toBe('Lapsed');
    const withdrawn = { ...question, status: 'cancelled', resolution: { type: 'cancelled', reason: 'edited' } };
    expect(describeResolution(withdrawn as ActionView)).toBe('Closed without an answer');
  });

  it('names, headlines and the request in full come from the kind', () => {
    expect([nounOf(approval), headlineOf(approval)]).toEqual(['Approval', 'Refund $30 on order 42?']);
    expect(detailLinesOf(urlView).map((line) => line.text)).toEqual([
      'Connect your calendar',
      'Host: calendar.example',
      'https://calendar.example/connect',
    ]);
  });

  it("an answer link's one-click choice is read back by the kind that made it", () => {
    const pending = { ...question, status: 'pending', resolution: undefined } as ActionView;
    const choice = oneClickChoiceOf(pending, new URLSearchParams({ q: 'size', v: 's' }));
    expect(choice?.label).toBe('Small');
    expect(choice?.view).toMatchObject({ questions: [{ id: 'size', defaults: ['s'] }] });
    expect(oneClickChoiceOf(pending, new URLSearchParams({ q: 'size', v: 'xl' }))).toBeUndefined();
    expect(oneClickChoiceOf({ ...approval, status: 'pending' }, new URLSearchParams({ choice: 'deny' }))?.confirm).toBe(
      'deny',
    );
  });
});
