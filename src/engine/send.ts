import { commitWrite } from './transact.js';
import { withdrawalWrites, releaseLiveCalls } from './withdraw.js';
import { callerId, refuseChannelWrite, type Caller, type ChannelWrite } from '../caller.js';
import { defaults, type Engine } from './engine.js';
import { HeedError } from '../errors.js';
import { newEvent } from '../protocol/events.js';
import { newId } from '../ids.js';
import { titleFromMessage } from '../protocol/conversation.js';
import type { Change } from '../store/store.js';
import type { ActionRecord, JsonObject, MessageRecord } from '../types.js';
import type { TurnResult } from './turn/run-turn.js';
import { runTurnUnderLease } from './start.js';
import { enqueueMessage } from './queue.js';
import type { BusyPolicy } from '../config.js';

export interface SendOptions {
  caller?: Caller;
  /** Kept on the user message's `metadata` (a channel's event id and sender, say). */
  metadata?: JsonObject;
  /**
   * Called with the conversation's messages before the new one is recorded: returning true records
   * nothing and throws `DuplicateMessage` (a channel's event delivered twice, docs/channels.md). Checked on
   * every compare-and-set retry, so two deliveries of one event at once record it once.
   */
  seen?: (messages: MessageRecord[]) => boolean;
  /**
   * Whether a person can answer questions here. One-shot programmatic calls pass false: the ask tool
   * and client tools are then withheld. Default true.
   */
  interactive?: boolean;
  /**
   * What a message sent while a turn runs does, for this send only; default the agent's `busyPolicy`,
   * else the server's. A surface that cannot show a queued message (a channel, the AI SDK endpoint) says `reject`.
   * Under `queue` the result is `{ status: 'queued', queued: { messageId, position } }`, and `onRecorded` is not called.
   */
  busyPolicy?: BusyPolicy;
  /** Called once the user message is recorded, before the model runs (a stream subscribes here). */
  onRecorded?: (info: { eventSeq: number }) => void;
}

const MAX_MESSAGE_CHARS = 100_000;

/** Thrown when `seen` says the message was already recorded; only a channel adapter asks for it, and catches it. */
export class DuplicateMessage extends Error {
  constructor() {
    super('This message was already recorded.');
  }
}

/** Refuses a message Heed would not record (blank, or over 100,000 characters); `field` names it in the error. */
export function checkMessageContent(content: unknown, field = 'content'): asserts content is string {
  if (typeof content !== 'string' || content.trim() === '') {
    throw new HeedError('invalid_request', `A message needs some text in "${field}".`, { details: { field } });
  }
  if (content.length > MAX_MESSAGE_CHARS) {
    throw new HeedError('invalid_request', `A message may hold at most ${MAX_MESSAGE_CHARS} characters.`, { details: { field } });
  }
}

/** Records a user message and runs the turn it starts. */
export async function sendMessage(engine: Engine, conversationId: string, content: unknown, options: SendOptions & ChannelWrite = {}): Promise<TurnResult> {
  checkMessageContent(content);
  const waitUntil = Date.now() + (engine.hitl.resolveWaitMs ?? defaults.resolveWaitMs);
  for (;;) {
    // The turn's reads at once: what the prompt needs, and the tools remembered for its approvals.
    const read = await engine.readVisible(conversationId, options.caller, { messages: true, remembered: true });
    const conversation = read.conversation;
    const messages = read.messages!;
    refuseChannelWrite(conversation, options.via, 'write there, or branch it into a new conversation.');
    engine.agent(conversation.agent);
    // Before the busy check: the same event delivered again while its own turn runs is a duplicate, not a clash.
    if (options.seen?.(messages)) throw new DuplicateMessage();
    if (conversation.status === 'running') {
      const policy = options.busyPolicy ?? engine.busyPolicy(engine.agents.get(conversation.agent));
      if (policy !== 'queue' || options.interactive === false) {
        throw new HeedError('conversation_busy', 'A turn is already running in this conversation; wait for it to finish.');
      }
      const queued = await enqueueMessage(engine, conversation, messages.length, content, options.caller);
      if (queued) return queued;
      if (Date.now() < waitUntil) continue;
      throw new HeedError('conversation_busy', 'The conversation kept changing while the message was being queued; send it again.');
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
    const change: Change = { conversationId, expectVersion: conversation.version, events: [] };
    let closed: ActionRecord[] = [];
    if (conversation.status === 'requires_action') {
      const pending = (await engine.store.listActions(conversationId)).filter((action) => action.status === 'pending');
      if (engine.pendingActionPolicy !== 'cancel') {
        throw new HeedError('action_pending', 'This conversation is waiting for an answer; answer or cancel it before sending a new message.', {
          details: { pendingActionIds: pending.map((action) => action.id) },
        });
      }
      const closing = withdrawalWrites(engine, messages, pending, { resolvedBy: null, channel: 'system', reason: 'new_message' });
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
      metadata: options.metadata ?? null,
      createdAt: at,
    };
    const leaseOwner = newId('lease');
    change.messages = [...(change.messages ?? []), user];
    change.events!.push(
      newEvent('message.created', at, { messageId: user.id, role: 'user', parts: user.parts, by: callerId(options.caller ?? { userId: conversation.ownerId }) }),
      newEvent('turn.started', at, { trigger: 'message' }),
    );
    change.set = { status: 'running', leaseOwner, leaseExpiresAt: engine.leaseUntil(), actionDueAt: null, updatedAt: at };
    // A conversation with no title is named by its first message (docs/http.md, "Titles and search").
    if (conversation.metadata?.title === undefined) change.set.metadata = { ...(conversation.metadata ?? {}), title: titleFromMessage(content) };
    const result = await commitWrite(engine, change);
    if (!result.ok) {
      if (Date.now() < waitUntil) continue;
      throw new HeedError('conversation_busy', 'The conversation kept changing while the message was being recorded; send it again.');
    }
    releaseLiveCalls(engine, closed);
    options.onRecorded?.({ eventSeq: result.events[0].seq });
    messages.push(user);
    return runTurnUnderLease(engine, result.conversation, leaseOwner, {
      caller: options.caller ?? null,
      interactive: options.interactive ?? true,
      askIntake: true,
      messages,
      // Only actions raised by this turn's own messages matter to it, and there are none yet.
      actions: [],
      remembered: read.remembered,
    });
  }
}
