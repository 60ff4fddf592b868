// The send verb's running half: reads the store, commits through the runner, starts what comes next.
// What it writes is decided in src/engine/decide/send.ts (pure).
import { releaseLiveCalls } from './withdraw.js';
import type { Caller, ChannelWrite } from '../caller.js';
import type { Engine } from './engine.js';
import { HeedError } from '../errors.js';
import type { JsonObject, MessageRecord } from '../types.js';
import type { TurnResult } from './turn/run-turn.js';
import { runTurnUnderLease } from './start.js';
import { queuedResult } from './queue.js';
import type { BusyPolicy } from '../config.js';
import { transact } from './transact.js';
import { decideSend, sendParts } from './decide/send.js';
import { messageContentProblem } from '../protocol/conversation.js';

export { DuplicateMessage } from './decide/send.js';

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

/** Refuses a message Heed would not record (blank, or over 100,000 characters); `field` names it in the error. */
export function checkMessageContent(content: unknown, field = 'content'): asserts content is string {
  const problem = messageContentProblem(content, field);
  if (problem) throw new HeedError('invalid_request', problem, { details: { field } });
}

/** Records a user message (the send decider, src/engine/decide/send.ts, under the runner) and runs the turn it starts. */
export async function sendMessage(
  engine: Engine,
  conversationId: string,
  content: unknown,
  options: SendOptions & ChannelWrite = {},
): Promise<TurnResult> {
  checkMessageContent(content);
  const done = await transact(engine, conversationId, sendParts, (read) => decideSend(engine, content, options, read), {
    busy: 'The conversation kept changing while the message was being recorded; send it again.',
  });
  const sent = done.value;
  const events = done.committed ? done.events : [];
  if (sent.type === 'queued') return queuedResult(conversationId, sent, events);
  releaseLiveCalls(engine, sent.closed);
  options.onRecorded?.({ eventSeq: events[0]?.seq ?? 0 });
  return runTurnUnderLease(engine, done.conversation, sent.leaseOwner, {
    trigger: 'message',
    caller: options.caller ?? null,
    interactive: options.interactive ?? true,
    askIntake: true,
    messages: sent.messages,
    // Only actions raised by this turn's own messages matter to it, and there are none yet.
    actions: [],
    remembered: sent.remembered,
  });
}
