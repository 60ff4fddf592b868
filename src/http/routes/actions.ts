import { defineRoute, type Route } from '../route.js';
import { actionBody, actionEnvelope, actionParams, actionsResponse, conversationIdParams, turnResult } from '../schemas.js';
import { turnResponse } from '../turn-stream.js';

export const actionRoutes: Route[] = [
  defineRoute(
    {
      method: 'get',
      path: '/api/conversations/:id/actions',
      operationId: 'listActions',
      summary: "The conversation's actions, pending first",
      tag: 'actions',
      params: conversationIdParams,
      responses: { 200: { description: 'Every action, with its resolution once settled.', schema: actionsResponse } },
      errors: ['unauthorized', 'not_found'],
    },
    async ({ heed, caller, params }) => Response.json({ actions: await heed.conversation(params.id).actions({ caller }) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/api/conversations/:id/actions/:actionId',
      operationId: 'resolveAction',
      summary: 'Answer one action',
      description:
        'Checks run in a fixed order: 404 `not_found` → 409 `action_not_pending` (the body carries the stored resolution) → ' +
        '410 `action_expired` → 403 `action_forbidden` → 400 `invalid_resolution` / `invalid_approved_args` / ' +
        '`invalid_client_tool_result` (nothing consumed: answer again) → 402 `budget_reached`. The first valid answer wins. ' +
        'When the answer closes the pause the turn continues and the response has the shape of a message\'s; otherwise ' +
        'it is `{ status: "requires_action", pendingActions }`. With `stream: true`, Server-Sent Events ending with `turn.done`.',
      tag: 'actions',
      params: actionParams,
      body: actionEnvelope,
      documentedBody: actionBody,
      responses: {
        200: {
          description: 'How the continued turn ended, or what is still pending.',
          schema: turnResult,
          events: 'With `stream: true`: the events of the answer and of the continued turn, then `turn.done` carrying this body.',
        },
      },
      errors: [
        'invalid_request',
        'unauthorized',
        'not_found',
        'action_not_pending',
        'action_expired',
        'action_forbidden',
        'invalid_resolution',
        'invalid_approved_args',
        'invalid_client_tool_result',
        'budget_reached',
        'channel_chat',
        'conversation_busy',
        'payload_too_large',
      ],
    },
    ({ heed, caller, params, body, signal }) =>
      turnResponse(
        heed,
        params.id,
        (onRecorded) => heed.conversation(params.id).resolve(params.actionId, body.resolution, { caller, via: 'http', onRecorded }),
        { stream: body.stream === true, signal },
      ),
  ),
];
