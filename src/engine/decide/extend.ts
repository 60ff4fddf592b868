// The extend verb's deciding half: pure, from what was read to the writes and the answer. Its running half,
// src/engine/extend.ts, reads the store, commits through the runner and starts what comes next.
import { callerId } from '../../caller.js';
import { earliestDue, type Engine } from '../engine.js';
import { HeedError } from '../../errors.js';
import { kindOf } from '../../kinds/index.js';
import { newEvent } from '../../protocol/events.js';
import type { ActionRecord } from '../../types.js';
import type { Decision, Snapshot } from '../transact.js';
import { answerableAction, type SettleInput } from './settle.js';

/** What the extension decider reads: the conversation and its actions. */
export const extendParts = { actions: true } as const;

/**
 * The extension decider (docs/approvals.md, Reminders and extensions): whoever may answer the action may
 * move its deadline to `minutes` from now (never earlier than it stands), at most `hitl.maxExtendMinutes`
 * away; `minutes: 0` (never lapse) only where that bound is 0 and the action's kind has no lapse policy of
 * its own. The reminders are planned again for the new deadline, and the sweep looks at the new time.
 */
export async function decideExtend(
  engine: Engine,
  actionId: string,
  minutes: number,
  input: SettleInput,
  read: Snapshot<typeof extendParts>,
): Promise<Decision<ActionRecord>> {
  const { action } = await answerableAction(engine, actionId, input, read);
  const { conversation } = read;
  const agent = engine.agents.get(conversation.agent);
  const max = engine.setting(agent, 'maxExtendMinutes');
  if (minutes === 0) {
    if (max !== 0) {
      throw new HeedError(
        'invalid_extension',
        `This agent does not let a request wait forever: extend it by at most ${max} minutes.`,
        { details: { actionId, maxMinutes: max } },
      );
    }
    // A kind that must be answered when it lapses (a client tool) keeps a deadline.
    if (kindOf(action.kind).onTimeout) {
      throw new HeedError(
        'invalid_extension',
        'This kind of request must keep a deadline: extend it by some minutes.',
        {
          details: { actionId },
        },
      );
    }
  } else if (max !== 0 && minutes > max) {
    throw new HeedError(
      'extension_too_long',
      `A request may be extended by at most ${max} minutes from now; ${minutes} is more than that.`,
      { details: { actionId, minutes, maxMinutes: max } },
    );
  }
  // Nothing to extend: a request that never lapses keeps waiting (an extension would give it a deadline).
  if (action.expiresAt === null) {
    throw new HeedError('invalid_extension', 'This request never lapses: there is no deadline to extend.', {
      details: { actionId },
    });
  }
  const at = engine.now();
  const expiresAt = minutes === 0 ? null : engine.expiresAfterMinutes(minutes);
  if (expiresAt !== null && expiresAt < action.expiresAt) {
    throw new HeedError(
      'invalid_extension',
      `This request already waits until ${action.expiresAt}; an extension only moves its deadline later.`,
      { details: { actionId, expiresAt: action.expiresAt } },
    );
  }
  const { remindAt = [] } = engine.reminderTimes(agent, expiresAt);
  const extended: ActionRecord = { ...action, expiresAt, remindAt };
  const pending = read.actions
    .filter((entry) => entry.status === 'pending')
    .map((entry) => (entry.id === action.id ? extended : entry));
  const by = input.link ? input.link.recipient : callerId(input.caller ?? { userId: conversation.ownerId });
  return {
    type: 'write',
    write: {
      revise: [{ id: action.id, request: action.request, reason: 'extension', expiresAt, remindAt }],
      events: [
        newEvent('action.extended', at, {
          actionId: action.id,
          kind: action.kind,
          toolCallId: action.toolCallId,
          toolName: action.toolName,
          by,
          channel: input.link ? 'link' : 'api',
          minutes,
          previousExpiresAt: action.expiresAt,
          expiresAt,
        }),
      ],
      // The sweep looks at the new deadline (and the new reminders) instead of the old one.
      set: { updatedAt: at, actionDueAt: earliestDue(pending) },
    },
    value: extended,
  };
}
