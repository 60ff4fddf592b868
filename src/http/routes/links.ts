import { z } from 'zod';
import { HeedError } from '../../errors.js';
import { describeResolution } from '../../kinds/index.js';
import { answerableByLink, type LinkClaims } from '../../notify/links.js';
import type { ActionRecord, ConversationRecord } from '../../types.js';
import { askerOf } from '../../notify/email.js';
import { actionView } from '../../views.js';
import { defineRoute, type Route } from '../route.js';
import { extendBody } from '../schemas.js';
import type { HeedHooks } from '../../hooks.js';

const tokenParams = z.object({ token: z.string().min(1).max(2048) });
const linkBody = z.object({
  resolution: z.record(z.string(), z.unknown()).describe('As for `POST /api/conversations/{id}/actions/{actionId}`.'),
});
const linkAction = z
  .record(z.string(), z.unknown())
  .describe(
    'The action as the API shows it, without the ids of its conversation and message (the link does not grant the conversation).',
  );
const linkResponse = z.object({
  action: linkAction,
  agent: z.string(),
  recipient: z.string().nullable().describe('Who the link was made for; recorded as `resolvedBy` when it answers.'),
  requester: z
    .string()
    .nullable()
    .describe("Who asked: the user id of the conversation's owner; null when nobody signed in owns it."),
  requestedIn: z
    .string()
    .optional()
    .describe('For a conversation that lives in a chat workspace and has no owner: the platform ("Slack").'),
  expiresAt: z.string().describe('When the link stops working: never later than the action lapses.'),
});
const answeredResponse = z.object({ status: z.literal('recorded'), action: linkAction });
const extendedResponse = z.object({
  status: z.literal('extended'),
  action: linkAction,
  page: z
    .string()
    .optional()
    .describe('A new link to the same page that lasts as long as the new deadline (the old one keeps its own end).'),
});

/** One answer for every token that does not lead to an action: forged, tampered, expired, another server's. */
const notFound = () => new HeedError('not_found', 'This link is not valid (it may have expired).');

async function open(
  host: HeedHooks,
  token: string,
): Promise<{ claims: LinkClaims; action: ActionRecord; agent: string; conversation: ConversationRecord }> {
  const claims = await host.notifier.readToken(token);
  if (!claims) throw (await lapsedLink(host, token)) ?? notFound();
  const { store } = host;
  const conversation = await store.getConversation(claims.conversationId);
  const action = conversation && (await store.getAction(claims.conversationId, claims.actionId));
  if (!conversation || !action) throw notFound();
  return { claims, action, agent: conversation.agent, conversation };
}

/**
 * A genuine link that ended because its request lapsed: 410 saying so (docs/notifications.md), so the
 * person who opens it late reads that nobody answered in time, not that the link is broken. It shows
 * nothing of the request; any other ended, forged or tampered link stays 404.
 */
async function lapsedLink(host: HeedHooks, token: string): Promise<HeedError | undefined> {
  const ended = await host.notifier.readEndedToken(token);
  if (!ended) return undefined;
  const action = await host.store.getAction(ended.conversationId, ended.actionId);
  if (!action?.expiresAt || (action.status !== 'expired' && action.channel !== 'timeout')) return undefined;
  // The link ran until the request's deadline: it ended with the lapse, not before it (a shorter linkTtlMinutes).
  if (ended.expiresAt < Date.parse(action.expiresAt)) return undefined;
  return new HeedError(
    'action_expired',
    `${describeResolution(actionView(undefined, action))}: this request closed at ${action.expiresAt}, so this link no longer answers it.`,
  );
}

/** The action as a link shows it: what it asks and how it ended, not where it lives. */
function linkView(host: HeedHooks, action: ActionRecord, agent: string) {
  const { conversationId: _conversationId, messageId: _messageId, ...view } = actionView(host, action, agent);
  return view;
}

