import { transact } from '../engine/transact.js';
import { pauseSpanOf } from '../engine/pause-trace.js';
import { HeedError } from '../errors.js';
import type { Engine } from '../engine/engine.js';
import { newEvent, type EventData } from '../protocol/events.js';
import { channelName, DeliveryDropped } from '../channels/channel.js';
import type { DeliveryEvent, DeliveryRecord } from '../store/store.js';
import { errorFields } from '../logger.js';
import { actionView } from '../views.js';
import { ancestorsOf } from '../engine/children.js';
import { composeActionMail, sendMail } from './email.js';
import { defaults } from '../config-schema.js';
import type { Notifier } from './notifier.js';
import { targetsFor } from './outbox.js';
import { postWebhook } from './webhook.js';
import { callbackAllowed } from './callbacks.js';
import { deliverPush } from './push-delivery.js';

export interface Deliverer {
  wake(): void;
  stop(): Promise<void>;
}

const BATCH = 20;

/** The wait before attempt `attempts + 1`: doubling from `firstDelayMs`, at most `maxDelayMs`. */
export function backoff(attempts: number, first: number, max: number): number {
  return Math.min(max, first * 2 ** Math.max(0, Math.min(attempts - 1, 40)));
}

class Drop extends Error {}

/**
 * Sends what the outbox holds: claims due deliveries (several processes on one store each claim
 * different ones), sends each, and records how it went. A failed attempt is tried again after a
 * doubling wait; past `giveUpAfterMs` it fails for good with a `delivery.failed` event. Runs every
 * `pollIntervalMs`, and at once after a commit that wrote deliveries.
 */
