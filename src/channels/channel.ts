import { createHmac } from 'node:crypto';
import { errorFields, type Logger } from '../logger.js';
import type { ChannelPlatform } from '../protocol/action-base.js';
import type { Caller } from '../caller.js';
import type { AgentConfig } from '../config.js';
import type { SendOptions } from '../engine/send.js';
import type { SettleOptions } from '../engine/settle.js';
import type { TurnResult } from '../engine/turn/run-turn.js';
import { newId } from '../ids.js';
import type { Change, ChannelDeliveryEvent, DeliveryRecord, NewDelivery, Store } from '../store/store.js';
import type { ActionRecord, ActionStatus, ConversationRecord, JsonObject, MessageRecord } from '../types.js';
import { lapsed } from '../kinds/index.js';
import { isStoreUnavailable } from '../store/unavailable.js';

export type { ChannelPlatform } from '../protocol/action-base.js';

/**
 * A chat workspace where conversations live (docs/channels.md): Slack and every other platform, on Chat
 * SDK (`chat-sdk/`). An adapter owns the conversations whose `channel`
 * starts with `<name>:`; Heed writes nothing to them but what the adapter hands it.
 */
export interface ChannelAdapter {
  /**
   * The adapter's name: the first part of its conversations' `channel` (`slack:…`), its endpoint
   * (`POST /api/channels/<name>/events`) and the `channel` recorded on answers given there.
   */
  readonly name: ChannelPlatform;
  /**
   * Receives what the workspace sends to its endpoint: people's messages (which start or continue a
   * conversation) and their answers to posted requests. Proves the sender first (a bad proof is 401 and
   * changes nothing) and answers within the workspace's deadline, running turns in the background.
   */
  receive(request: { headers: Headers; body: string }): Promise<Response>;
  /**
   * Sends one delivery of the outbox to the workspace: posts a reply (`message.created`) or a request
   * (`action.required`), or updates a posted request once it is settled. Throws to be retried later
   * (`DeliveryDropped` to give up at once); resolves with what to keep (the posted message's id).
   */
  deliver(delivery: DeliveryRecord): Promise<JsonObject | undefined>;
  /** Who a person of the workspace is to Heed: the caller their messages and answers are recorded as. */
  callerFor(userId: string): Caller;
  /** Loads what the adapter needs before its first request (a missing package fails the start here). */
  start?(): Promise<void>;
  /**
   * Stops taking what arrives on a socket the adapter holds itself (Discord's Gateway), and waits for what
   * it took to be recorded: called before the Heed stops its engine, so nothing arrives it cannot record.
   */
  stopListening?(): Promise<void>;
  /** Stops what `start` began. */
  close?(): Promise<void>;
}

/** What Heed gives a channel's adapter (built by createHeed): its reads, and writes counted as the channel's own. */
export interface ChannelHost {
  /** Reads with no access check (the workspace's signature is the proof), and the secret thread ids are keyed by. */
  readonly store: Pick<
    Store,
    | 'getConversation'
    | 'getAction'
    | 'findAction'
    | 'listActions'
    | 'listMessages'
    | 'listDeliveries'
    | 'secret'
    | 'listValues'
    | 'putValues'
    | 'deleteValues'
    | 'swapValue'
  >;
  /** The agents by name: which of a thread's agent's calls run other agents, whose requests it shows too. */
  readonly agents: ReadonlyMap<string, AgentConfig>;
  /** Records a person's message in a conversation of the channel and runs the turn it starts. */
  send(conversationId: string, content: string, options: SendOptions): Promise<TurnResult>;
  /** Settles an action of a conversation of the channel, by the normal order, and runs the turn it continues. */
  settle(conversationId: string, actionId: string, resolution: unknown, options: SettleOptions): Promise<TurnResult>;
  /** Makes an ownerless conversation of the channel under this id, unless one exists already. */
  createConversation(input: Pick<ConversationRecord, 'id' | 'agent' | 'channel' | 'metadata'>): Promise<void>;
  /** Runs a detached promise (a turn after the workspace has its answer), so `close()` waits for it. */
  track<T>(promise: Promise<T>): Promise<T>;
  /** The Heed's `logger`, for what fails where no one waits for the answer. */
  readonly logger: Logger;
}

/** Thrown by `deliver` when trying again cannot help (the thing to post is gone): the delivery is dropped. */
export class DeliveryDropped extends Error {}

const settledEvent: Record<Exclude<ActionStatus, 'pending'>, ChannelDeliveryEvent> = {
  resolved: 'action.resolved',
  expired: 'action.expired',
  cancelled: 'action.cancelled',
};

/**
 * What one change to a channel's conversation must post there, in the order it happened: each
 * assistant message with text (a reply), each request it raises, each request it settles (to update
 * the posted one), each reminder the sweep sends. Written in the same commit as the change, like every other notification, so a
 * restart loses none and each is sent by one process.
 */