export const linkRoutes: Route[] = [
  defineRoute(
    {
      method: 'get',
      path: '/api/links/:token',
      operationId: 'readLink',
      summary: 'The action an answer link names',
      description:
        'No sign-in: the token is the permission. Reading never answers. A forged, tampered or expired token, or one of ' +
        'another server, is 404 `not_found`; a genuine one that ended because its request lapsed is 410 `action_expired`, ' +
        'saying so and showing nothing of the request. The action is shown settled once it is (status, resolution).',
      tag: 'links',
      params: tokenParams,
      responses: { 200: { description: 'The action, who the link is for and until when.', schema: linkResponse } },
      errors: ['not_found', 'action_expired'],
    },
    async ({ host, params }) => {
      const { claims, action, agent, conversation } = await open(host, params.token);
      // The page names who asked, as the mail does: the link's recipient decides for someone.
      const asker = askerOf(conversation);
      return Response.json(
        {
          action: linkView(host, action, agent),
          agent,
          recipient: claims.recipient,
          requester: asker.requester,
          ...(asker.place ? { requestedIn: asker.place } : {}),
          expiresAt: new Date(claims.expiresAt).toISOString(),
        },
        { headers: { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } },
      );
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/api/links/:token',
      operationId: 'answerLink',
      summary: 'Answer the action an answer link names',
      description:
        'Settles the action through the same checks as `POST /api/conversations/{id}/actions/{actionId}` (409 ' +
        '`action_not_pending` with the stored answer when someone was first, 410 `action_expired`, 400 for an answer that ' +
        "does not fit), recorded with the link's recipient as `resolvedBy` and channel `link`. Answers once it is recorded; " +
        'the turn continues on the server.',
      tag: 'links',
      params: tokenParams,
      body: linkBody,
      responses: { 200: { description: 'The answer was recorded.', schema: answeredResponse } },
      errors: [
        'invalid_request',
        'not_found',
        'action_not_pending',
        'action_expired',
        'action_forbidden',
        'invalid_resolution',
        'invalid_approved_args',
        'budget_reached',
        'channel_chat',
        'conversation_busy',
        'payload_too_large',
        'unsupported_media_type',
      ],
    },
    async ({ heed, host, params, body }) => {
      const { claims, action } = await open(host, params.token);
      if (!answerableByLink(action)) throw notFound();
      let recorded!: () => void;
      const whenRecorded = new Promise<void>((resolve) => (recorded = resolve));
      // The continuation runs on in the background (close() waits for it); the response only needs the answer recorded.
      const settling = host.track(
        heed.conversation(claims.conversationId).resolve(claims.actionId, body.resolution, {
          caller: { userId: claims.recipient },
          link: { recipient: claims.recipient },
          onRecorded: () => recorded(),
        }),
      );
      settling.catch(() => undefined); // awaited in the race below: this only keeps a later rejection from being unhandled
      await Promise.race([whenRecorded, settling]);
      const { store } = host;
      const settled = (await store.getAction(claims.conversationId, claims.actionId))!;
      const conversation = await store.getConversation(claims.conversationId);
      return Response.json({ status: 'recorded', action: linkView(host, settled, conversation?.agent ?? '') });
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/api/links/:token/extend',
      operationId: 'extendLink',
      summary: 'Move the deadline of the action an answer link names',
      description:
        "As `POST /api/conversations/{id}/actions/{actionId}/extend`, as the link's recipient: the same bounds and errors. " +
        'The answer carries a new link (`page`) that lasts until the new deadline.',
      tag: 'links',
      params: tokenParams,
      body: extendBody,
      responses: { 200: { description: 'The action with its new deadline.', schema: extendedResponse } },
      errors: [
        'invalid_request',
        'extension_too_long',
        'invalid_extension',
        'not_found',
        'action_not_pending',
        'action_expired',
        'action_forbidden',
        'channel_chat',
        'conversation_busy',
      ],
    },
    async ({ heed, host, params, body }) => {
      const { claims, action } = await open(host, params.token);
      if (!answerableByLink(action)) throw notFound();
      await heed.conversation(claims.conversationId).extend(claims.actionId, body.minutes, {
        caller: { userId: claims.recipient },
        link: { recipient: claims.recipient },
      });
      const { store } = host;
      const extended = (await store.getAction(claims.conversationId, claims.actionId))!;
      const conversation = (await store.getConversation(claims.conversationId))!;
      const links = await host.notifier.links(extended, conversation, claims.recipient);
      return Response.json({
        status: 'extended',
        action: linkView(host, extended, conversation.agent),
        ...(links ? { page: links.page } : {}),
      });
    },
  ),
];
