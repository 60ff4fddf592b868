// The send verb's deciding half: pure, from what was read to the writes and the answer. Its running half,
// src/engine/send.ts, reads the store, commits through the runner and starts what comes next.
import { callerId, type Caller, type ChannelWrite } from '../../caller.js';
import type { Engine } from '../engine.js';
import { conversationNotFound, mayWriteAsOwner, refuseChannelWrite } from '../access.js';
import { HeedError } from '../../errors.js';
import { newEvent } from '../../protocol/events.js';
import { newId } from '../../ids.js';
import { titleFromMessage } from '../../protocol/conversation.js';
import type { ActionRecord, JsonObject, MessageRecord, QueuedMessage, RememberedTool } from '../../types.js';
import type { BusyPolicy } from '../../config.js';
import { queueWrite } from '../queue.js';
import { openChildCalls } from '../children.js';
import { withdrawForNewMessage } from '../withdraw.js';
import type { Decision, Snapshot, Write } from '../transact.js';

/** Thrown when `seen` says the message was already recorded; only a channel adapter asks for it, and catches it. */
export class DuplicateMessage extends Error {
  constructor() {
    super('This message was already recorded.');
  }
}

/** What the send decider reads (one snapshot): the prompt's messages, the open actions a new message may close, the remembered tools. */
export const sendParts = { messages: true, actions: true, remembered: true } as const;

/** How a message was recorded: queued behind the running turn, or as the start of its own turn. */
export type Sent =
  | { type: 'queued'; entry: QueuedMessage; position: number }
  | {
      type: 'started';
      leaseOwner: string;
      closed: ActionRecord[];
      messages: MessageRecord[];
      remembered: RememberedTool[];
    };

export interface SendInput extends ChannelWrite {
  caller?: Caller;
  metadata?: JsonObject;
  seen?: (messages: MessageRecord[]) => boolean;
  interactive?: boolean;
  busyPolicy?: BusyPolicy;
}

/**
 * The send decider: a user message starts a turn (claiming it in the same write), is queued behind the
 * running one (`busyPolicy: 'queue'`), or is refused (busy, waiting for an answer, a limit, the budget).
 */
export function decideSend(
  engine: Engine,
  content: string,
  input: SendInput,
  read: Snapshot<typeof sendParts>,
): Decision<Sent> {
  const { conversation } = read;
  const conversationId = conversation.id;
  if (!mayWriteAsOwner(input.caller, conversation)) throw conversationNotFound(conversationId);
  const messages = [...read.messages];
  refuseChannelWrite(conversation, input.via, 'write there, or branch it into a new conversation.');
  engine.agentOf(conversation);
  // Before the busy check: the same event delivered again while its own turn runs is a duplicate, not a clash.
  if (input.seen?.(messages)) throw new DuplicateMessage();
  if (conversation.status === 'running') {
    const policy = input.busyPolicy ?? engine.busyPolicy(engine.agents.get(conversation.agent));
    if (policy !== 'queue' || input.interactive === false) {
      throw new HeedError(
        'conversation_busy',
        'A turn is already running in this conversation; wait for it to finish.',
      );
    }
    const queued = queueWrite(engine, conversation, messages.length, content, input.caller);
    return {
      type: 'write',
      write: queued.write,
      value: { type: 'queued', entry: queued.entry, position: queued.position },
    };
  }
  const maxMessages = engine.limits.maxMessagesPerConversation;
  if (messages.length >= maxMessages) {
    throw new HeedError(
      'message_limit_reached',
      `This conversation holds ${messages.length} messages, the most one may (limits.maxMessagesPerConversation); start a new one, or branch this one from an earlier message.`,
      {
        details: { messages: messages.length, maxMessages },
      },
    );
  }
  const at = engine.now();
  const write: Write = { events: [] };
  const events = write.events ?? [];
  let closed: ActionRecord[] = [];
  // A pause on child conversations is answered in them (or through this one's action route), not by a new message.
  if (
    conversation.status === 'requires_action' &&
    openChildCalls(engine.agents.get(conversation.agent), conversation, messages).length > 0
  )
    throw new HeedError(
      'action_pending',
      'This conversation is waiting on another agent it called; answer what that agent asks, or cancel it.',
    );
  if (conversation.status === 'requires_action') {
    const pending = read.actions.filter((action) => action.status === 'pending');
    const closing = withdrawForNewMessage(
      engine,
      messages,
      pending,
      'This conversation is waiting for an answer; answer or cancel it before sending a new message.',
    );
    closed = pending;
    write.settle = closing.settle;
    write.messages = closing.messages;
    events.push(...closing.events);
    messages.push(...closing.messages);
  }
  if (!engine.budgetLeft(conversation)) throw engine.budgetError(conversation);

  const user: MessageRecord = {
    id: newId('m'),
    conversationId,
    position: messages.length,
    role: 'user',
    parts: [{ type: 'text', text: content }],
    metadata: input.metadata ?? null,
    createdAt: at,
  };
  const leaseOwner = newId('lease');
  write.messages = [...(write.messages ?? []), user];
  events.push(
    newEvent('message.created', at, {
      messageId: user.id,
      role: 'user',
      parts: user.parts,
      by: callerId(input.caller ?? { userId: conversation.ownerId }),
    }),
    newEvent('turn.started', at, { trigger: 'message' }),
  );
  write.set = { status: 'running', leaseOwner, leaseExpiresAt: engine.leaseUntil(), actionDueAt: null, updatedAt: at };
  // The turn's claim: the pause, reply or failure the turn writes next waits for the flush, and nothing is
  // promised before it (docs/guarantees.md). A write that also withdraws a pause waits, as any answer does.
  if (!write.settle?.length) write.waitForFlush = false;
  // A conversation with no title is named by its first message (docs/http.md, "Titles and search").
  if (conversation.metadata?.title === undefined)
    write.set.metadata = { ...(conversation.metadata ?? {}), title: titleFromMessage(content) };
  messages.push(user);
  return {
    type: 'write',
    write,
    value: { type: 'started', leaseOwner, closed, messages, remembered: read.remembered },
  };
}
