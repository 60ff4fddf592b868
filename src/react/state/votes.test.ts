import { describe, expect, it } from 'vitest';
import { votesSummary } from './votes.js';

describe('votesSummary', () => {
  const at = '2030-01-01T00:00:00.000Z';
  it('says how many allows of how many, who said what, and who is left', () => {
    expect(
      votesSummary({ required: 2, approvers: ['bob', 'cat', 'dan'], votes: [{ by: 'bob', decision: 'allow', at }] }),
    ).toBe('1 of 2 approvals: bob allowed · waiting on cat, dan');
    expect(
      votesSummary({
        required: 2,
        approvers: ['bob', 'cat'],
        votes: [
          { by: 'bob', decision: 'allow', at, outdated: true },
          { by: 'cat', decision: 'allow', at, args: { amount: 50 } },
        ],
      }),
    ).toBe('1 of 2 approvals: bob allowed (before the edit), cat allowed edited arguments · waiting on bob');
    expect(votesSummary({ required: 1, votes: [] })).toBe('0 of 1 approval');
    // A delegate's vote is the approver's: "eve for cat", and cat is no longer waited on.
    expect(
      votesSummary({
        required: 2,
        approvers: ['bob', 'cat', 'dan'],
        votes: [{ by: 'eve', for: 'cat', decision: 'allow', at }],
      }),
    ).toBe('1 of 2 approvals: eve for cat allowed · waiting on bob, dan');
    expect(votesSummary({})).toBeUndefined();
  });
});

describe('the AI SDK approval part', () => {
  it('carries the votes, required and approvers in its toolMetadata.heed', async () => {
    const { heedMetadata } = await import('../../http/ai-sdk/ui-messages.js');
    const view = {
      id: 'a1',
      kind: 'approval' as const,
      conversationId: 'c',
      messageId: 'm',
      toolCallId: 't',
      toolName: 'pay',
      status: 'pending' as const,
      createdAt: '2030-01-01T00:00:00.000Z',
      args: {},
      title: 'Pay?',
      summary: '',
      canRemember: false,
      required: 2,
      approvers: ['bob', 'cat'],
      votes: [{ by: 'bob', decision: 'allow' as const, at: '2030-01-01T00:00:00.000Z' }],
    };
    expect(heedMetadata(view).heed).toMatchObject({
      required: 2,
      approvers: ['bob', 'cat'],
      votes: [{ by: 'bob', decision: 'allow' }],
    });
  });
});