export function channelDeliveries(
  change: Change,
  conversation: Pick<ConversationRecord, 'channel'>,
  at: string,
): NewDelivery[] {
  if (!conversation.channel) return [];
  const target = { type: 'channel' as const, channel: conversation.channel };
  const out: NewDelivery[] = [];
  for (const message of change.messages ?? []) {
    if (message.role !== 'assistant') continue;
    // A failed turn's record (no text, `failed` set) is posted too: silence is not an answer.
    const failed = message.metadata?.failed !== undefined;
    if (!failed && !message.parts.some((part) => part.type === 'text' && part.text.trim() !== '')) continue;
    out.push({ id: newId('msg'), event: 'message.created', actionId: message.id, target, createdAt: at });
  }
  const settled = new Set((change.settle ?? []).map((x) => x.id));
  for (const action of change.actions ?? []) {
    if (action.status === 'pending' && !settled.has(action.id))
      out.push({ id: newId('msg'), event: 'action.required', actionId: action.id, target, createdAt: at });
  }
  for (const x of change.settle ?? [])
    out.push({ id: newId('msg'), event: settledEvent[x.status], actionId: x.id, target, createdAt: at });
  // A reminder the sweep sends (hitl.remind): a line in the request's thread.
  for (const x of change.revise ?? [])
    if (x.reason === 'reminder')
      out.push({ id: newId('msg'), event: 'action.reminder', actionId: x.id, target, createdAt: at });
  return out;
}

/**
 * What a reply posts in its thread: the agent's text, or, for the record of a turn that failed (the
 * model's provider erred, say), one plain sentence saying so and what to do.
 */
export function replyText(message: Pick<MessageRecord, 'parts' | 'metadata'>): string {
  const failed = message.metadata?.failed;
  if (failed)
    return `The agent stopped before it could answer (error: ${failed.code}). Send your message again to retry.`;
  return message.parts
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('')
    .trim();
}

/**
 * The sentence a request that lapsed adds to its thread (its card turns to how it ended, but an edit tells
 * nobody), or undefined for any other ending.
 */
export function lapseText(action: ActionRecord): string | undefined {
  if (!lapsed({ status: action.status, channel: action.channel ?? undefined })) return undefined;
  return 'Nobody answered this request in time, so it lapsed.';
}

/** The adapter's name a conversation's `channel` starts with (`slack` for `slack:T1:C1:123.4`). */
export function channelName(channel: string): string {
  return channel.slice(0, Math.max(0, channel.indexOf(':')));
}

/** What a thread is told when the store cut its turn off: it is not lost, and nobody needs to write again. */
export const STORE_OUTAGE_TEXT =
  "The agent was interrupted: Heed's database could not be reached. It will carry on here once the database is back.";

/**
 * Runs a write whose work goes on after it is recorded (a channel's message or answer, then the turn it
 * starts): resolves once recorded (or finished), rejects with what refused it before that. The rest runs in
 * the background, tracked so `close()` waits for it; a failure after the record is the log's to report,
 * since the platform already has its answer.
 */
export function recordedThen(
  host: Pick<ChannelHost, 'track' | 'logger'>,
  platformTitle: string,
  run: (onRecorded: () => void) => Promise<unknown>,
  /** Posts a line in the thread straight away (not through the outbox: the store may be what failed). */
  say?: (text: string) => Promise<unknown>,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false;
    const work = run(() => {
      done = true;
      resolve();
    });
    void host.track(
      work.then(
        () => resolve(),
        (error: unknown) => {
          if (!done) return reject(error);
          if (isStoreUnavailable(error)) {
            // The turn is carried on once the store is back (its lease runs out and the sweep takes it over).
            host.logger.warn(
              errorFields(error),
              `Heed: a turn started from ${platformTitle} was cut off by a store outage; it carries on once the store is back`,
            );
            return void say?.(STORE_OUTAGE_TEXT).catch((failed: unknown) =>
              host.logger.warn(
                errorFields(failed),
                `Heed: could not tell the ${platformTitle} thread about the outage`,
              ),
            );
          }
          host.logger.error(
            errorFields(error),
            `Heed: a turn started from ${platformTitle} failed after its message was recorded`,
          );
        },
      ),
    );
  });
}

/**
 * The conversation of a thread, made on its first message. Its id is the platform's name and an HMAC of the
 * thread keyed by a secret stored per platform, so nobody can work a conversation's id out from a thread.
 */
export class ThreadConversations {
  private key?: Promise<string>;

  constructor(
    private readonly host: Pick<ChannelHost, 'store' | 'createConversation'>,
    private readonly name: ChannelPlatform,
  ) {}

  /** The id a thread's conversation has (or will have). */
  async idOf(thread: string): Promise<string> {
    this.key ??= this.host.store.secret(`${this.name}-conversations`);
    const hash = createHmac('sha256', await this.key)
      .update(thread)
      .digest('base64url')
      .slice(0, 32);
    return `${this.name}_${hash}`;
  }

  /** The thread's conversation id, made with `agent` and `metadata` when the thread has none yet. */
  async open(thread: string, agent: string, metadata: JsonObject): Promise<string> {
    const id = await this.idOf(thread);
    if (await this.host.store.getConversation(id)) return id;
    await this.host.createConversation({ id, agent, channel: thread, metadata });
    return id;
  }
}
