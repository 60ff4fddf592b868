import { describe, expect, it } from 'vitest';
import type { ApprovalActionView } from '../../views.js';
import { channelPlatform } from '../../protocol/conversation.js';
import { whoDecides } from './who-decides.js';

const at = '2030-01-01T00:00:00.000Z';
const fourEyes: ApprovalActionView = {
  id: 'a1',
  kind: 'approval',
  conversationId: 'c1',
  messageId: 'm1',
  toolCallId: 't1',
  toolName: 'pay',
  status: 'pending',
  createdAt: at,
  args: { to: 'acme', amount: 100 },
  title: 'Pay 100 to acme?',
  summary: '',
  canRemember: false,
  required: 2,
  deny: 'any',
  excludeRequester: true,
  // The server leaves the requester (ada) out of the list already.
  approvers: ['grace', 'lin'],
  votes: [],
};

describe('whoDecides', () => {
  it("a delegate may vote in an approver's place until that approver's vote is given (by them or for them)", () => {
    expect(whoDecides(fourEyes, { me: 'sam', ownerId: 'ada', standsFor: ['grace'] }).mayAnswer).toBe(true);
    const given = {
      ...fourEyes,
      votes: [{ by: 'sam', for: 'grace', decision: 'allow' as const, at }],
    };
    expect(whoDecides(given, { me: 'sam', ownerId: 'ada', standsFor: ['grace'] })).toEqual({
      mayAnswer: false,
      waitingFor: 'Waiting for 1 of: lin',
      reason: 'You allowed it; the others decide the rest.',
    });
    // The requester votes in nobody's place under four eyes.
    expect(whoDecides(fourEyes, { me: 'ada', ownerId: 'ada', standsFor: ['grace'] }).mayAnswer).toBe(false);
  });

  it('the requester of a four-eyes approval may not answer it, and reads who must', () => {
    expect(whoDecides(fourEyes, { me: 'ada', ownerId: 'ada' })).toEqual({
      mayAnswer: false,
      waitingFor: 'Waiting for 2 of: grace, lin',
      reason: 'You asked for this, so someone else must approve it (four eyes).',
    });
  });

  it('an approver may answer, and is "you" in the line', () => {
    expect(whoDecides(fourEyes, { me: 'grace', ownerId: 'ada' })).toEqual({
      mayAnswer: true,
      waitingFor: 'Waiting for 2 of: you, lin',
    });
  });

  it('once someone allowed, the line counts what is left and who has not voted; the voter gets no second vote', () => {
    const voted = { ...fourEyes, votes: [{ by: 'grace', decision: 'allow' as const, at }] };
    expect(whoDecides(voted, { me: 'ada', ownerId: 'ada' }).waitingFor).toBe('Waiting for 1 of: lin');
    expect(whoDecides(voted, { me: 'grace', ownerId: 'ada' })).toMatchObject({
      mayAnswer: false,
      reason: 'You allowed it; the others decide the rest.',
    });
    expect(whoDecides(voted, { me: 'lin', ownerId: 'ada' })).toMatchObject({ mayAnswer: true });
  });

  it('an allow given before the arguments were edited no longer counts: its voter may vote again', () => {
    const edited = {
      ...fourEyes,
      votes: [
        { by: 'grace', decision: 'allow' as const, at, outdated: true as const },
        { by: 'lin', decision: 'allow' as const, at, args: { to: 'acme', amount: 50 } },
      ],
    };
    expect(whoDecides(edited, { me: 'grace', ownerId: 'ada' })).toEqual({
      mayAnswer: true,
      waitingFor: 'Waiting for 1 of: you',
    });
  });

  it('someone not named is told so; a viewer the page does not know keeps the controls (the server decides)', () => {
    expect(whoDecides(fourEyes, { me: 'eve', ownerId: 'ada' })).toMatchObject({
      mayAnswer: false,
      reason: 'You are not one of its approvers.',
    });
    expect(whoDecides(fourEyes, { me: null, ownerId: 'ada' })).toEqual({
      mayAnswer: true,
      waitingFor: 'Waiting for 2 of: grace, lin',
    });
  });

  it('a group among the approvers: its members may vote, others are told so; groups unknown, the server decides', () => {
    const grouped = { ...fourEyes, approvers: ['grace', 'group:finance'] };
    expect(whoDecides(grouped, { me: 'eve', ownerId: 'ada', groups: ['finance'] }).mayAnswer).toBe(true);
    expect(whoDecides(grouped, { me: 'eve', ownerId: 'ada', groups: ['ops'] })).toMatchObject({
      mayAnswer: false,
      reason: 'You are not one of its approvers.',
    });
    expect(whoDecides(grouped, { me: 'eve', ownerId: 'ada' }).mayAnswer).toBe(true);
  });

  it('without named approvers it says how many more, and not from whom under four eyes', () => {
    const open = { ...fourEyes, approvers: undefined, required: 1 };
    expect(whoDecides(open, { me: 'ada', ownerId: 'ada' })).toMatchObject({
      mayAnswer: false,
      waitingFor: 'Waiting for 1 more approval from someone other than you',
    });
    expect(whoDecides(open, { me: 'bob', ownerId: 'ada' })).toEqual({
      mayAnswer: true,
      waitingFor: 'Waiting for 1 more approval from someone other than ada',
    });
  });

  it('an approval one answer decides, and every other kind, leave the controls alone', () => {
    const single = {
      ...fourEyes,
      required: undefined,
      approvers: undefined,
      excludeRequester: undefined,
      votes: undefined,
    };
    expect(whoDecides(single, { me: 'ada', ownerId: 'ada' })).toEqual({ mayAnswer: true });
  });
});

describe('channelPlatform', () => {
  it('names the platform of a channel conversation as people spell it', () => {
    expect(channelPlatform('slack:T1:C1:1700000000.000001')).toBe('Slack');
    expect(channelPlatform('teams:x')).toBe('Microsoft Teams');
    expect(channelPlatform('github:org/repo#1')).toBe('GitHub');
    expect(channelPlatform('matrix:room')).toBe('Matrix');
    expect(channelPlatform('constructor:x')).toBe('Constructor');
    expect(channelPlatform(null)).toBeUndefined();
  });
});
