import type { Context } from 'hono';
import type { Caller } from '../../caller.js';
import { defineRoute, type AppEnv, type Route, type Served } from '../route.js';
import {
  actionBody,
  actionEnvelope,
  actionParams,
  actionsResponse,
  conversationIdParams,
  extendBody,
  extendResponse,
  streamActionBody,
  streamActionEnvelope,
  turnResult,
} from '../schemas.js';
import { openStream } from '../stream-limits.js';
import { turnResponse } from '../turn-stream.js';
import { turnEvents } from './messages.js';

const resolveErrors = [
  'invalid_request',
  'unauthorized',
  'not_found',
  'action_not_pending',
  'already_voted',
  'action_expired',
  'action_forbidden',
  'invalid_resolution',
  'invalid_approved_args',
  'invalid_client_tool_result',
  'budget_reached',
  'channel_chat',
  'conversation_busy',
  'rate_limited',
] as const;

export const actionRoutes: Route[] = [
  defineRoute(
    {
      method: 'get',
      path: '/api/conversations/:id/actions',
      operationId: 'listActions',
      summary: "The conversation's actions, pending first",
      tag: 'actions',
      params: conversationIdParams,
      responses: {
        200: {
          description:
            "Every action, with its resolution once settled; a parent's pending ones include its children's, each with `via`.",
          schema: actionsResponse,
        },
      },
      errors: ['unauthorized', 'not_found'],
    },
    async ({ heed, caller, params }) =>
      Response.json({ actions: await heed.conversation(params.id).actions({ caller }) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/api/conversations/:id/actions/:actionId',
      scope: 'answer',
      operationId: 'resolveAction',
      summary: 'Answer one action',
      description:
        'Checks run in a fixed order: 404 `not_found` → 409 `action_not_pending` (the body carries the stored resolution) → ' +
        '410 `action_expired` → 403 `action_forbidden` → 400 `invalid_resolution` / `invalid_approved_args` / ' +
        '`invalid_client_tool_result` (nothing consumed: answer again) → 402 `budget_reached`. The first valid answer wins. ' +
        "When the answer closes the pause the turn continues and the response has the shape of a message's; otherwise " +
        'it is `{ status: "requires_action", pendingActions }` — also for a vote that does not yet decide an approval decided by ' +
        'votes (409 `already_voted` for a second vote; 403 `action_forbidden` for someone not among its approvers). Either way ' +
        '`settled` holds the action the answer settled, as stored (empty after a vote that does not yet decide). For Server-Sent Events use `POST …/actions/{actionId}/stream` ' +
        '(or send `stream: true` here; the answer is then that stream).',
      tag: 'actions',
      params: actionParams,
      body: actionEnvelope,
      documentedBody: actionBody,
      responses: {
        200: { description: 'How the continued turn ended, or what is still pending.', schema: turnResult },
      },
      errors: [...resolveErrors],
    },
    ({ c, heed, host, caller, params, body, signal }) =>
      settleThroughRoute(c, { heed, host }, caller, params, body.resolution, body.stream === true, signal),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/api/conversations/:id/actions/:actionId/stream',
      scope: 'answer',
      operationId: 'resolveActionStream',
      summary: 'Answer one action and follow what it continues as Server-Sent Events',
      description:
        'The same checks and answer as `POST …/actions/{actionId}`, answered as events; errors before anything is recorded are ordinary JSON errors.',
      tag: 'actions',
      params: actionParams,
      body: streamActionEnvelope,
      documentedBody: streamActionBody,
      responses: {
        200: {
          description: 'The answer and the continued turn as they are written.',
          events: turnEvents('the answer and of the continued turn'),
        },
      },
      errors: [...resolveErrors],
    },
    ({ c, heed, host, caller, params, body, signal }) =>
      settleThroughRoute(c, { heed, host }, caller, params, body.resolution, true, signal),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/api/conversations/:id/actions/:actionId/extend',
      scope: 'answer',
      operationId: 'extendAction',
      summary: "Move a pending action's deadline",
      description:
        'By whoever may answer the action, with the checks of an answer in the same order (404 → 409 `action_not_pending` → ' +
        '410 `action_expired` → 403 `action_forbidden`). The action then lapses `minutes` from now (never earlier than it ' +
        'already would: 400 `invalid_extension`); more than `hitl.maxExtendMinutes` is 400 `extension_too_long`. `minutes: 0` ' +
        '(never lapse) is allowed only where `hitl.maxExtendMinutes` is 0. Recorded as an `action.extended` event; reminders ' +
        '(`hitl.remind`) are planned again for the new deadline.',
      tag: 'actions',
      params: actionParams,
      body: extendBody,
      responses: { 200: { description: 'The action with its new deadline.', schema: extendResponse } },
      errors: [
        'invalid_request',
        'extension_too_long',
        'invalid_extension',
        'unauthorized',
        'not_found',
        'action_not_pending',
        'action_expired',
        'action_forbidden',
        'channel_chat',
        'conversation_busy',
        'rate_limited',
      ],
    },
    async ({ heed, caller, params, body }) =>
      Response.json({ action: await heed.conversation(params.id).extend(params.actionId, body.minutes, { caller }) }),
  ),
];

function settleThroughRoute(
  c: Context<AppEnv>,
  { heed, host }: Served,
  caller: Caller,
  params: { id: string; actionId: string },
  resolution: unknown,
  streamed: boolean,
  signal: AbortSignal,
) {
  // A stream counts against the caller's limit before anything runs: a refused one records nothing.
  const stream = streamed ? openStream(c, caller) : undefined;
  if (stream instanceof Response) return stream;
  return turnResponse(
    host,
    params.id,
    (onRecorded) => heed.conversation(params.id).resolve(params.actionId, resolution, { caller, onRecorded }),
    { stream, signal },
  );
}
