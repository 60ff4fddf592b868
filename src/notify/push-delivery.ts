import type { PushConfig } from '../config.js';
import { DeliveryDropped } from '../channels/channel.js';
import type { Store } from '../store/store.js';
import type { ActionRecord, ConversationRecord } from '../types.js';
import type { ActionView } from '../views.js';
import type { ActionLinks } from './links.js';
import { requestPush, settledPush } from './push-payload.js';
import { listSubscriptions, removeSubscription, sendPush, topicOf, type VapidKeys } from './push.js';

/** What sending one push delivery needs from the deliverer. */
export interface PushDeliveryInput {
  store: Store;
  config: PushConfig;
  keys: () => Promise<VapidKeys>;
  event: string;
  person: string;
  action: ActionRecord;
  view: ActionView;
  conversation: ConversationRecord;
  links: (action: ActionRecord, conversation: ConversationRecord, person: string) => Promise<ActionLinks | undefined>;
  /** The console's base URL (`notify.publicUrl`, else the server's own address). */
  baseUrl: string | undefined;
  /** The engine's clock, epoch milliseconds. */
  now: number;
  timeoutMs: number;
  signal: AbortSignal;
  /** Says that a subscription was removed because its push service said it is gone. */
  onGone: (endpoint: string) => void;
}

/**
 * Pushes one notification to each of a person's subscriptions: the request (with an answer link made for
 * them), a reminder of it, or how it was settled (replacing the notification: same tag). A subscription
 * whose push service answers 404 or 410 is removed; any other failure fails the delivery, which is tried
 * again for every subscription (the same tag replaces rather than repeats a notification already shown).
 */
export async function deliverPush(input: PushDeliveryInput): Promise<{ sent: number }> {
  const { action, view, conversation } = input;
  const subscriptions = await listSubscriptions(input.store, input.person);
  if (subscriptions.length === 0) throw new DeliveryDropped('the person has no push subscriptions');
  const consoleUrl = `${(input.baseUrl ?? '').replace(/\/+$/, '')}/c/${encodeURIComponent(conversation.id)}`;
  const about = { id: conversation.id, agent: conversation.agent, ownerId: conversation.ownerId };
  const asks = input.event === 'action.required' || input.event === 'action.reminder';
  const payload = asks
    ? requestPush({
        action: view,
        conversation: { ...about, channel: conversation.channel },
        links: await input.links(action, conversation, input.person),
        consoleUrl,
        ...(input.event === 'action.reminder' ? { reminder: true } : {}),
      })
    : settledPush({ action: view, conversation: about, consoleUrl });
  const keys = await input.keys();
  const expiresIn = action.expiresAt ? Math.ceil((Date.parse(action.expiresAt) - input.now) / 1000) : 86_400;
  const outcomes = await Promise.all(
    subscriptions.map(async (subscription) => {
      const outcome = await sendPush({
        subscription,
        payload: JSON.stringify(payload),
        keys,
        subject: input.config.subject,
        topic: topicOf(action.id),
        // A request is worth delivering until it lapses; an outcome, for a day.
        ttlSeconds: asks ? Math.max(60, Math.min(expiresIn, 28 * 86_400)) : 86_400,
        timeoutMs: input.timeoutMs,
        signal: input.signal,
      });
      if (outcome === 'gone') {
        await removeSubscription(input.store, input.person, subscription.endpoint);
        input.onGone(subscription.endpoint);
      }
      return outcome;
    }),
  );
  const failed = outcomes.flatMap((outcome) => (typeof outcome === 'object' ? [outcome.failed] : []));
  if (failed.length > 0) throw new Error(failed[0]);
  return { sent: outcomes.filter((outcome) => outcome === 'sent').length };
}
