import { commitWrite } from './transact.js';
import { withdrawForNewMessage, releaseLiveCalls } from './withdraw.js';
import { callerId, type Caller, type ChannelWrite } from '../caller.js';
import { refuseChannelWrite } from './access.js';
import { defaults, type Engine } from './engine.js';
import { HeedError, must } from '../errors.js';
import { newEvent } from '../protocol/events.js';
import { newId } from '../ids.js';
import type { Change, NewEvent } from '../store/store.js';
import type { ActionRecord, MessageRecord } from '../types.js';
import type { TurnResult } from './turn/run-turn.js';
import { runTurnUnderLease } from './start.js';
import { liveMessages } from './replaced.js';

export interface RegenerateOptions {
  caller?: Caller;
  /**
   * The text of the message whose reply is made again, as the client has it: refused unless it is the
   * conversation's last message (a client out of step would otherwise replace a reply it never saw).
   */
  content?: string;
  /** Whether a person can answer questions here (default true), as for a message. */
  interactive?: boolean;
  /** Called once the repeated message is recorded, before the model runs (a stream subscribes here). */
  onRecorded?: (info: { eventSeq: number }) => void;
}

/** The text of a user message as sent. */
function textOf(message: MessageRecord): string {
  return message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

/**
 * Runs the reply to the conversation's last message again (`regenerate`): the message is recorded once
 * more, marked `regenerates` with the messages it replaces (that message and its reply, which stay in
 * the record and the event log but are no longer sent to the model), and a turn runs from it as from a
 * new message, with the `regenerate` trigger. The intake is not asked again; its answers stand.
 */
export async function regenerateReply(
  engine: Engine,
  conversationId: string,
  options: RegenerateOptions & ChannelWrite = {},
): Promise<TurnResult> {
  const waitUntil = Date.now() + (engine.hitl.resolveWaitMs ?? defaults.resolveWaitMs);
  for (;;) {
    const read = await engine.readVisible(conversationId, options.caller, { messages: true, remembered: true });
    const conversation = read.conversation;
    const messages = must(read.messages, 'The conversation was read with its messages.');
    refuseChannelWrite(conversation, options.via, 'write there, or branch it into a new conversation.');
    engine.agentOf(conversation);
    if (conversation.status === 'running') {
      throw new HeedError(
        'conversation_busy',
        'A turn is already running in this conversation; wait for it to finish.',
      );
    }
    const live = liveMessages(messages);
    const asked = [...live].reverse().find((message) => message.role === 'user');
    if (!asked) {
      throw new HeedError(
        'invalid_request',
        'There is no message in this conversation to make the reply to again; send one first.',
        { details: { conversationId } },
      );
    }
    if (options.content !== undefined && options.content !== textOf(asked)) {
      throw new HeedError(
        'invalid_request',
        "Only the reply to the conversation's last message can be made again, and this chat's last message is another; reload it, or branch the conversation to go back further.",
        { details: { field: 'body.messages', messageId: asked.id } },
      );
    }
    const maxMessages = engine.limits.maxMessagesPerConversation;
    if (messages.length >= maxMessages) {
      throw new HeedError(
        'message_limit_reached',
        `This conversation holds ${messages.length} messages, the most one may (limits.maxMessagesPerConversation); start a new one, or branch this one from an earlier message.`,
        { details: { messages: messages.length, maxMessages } },
      );
    }
    const at = engine.now();
    const events: NewEvent[] = [];
    const change: Change = { conversationId, expectVersion: conversation.version, events };
    let closed: ActionRecord[] = [];
    if (conversation.status === 'requires_action') {
      const pending = (await engine.store.listActions(conversationId)).filter((action) => action.status === 'pending');
      const closing = withdrawForNewMessage(
        engine,
        messages,
        pending,
        'This conversation is waiting for an answer; answer or cancel it before making the reply again.',
      );
      closed = pending;
      change.settle = closing.settle;
      change.messages = closing.messages;
      events.push(...closing.events);
      messages.push(...closing.messages);
    }
    if (!engine.budgetLeft(conversation)) throw engine.budgetError(conversation);

    const again: MessageRecord = {
      id: newId('m'),
      conversationId,
      position: messages.length,
      role: 'user',
      parts: asked.parts,
      metadata: {
        ...(asked.metadata ?? {}),
        regenerates: { messageId: asked.id, count: messages.length - asked.position },
      },
      createdAt: at,
    };
    const leaseOwner = newId('lease');
    change.messages = [...(change.messages ?? []), again];
    events.push(
      newEvent('message.created', at, {
        messageId: again.id,
        role: 'user',
        parts: again.parts,
        by: callerId(options.caller ?? { userId: conversation.ownerId }),
      }),
      newEvent('turn.started', at, { trigger: 'regenerate' }),
    );
    change.set = {
      status: 'running',
      leaseOwner,
      leaseExpiresAt: engine.leaseUntil(),
      actionDueAt: null,
      updatedAt: at,
    };
    const result = await commitWrite(engine, change);
    if (!result.ok) {
      if (Date.now() < waitUntil) continue;
      throw new HeedError(
        'conversation_busy',
        'The conversation kept changing while the reply was being made again; try again.',
      );
    }
    releaseLiveCalls(engine, closed);
    options.onRecorded?.({ eventSeq: result.events[0].seq });
    messages.push(again);
    return runTurnUnderLease(engine, result.conversation, leaseOwner, {
      trigger: 'regenerate',
      caller: options.caller ?? null,
      interactive: options.interactive ?? true,
      askIntake: false,
      messages,
      actions: [],
      remembered: read.remembered,
    });
  }
}
