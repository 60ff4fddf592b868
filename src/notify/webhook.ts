import { Webhook } from 'standardwebhooks';
import type { WebhookConfig } from '../config.js';
import type { DeliveryEvent } from '../store/store.js';
import type { ActionView } from '../views.js';
import type { ActionLinks } from './links.js';
import { traceHeaders } from '../telemetry/context.js';

/** A webhook's JSON body (docs/notifications.md). */
export interface WebhookBody {
  type: DeliveryEvent;
  /** When the change happened (not when this attempt was made). */
  timestamp: string;
  data: {
    action: ActionView;
    conversation: { id: string; agent: string; ownerId: string | null };
    links?: ActionLinks;
  };
}

/**
 * Posts one delivery, signed per Standard Webhooks: `webhook-id` is the delivery's id (the same on every
 * retry), `webhook-timestamp` the time of this attempt. Resolves on a 2xx; anything else throws a short
 * reason (kept as the delivery's `lastError`, so it names no secret).
 */
export async function postWebhook(
  hook: WebhookConfig,
  deliveryId: string,
  body: WebhookBody,
  timeoutMs: number,
  stop?: AbortSignal,
): Promise<void> {
  const payload = JSON.stringify(body);
  const sentAt = new Date();
  const signature = new Webhook(hook.secret).sign(deliveryId, sentAt, payload);
  let response: Response;
  try {
    response = await fetch(hook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'heed-webhooks',
        'webhook-id': deliveryId,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': signature,
        // The delivery's span (docs/operating.md, Traces); nothing while traces are off.
        ...traceHeaders(),
      },
      body: payload,
      // A redirect is a failure: the body and its signature go only where they were configured to go.
      redirect: 'manual',
      signal: stop ? AbortSignal.any([AbortSignal.timeout(timeoutMs), stop]) : AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const name = (error as Error).name;
    throw new Error(
      name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms`
        : `could not connect (${(error as { cause?: { code?: string } }).cause?.code ?? name})`,
    );
  }
  // Read (and drop) the body so the connection can be reused.
  await response.arrayBuffer().catch(() => undefined);
  if (response.status < 200 || response.status > 299) throw new Error(`HTTP ${response.status}`);
}