export function startDeliverer(engine: Engine, notifier: Notifier): Deliverer {
  const config = notifier.config;
  const retry = { ...defaults, ...config.retry };
  const attemptTimeoutMs = config.attemptTimeoutMs ?? defaults.attemptTimeoutMs;
  let stopped = false;
  // Aborts webhook requests under way when Heed closes: their claims run out and they are sent again.
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  let again = false;

  /** One attempt, in a `heed.delivery` span of the trace of the pause that raised its action, when one was kept. */
  async function deliver(delivery: DeliveryRecord): Promise<void> {
    const tracing = engine.tracing;
    if (!tracing.enabled) return attempt(delivery);
    const paused = await pauseSpanOf(engine.store, delivery.conversationId, delivery.actionId).catch(() => undefined);
    return tracing.span(
      'heed.delivery',
      {
        'heed.delivery.id': delivery.id,
        'heed.delivery.event': delivery.event,
        'heed.delivery.target': delivery.target.type,
        'heed.delivery.attempt': delivery.attempts,
        'heed.conversation_id': delivery.conversationId,
        'heed.action_id': delivery.actionId,
      },
      () => attempt(delivery),
      paused ? { parent: paused, links: [paused] } : {},
    );
  }

  async function attempt(delivery: DeliveryRecord): Promise<void> {
    const store = engine.store;
    const at = () => engine.now();
    try {
      const target = delivery.target;
      if (target.type === 'channel') {
        // A chat workspace's post or update (docs/channels.md): the adapter sends it and says what to keep.
        const adapter = notifier.channels.get(channelName(target.channel));
        if (!adapter) throw new Drop('the channel is no longer configured');
        const receipt = await adapter.deliver(delivery);
        await store.finishDelivery(delivery.id, { status: 'delivered', at: at(), ...(receipt ? { receipt } : {}) });
        return;
      }
      if (target.type === 'a2a') {
        // An A2A push (./a2a-push.ts): the URL is checked again, in case the operator changed the list since.
        if (!callbackAllowed(target.url, config.callbackHosts ?? []))
          throw new Drop("the push URL's host is no longer allowed");
        if (!notifier.a2aPush) throw new Error('no A2A endpoint is served yet to build the task');
        const receipt = await notifier.a2aPush(delivery, { timeoutMs: attemptTimeoutMs, signal: stopping.signal });
        await store.finishDelivery(delivery.id, { status: 'delivered', at: at(), receipt });
        return;
      }
      const conversation = await store.getConversation(delivery.conversationId);
      const action = conversation && (await store.getAction(delivery.conversationId, delivery.actionId));
      if (!conversation || !action) throw new Drop('the action is gone');
      const targets = targetsFor(config, engine.agents.get(conversation.agent));
      const reminder = delivery.event === 'action.reminder';
      // A reminder of a request answered, lapsed, cancelled or made open-ended meanwhile is not sent.
      if (reminder && action.status !== 'pending') throw new Drop(`the action is no longer pending (${action.status})`);
      if (reminder && action.expiresAt === null) throw new Drop('the action no longer lapses');
      // `action.required` shows the action as it was raised, whatever became of it since: the request
      // itself never changes, so every attempt sends the same action (only the links are left out once it is settled).
      const asRaised =
        delivery.event === 'action.required'
          ? {
              ...action,
              status: 'pending' as const,
              resolution: null,
              resolvedBy: null,
              channel: null,
              resolvedAt: null,
              defaulted: null,
            }
          : action;
      const view = actionView(engine, asRaised, conversation.agent);
      const about = { id: conversation.id, agent: conversation.agent, ownerId: conversation.ownerId };
      const event = delivery.event as DeliveryEvent;
      if (target.type === 'callback') {
        // A request's callback (./callbacks.ts): checked again, in case the operator changed the list since.
        const secret = config.callbackSecret;
        if (!secret) throw new Drop('notify.callbackSecret is no longer set');
        if (!callbackAllowed(target.url, config.callbackHosts ?? []))
          throw new Drop('the callback host is no longer allowed');
        await postWebhook(
          { url: target.url, secret },
          delivery.id,
          { type: event, timestamp: delivery.createdAt, data: { action: view, conversation: about } },
          attemptTimeoutMs,
          stopping.signal,
        );
      } else if (target.type === 'webhook') {
        const hook = targets.webhooks.find((entry) => entry.url === target.url);
        if (!hook) throw new Drop('the webhook is no longer configured');
        // Links answer as the conversation's owner: whoever the webhook's receiver hands them to acts for the owner.
        const links =
          delivery.event === 'action.required' || reminder
            ? await notifier.links(action, conversation, conversation.ownerId)
            : undefined;
        const data = { action: view, conversation: about, ...(links ? { links } : {}) };
        await postWebhook(
          hook,
          delivery.id,
          { type: event, timestamp: delivery.createdAt, data },
          attemptTimeoutMs,
          stopping.signal,
        );
      } else if (target.type === 'push') {
        if (!targets.push) throw new Drop('push is no longer configured');
        if (delivery.event === 'action.required' && action.status !== 'pending')
          throw new Drop(`the action is no longer pending (${action.status})`);
        const { sent } = await deliverPush({
          store,
          config: targets.push,
          keys: () => notifier.vapidKeys(),
          event: delivery.event,
          person: target.to,
          action,
          view,
          conversation,
          links: (forAction, inConversation, person) => notifier.links(forAction, inConversation, person),
          baseUrl: config.publicUrl ?? notifier.fallbackUrl,
          now: engine.clock().getTime(),
          timeoutMs: attemptTimeoutMs,
          signal: stopping.signal,
          onGone: () =>
            engine.logger.info(
              { deliveryId: delivery.id, person: target.to },
              'Heed: a push subscription was removed (its push service says it is gone)',
            ),
        });
        await store.finishDelivery(delivery.id, { status: 'delivered', at: at(), receipt: { sent } });
        return;
      } else {
        if (!targets.email) throw new Drop('email is no longer configured');
        // No stale reminders: a request answered, lapsed or cancelled meanwhile is not mailed.
        if (action.status !== 'pending') throw new Drop(`the action is no longer pending (${action.status})`);
        const links = await notifier.links(action, conversation, target.to);
        // A child's request is mailed as its lead's (the conversation a person started), the children it waits in as `via`.
        const above = await ancestorsOf(store, conversation);
        const lead = above.at(-1) ?? conversation;
        const via = [...above.slice(0, -1).reverse(), ...(above.length ? [conversation] : [])].map((child) => ({
          conversationId: child.id,
          agent: child.agent,
        }));
        const mail = composeActionMail({
          deliveryId: delivery.id,
          action: via.length ? { ...view, via } : view,
          conversation: { id: lead.id, agent: lead.agent, ownerId: lead.ownerId, channel: lead.channel },
          links,
          from: targets.email.from,
          ...(reminder ? { reminder } : {}),
        });
        await sendMail(targets.email, target.to, mail, attemptTimeoutMs);
      }
      await store.finishDelivery(delivery.id, { status: 'delivered', at: at() });
    } catch (error) {
      // Closing: leave the claim to run out rather than count this as a failed attempt.
      if (stopping.signal.aborted) return;
      const reason = (error as Error).message ?? String(error);
      const fields = {
        deliveryId: delivery.id,
        event: delivery.event,
        target: targetOf(delivery),
        attempts: delivery.attempts,
        ...errorFields(error),
      };
      if (error instanceof Drop || error instanceof DeliveryDropped) {
        engine.logger.info(fields, `Heed: a delivery was dropped (${reason})`);
        return store.finishDelivery(delivery.id, { status: 'dropped', at: at(), error: reason });
      }
      const now = engine.clock().getTime();
      const wait = backoff(delivery.attempts, retry.firstDelayMs, retry.maxDelayMs);
      if (now + wait - Date.parse(delivery.createdAt) <= retry.giveUpAfterMs) {
        engine.logger.warn({ ...fields, retryInMs: wait }, 'Heed: a delivery attempt failed; it is tried again');
        return store.finishDelivery(delivery.id, {
          status: 'pending',
          dueAt: new Date(now + wait).toISOString(),
          error: reason,
        });
      }
      engine.logger.error(fields, 'Heed: a delivery failed for good (notify.retry.giveUpAfterMs passed)');
      await store.finishDelivery(delivery.id, { status: 'failed', at: at(), error: reason });
      await announceFailure(engine, delivery, reason);
    }
  }

  async function round(): Promise<void> {
    do {
      again = false;
      const now = engine.clock().getTime();
      const claimed = await engine.store.claimDeliveries(
        new Date(now).toISOString(),
        new Date(now + 2 * attemptTimeoutMs).toISOString(),
        BATCH,
      );
      // One target's deliveries go one after another, in the order they were written; targets in parallel.
      const byTarget = new Map<string, DeliveryRecord[]>();
      claimed.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      for (const delivery of claimed) {
        const key = JSON.stringify(delivery.target);
        byTarget.set(key, [...(byTarget.get(key) ?? []), delivery]);
      }
      await Promise.all(
        [...byTarget.values()].map(async (queue) => {
          for (const delivery of queue) {
            // deliver() records every failure of the send itself; what lands here is the store failing to record it.
            await deliver(delivery).catch((error: unknown) =>
              engine.logger.error(
                { deliveryId: delivery.id, target: targetOf(delivery), ...errorFields(error) },
                'Heed: a delivery could not be recorded; its claim runs out and it is sent again',
              ),
            );
          }
        }),
      );
      if (claimed.length === BATCH) again = true;
    } while (again && !stopped);
  }

  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = round()
      .catch((error: unknown) =>
        engine.logger.error(
          errorFields(error),
          'Heed: the deliverer could not claim deliveries; it tries again at the next poll',
        ),
      )
      .finally(() => (running = undefined));
  };
  const timer = setInterval(run, config.pollIntervalMs ?? defaults.pollIntervalMs);
  timer.unref();
  setImmediate(run);

  return {
    wake: () => setImmediate(run),
    async stop() {
      stopped = true;
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}

/** The delivery's target for a log line: the webhook's URL, the mail's address or the channel (the operator's own log, unlike the event log). */
function targetOf(delivery: DeliveryRecord): string {
  const target = delivery.target;
  return target.type === 'webhook' || target.type === 'callback' || target.type === 'a2a'
    ? withoutQuery(target.url)
    : target.type === 'channel'
      ? `channel ${target.channel}`
      : target.type === 'push'
        ? `push to ${target.to}`
        : `email ${target.to}`;
}

/** A URL's query may carry a token: the log gets the rest. */
function withoutQuery(url: string): string {
  const parsed = URL.parse(url);
  return parsed ? `${parsed.origin}${parsed.pathname}` : 'a webhook';
}

/** Appends `delivery.failed` to the conversation's log (retrying while other writes move its version). */
async function announceFailure(engine: Engine, delivery: DeliveryRecord, reason: string): Promise<void> {
  const data: EventData<'delivery.failed'> = {
    deliveryId: delivery.id,
    actionId: delivery.actionId,
    event: delivery.event,
    // The kind of target only: the log is the conversation's, and a webhook URL or an address is the operator's.
    target: delivery.target.type,
    attempts: delivery.attempts,
    error: reason,
  };
  const at = engine.now();
  try {
    await transact(
      engine,
      delivery.conversationId,
      {},
      () => ({ type: 'write', write: { events: [newEvent('delivery.failed', at, data)] }, value: null }),
      {
        busy: 'The conversation kept changing while a failed delivery was being logged.',
      },
    );
  } catch (thrown) {
    // A conversation deleted meanwhile, or one that kept changing: the delivery row itself still says it failed.
    if (!HeedError.isInstance(thrown) || (thrown.code !== 'not_found' && thrown.code !== 'conversation_busy'))
      throw thrown;
  }
}
