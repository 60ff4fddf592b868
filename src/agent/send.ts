import { closeOpen, releaseLiveCalls } from '../actions/close-open.js';
import { callerLabel, type Caller } from '../caller.js';
import { defaults, type Engine } from '../engine.js';
import { HeedError } from '../errors.js';
import { newId } from '../ids.js';
import type { Change } from '../store/store.js';
import type { ActionRecord, MessageRecord } from '../types.js';
import type { TurnResult } from './run-turn.js';
import { runClaimedTurn } from './start.js';

export interface SendOptions {
  caller?: Caller;
  via?: 'library' | 'http';
  /**
   * Whether a person can answer questions here. One-shot programmatic calls pass false: the ask tool
   * and client tools are then withheld. Default true.
   */
  interactive?: boolean;
  /** Called once the user message is recorded, before the model runs (a stream subscribes here). */
  onRecorded?: (info: { eventSeq: number }) => void;
}

const MAX_MESSAGE_CHARS = 100_000;

/** Records a user message and runs the turn it starts. */
export async function sendMessage(engine: Engine, conversationId: string, content: unknown, options: SendOptions = {}): Promise<TurnResult> {
  if (typeof content !== 'string' || content.trim() === '') {
    throw new HeedError('invalid_request', 'A message needs some text in "content".', { details: { field: 'content' } });
  }
  if (content.length > MAX_MESSAGE_CHARS) {
    throw new HeedError('invalid_request', `A message may hold at most ${MAX_MESSAGE_CHARS} characters.`, { details: { field: 'content' } });
  }
  const waitUntil = Date.now() + (engine.hitl.resolveWaitMs ?? defaults.resolveWaitMs);
  for (;;) {
    const conversation = await engine.visibleConversation(conversationId, options.caller);
    if (conversation.channel && options.via === 'http') {
      throw new HeedError('channel_chat', `This conversation lives in ${conversation.channel}; write there, or branch it into a new conversation.`, {
        details: { channel: conversation.channel },
      });
    }
    engine.agent(conversation.agent);
    if (conversation.status === 'running') {
      throw new HeedError('conversation_busy', 'A turn is already running in this conversation; wait for it to finish.');
    }
    const messages = await engine.store.listMessages(conversationId);
    const at = engine.now();
    const change: Change = { conversationId, expectVersion: conversation.version, events: [] };
    let closed: ActionRecord[] = [];
    if (conversation.status === 'requires_action') {
      const pending = (await engine.store.listActions(conversationId)).filter((action) => action.status === 'pending');
      if (engine.pendingActionPolicy !== 'cancel') {
        throw new HeedError('action_pending', 'This conversation is waiting for an answer; answer or cancel it before sending a new message.', {
          details: { pendingActionIds: pending.map((action) => action.id) },
        });
      }
      const closing = closeOpen(engine, messages, pending, { resolvedBy: 'system', channel: 'system', reason: 'new_message' });
      closed = pending;
      change.settle = closing.settle;
      change.messages = closing.messages;
      change.events!.push(...closing.events);
      messages.push(...closing.messages);
    }
    if (!engine.budgetLeft(conversation)) throw engine.budgetError(conversation);

    const user: MessageRecord = {
      id: newId('m'),
      conversationId,
      position: messages.length,
      role: 'user',
      parts: [{ type: 'text', text: content }],
      metadata: null,
      createdAt: at,
    };
    const leaseOwner = newId('lease');
    change.messages = [...(change.messages ?? []), user];
    change.events!.push(
      { type: 'message.created', at, data: { messageId: user.id, role: 'user', parts: user.parts, by: callerLabel(options.caller ?? { userId: conversation.ownerId }) } },
      { type: 'turn.started', at, data: { trigger: 'message' } },
    );
    change.set = { status: 'running', leaseOwner, leaseExpiresAt: engine.leaseUntil(), actionDueAt: null, updatedAt: at };
    const result = await engine.commit(change);
    if (!result.ok) {
      if (Date.now() < waitUntil) continue;
      throw new HeedError('conversation_busy', 'The conversation kept changing while the message was being recorded; send it again.');
    }
    releaseLiveCalls(engine, closed);
    options.onRecorded?.({ eventSeq: result.events[0].seq });
    messages.push(user);
    return runClaimedTurn(engine, result.conversation, leaseOwner, {
      caller: options.caller ?? null,
      interactive: options.interactive ?? true,
      askIntake: true,
      messages,
      // Only actions raised by this turn's own messages matter to it, and there are none yet.
      actions: [],
    });
  }
}
