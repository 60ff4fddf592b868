// The cancel verb's deciding half: pure, from what was read to the writes and the answer. Its running half,
// src/engine/cancel.ts, reads the store, commits through the runner and starts what comes next.
import { callerId, type Caller, type ChannelWrite } from '../../caller.js';
import type { Engine } from '../engine.js';
import { conversationNotFound, mayWriteAsOwner, refuseChannelWrite } from '../access.js';
import { newEvent } from '../../protocol/events.js';
import type { ActionRecord } from '../../types.js';
import { withdrawalWrites } from '../withdraw.js';
import { dropQueue } from '../queue.js';
import { openChildCalls } from '../children.js';
import type { Decision, Snapshot } from '../transact.js';

/** What the cancel decider reads (one snapshot): the messages whose open calls it closes, and the actions. */
export const cancelParts = { messages: true, actions: true } as const;

/** The actions a cancel closed (their live calls are released once it is written); none for an idle conversation. */
export type Cancelled = { cancelled: false } | { cancelled: true; closed: ActionRecord[]; children: string[] };

/**
 * The cancel decider: an open pause (every pending action closes as cancelled) or a running turn (its claim
 * is dropped, and the messages queued behind it with it). An idle conversation is left alone.
 */
export function decideCancel(
  engine: Engine,
  input: { caller?: Caller } & ChannelWrite,
  read: Snapshot<typeof cancelParts>,
): Decision<Cancelled> {
  const { conversation } = read;
  if (!mayWriteAsOwner(input.caller, conversation)) throw conversationNotFound(conversation.id);
  refuseChannelWrite(conversation, input.via, 'cancel it there.');
  if (conversation.status === 'idle') return { type: 'none', value: { cancelled: false } };
  const pending = read.actions.filter((action) => action.status === 'pending');
  const by = callerId(input.caller ?? { userId: conversation.ownerId });
  const closing = withdrawalWrites(engine, read.messages, pending, {
    resolvedBy: by,
    channel: 'api',
    reason: 'cancelled',
  });
  const at = engine.now();
  // Messages queued behind a cancelled turn are cancelled with it: a stop stops what was asked next too.
  const queued = dropQueue(engine, conversation, {
    code: 'cancelled',
    message: 'The turn this message waited for was cancelled, and the message with it; send it again.',
  });
  return {
    type: 'write',
    write: {
      settle: closing.settle,
      messages: closing.messages,
      events: [...closing.events, newEvent('turn.cancelled', at, { reason: 'cancelled', by }), ...queued.events],
      set: { status: 'idle', actionDueAt: null, leaseOwner: null, leaseExpiresAt: null, updatedAt: at, ...queued.set },
    },
    // The children it waited on are cancelled next (src/engine/cancel.ts): a stop stops what it called too.
    value: {
      cancelled: true,
      closed: pending,
      children: openChildCalls(engine.agents.get(conversation.agent), conversation, read.messages).map(
        (call) => call.conversationId,
      ),
    },
  };
}
