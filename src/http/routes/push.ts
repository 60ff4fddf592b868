import { z } from 'zod';
import type { Caller } from '../../caller.js';
import type { PushConfig } from '../../config.js';
import { HeedError } from '../../errors.js';
import { checkPushEndpoint, listSubscriptions, removeSubscription, saveSubscription } from '../../notify/push.js';
import type { HeedHooks } from '../../hooks.js';
import { defineRoute, type Route } from '../route.js';

// A P-256 public key (65 bytes) and a 16-byte auth secret, base64url as `PushSubscription.toJSON()` gives them.
const base64url = (bytes: number, what: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+=*$/, `expected ${what} in base64url`)
    .refine((text) => Buffer.from(text, 'base64url').length === bytes, `expected ${what} of ${bytes} bytes`);

const subscriptionBody = z.object({
  endpoint: z.string().min(1).max(2048).describe("The push service's URL for this browser."),
  keys: z.object({
    p256dh: base64url(65, "the browser's P-256 public key"),
    auth: base64url(16, 'the auth secret'),
  }),
  expirationTime: z.number().nullable().optional().describe('Ignored: as the browser gives it.'),
});
const endpointQuery = z.object({ endpoint: z.string().min(1).max(2048) });
const keyResponse = z.object({
  publicKey: z.string().describe('The VAPID public key (base64url): `applicationServerKey` when subscribing.'),
});
const subscriptionsResponse = z.object({
  subscriptions: z.array(z.object({ endpoint: z.string(), createdAt: z.string() })),
});

const description =
  'Web Push (docs/notifications.md, Push): each request for the caller is pushed to each of their subscriptions, ' +
  'with Allow and Deny (or a question’s options) that answer it from the notification. Only when `notify.push` is ' +
  'configured (else 404 `not_found`), and only for a signed-in caller (403 `forbidden`).';

function pushOf(host: HeedHooks): PushConfig {
  const push = host.notifier.config.push;
  if (!push) throw new HeedError('not_found', 'Push notifications are not turned on on this server (notify.push).');
  return push;
}

function signedIn(caller: Caller): string {
  if (caller.userId === null) throw new HeedError('forbidden', 'Sign in to get requests pushed to this device.');
  return caller.userId;
}

async function listed(host: HeedHooks, person: string): Promise<Response> {
  const subscriptions = await listSubscriptions(host.values, person);
  return Response.json({
    subscriptions: subscriptions.map(({ endpoint, createdAt }) => ({ endpoint, createdAt })),
  });
}

export const pushRoutes: Route[] = [
  defineRoute(
    {
      method: 'get',
      path: '/api/push/key',
      operationId: 'getPushKey',
      summary: 'The VAPID public key browsers subscribe with',
      description: 'No sign-in needed: the key is public. 404 `not_found` when `notify.push` is not configured.',
      tag: 'notifications',
      responses: { 200: { description: 'The key.', schema: keyResponse } },
      errors: ['not_found'],
    },
    async ({ host }) => {
      pushOf(host);
      return Response.json({ publicKey: (await host.notifier.vapidKeys()).publicKey });
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/api/me/push-subscriptions',
      operationId: 'listPushSubscriptions',
      summary: "The caller's push subscriptions (endpoints only)",
      description,
      tag: 'notifications',
      responses: { 200: { description: 'The subscriptions, oldest first.', schema: subscriptionsResponse } },
      errors: ['unauthorized', 'forbidden', 'not_found'],
    },
    async ({ host, caller }) => {
      pushOf(host);
      return listed(host, signedIn(caller));
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/api/me/push-subscriptions',
      scope: 'answer',
      operationId: 'addPushSubscription',
      summary: "Push the caller's requests to this browser",
      description: `${description} The same endpoint again replaces it (whoever had it before). An endpoint must be https on a public address, or a \`host:port\` listed in \`notify.push.allowEndpoints\`: else 400 \`push_endpoint_not_allowed\`.`,
      tag: 'notifications',
      body: subscriptionBody,
      responses: { 200: { description: "The caller's subscriptions now.", schema: subscriptionsResponse } },
      errors: ['invalid_request', 'push_endpoint_not_allowed', 'unauthorized', 'forbidden', 'not_found'],
    },
    async ({ host, caller, body }) => {
      const push = pushOf(host);
      const person = signedIn(caller);
      checkPushEndpoint(body.endpoint, push);
      await saveSubscription(host.values, person, { endpoint: body.endpoint, keys: body.keys }, host.now());
      return listed(host, person);
    },
  ),
  defineRoute(
    {
      method: 'delete',
      path: '/api/me/push-subscriptions',
      scope: 'answer',
      operationId: 'removePushSubscription',
      summary: 'Stop pushing to this browser',
      description: `${description} Removing an endpoint the caller does not have changes nothing.`,
      tag: 'notifications',
      query: endpointQuery,
      responses: { 200: { description: "The caller's subscriptions now.", schema: subscriptionsResponse } },
      errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
    },
    async ({ host, caller, query }) => {
      pushOf(host);
      const person = signedIn(caller);
      await removeSubscription(host.values, person, query.endpoint);
      return listed(host, person);
    },
  ),
];
