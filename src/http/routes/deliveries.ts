import { z } from 'zod';
import { HeedError } from '../../errors.js';
import { mustBeOperator, operatorRule } from '../operators.js';
import { defineRoute, type Route } from '../route.js';

const deliveriesQuery = z.object({
  status: z.enum(['pending', 'delivered', 'failed', 'dropped']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z.string().min(1).max(500).optional().describe('`nextCursor` of the previous page.'),
});
const delivery = z.object({
  id: z.string().describe("Stable across retries; the webhook's `webhook-id`."),
  conversationId: z.string(),
  actionId: z.string(),
  event: z
    .enum([
      'action.required',
      'action.resolved',
      'action.expired',
      'action.cancelled',
      'message.created',
      'task.status',
    ])
    .describe(
      '`message.created`: an agent reply posted to a channel (`actionId` is then the message id); `task.status`: an A2A task changed state (`actionId` is then the push config id).',
    ),
  target: z
    .record(z.string(), z.unknown())
    .describe(
      '`{ type: "webhook", url }`, `{ type: "email", to }`, `{ type: "channel", channel }` (a Slack thread) `{ type: "callback", url }` (the `callbackUrl` of a request), `{ type: "a2a", url, configId }` (an A2A push config) or `{ type: "push", to }` (a person\'s Web Push subscriptions, by user id).',
    ),
  status: z.enum(['pending', 'delivered', 'failed', 'dropped']),
  attempts: z.number().int(),
  createdAt: z.string(),
  dueAt: z.string().nullable(),
  lastError: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
const deliveriesResponse = z.object({ deliveries: z.array(delivery), nextCursor: z.string().optional() });

export const deliveryRoutes: Route[] = [
  defineRoute(
    {
      method: 'get',
      path: '/api/deliveries',
      scope: 'admin',
      operationId: 'listDeliveries',
      summary: 'Notifications (webhooks, email, push) and how they went, oldest first',
      description:
        'For operators only: callers whose user id is listed in `notify.operators` (everyone else, anonymous callers ' +
        'included, gets 403 `forbidden`). `?status=failed` lists the ones that gave up.',
      tag: 'notifications',
      query: deliveriesQuery,
      responses: { 200: { description: 'One page of deliveries.', schema: deliveriesResponse } },
      errors: ['invalid_request', 'unauthorized', 'forbidden'],
    },
    async ({ c, host, caller, query }) => {
      mustBeOperator(caller, operatorRule(c, host), 'list deliveries');
      let after: { createdAt: string; id: string } | undefined;
      if (query.cursor) {
        try {
          after = JSON.parse(Buffer.from(query.cursor, 'base64url').toString('utf8'));
          if (typeof after?.id !== 'string' || Number.isNaN(Date.parse(after.createdAt))) throw new Error('bad cursor');
        } catch {
          throw new HeedError('invalid_request', 'The cursor is not one this server handed out.', {
            details: { field: 'query.cursor' },
          });
        }
      }
      const found = await host.store.listDeliveries({ status: query.status, limit: query.limit + 1, after });
      const page = found.slice(0, query.limit);
      const last = page.at(-1);
      const nextCursor =
        found.length > query.limit && last
          ? Buffer.from(JSON.stringify({ createdAt: last.createdAt, id: last.id })).toString('base64url')
          : undefined;
      return Response.json({ deliveries: page, ...(nextCursor ? { nextCursor } : {}) });
    },
  ),
];
