import { newId } from '../ids.js';
import { a2aPushConfigs } from '../protocol/request-conversation.js';
import type { EventType } from '../protocol/events.js';
import type { Change, DeliveryRecord, NewDelivery } from '../store/store.js';
import type { ConversationRecord, JsonObject } from '../types.js';

/*
 * A2A push notifications (docs/a2a.md) go through the outbox like a request's callback: a change that moves a
 * task (a turn starts, pauses or ends) writes one delivery per push config of the conversation, in the same
 * commit. What is posted is the task as the store holds it when the delivery is sent, built by the A2A
 * endpoint (the HTTP layer registers the sender on the notifier); a config whose task did not change since
 * its last delivery is skipped, so a config of an ended task stays quiet while later tasks run.
 */

const MOVES = new Set<EventType>(['turn.started', 'turn.paused', 'turn.completed', 'turn.cancelled', 'turn.failed']);

/** Sends one A2A push delivery: resolves with what to keep (the state sent), throws to retry, `DeliveryDropped` to skip. */
export type A2aPushSender = (
  delivery: DeliveryRecord,
  options: { timeoutMs: number; signal: AbortSignal },
) => Promise<JsonObject>;

/** True when the change may move a task of the conversation. */
export function movesTask(change: Change): boolean {
  return (change.events ?? []).some((event) => MOVES.has(event.type));
}

/** One delivery per push config of the conversation, for a change that moves a task. */
export function a2aPushDeliveries(
  change: Change,
  conversation: Pick<ConversationRecord, 'metadata'>,
  at: string,
): NewDelivery[] {
  if (!movesTask(change)) return [];
  return a2aPushConfigs(conversation).map((config) => ({
    id: newId('msg'),
    event: 'task.status',
    actionId: config.id,
    target: { type: 'a2a', url: config.url, configId: config.id },
    createdAt: at,
  }));
}
