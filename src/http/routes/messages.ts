import { defineRoute, type Route } from '../route.js';
import { conversationIdParams, messageBody, turnResult } from '../schemas.js';
import { turnResponse } from '../turn-stream.js';

export const messageRoutes: Route[] = [
  defineRoute(
    {
      method: 'post',
      path: '/api/conversations/:id/messages',
      operationId: 'sendMessage',
      summary: 'Send a message and run the turn it starts',
      description:
        'Answers when the turn completes, pauses (`requires_action`, with `pendingActions`), is cancelled or fails. ' +
        'With `stream: true` the answer is Server-Sent Events of the turn, ending with `turn.done`.',
      tag: 'conversations',
      params: conversationIdParams,
      body: messageBody,
      responses: {
        200: {
          description: 'How the turn ended.',
          schema: turnResult,
          events: 'With `stream: true`: the events of the turn (`message.created`, `text.delta`, `tool.called`, …) then `turn.done` carrying this body.',
        },
      },
      errors: ['invalid_request', 'unauthorized', 'not_found', 'conversation_busy', 'channel_chat', 'action_pending', 'budget_reached', 'payload_too_large'],
    },
    ({ heed, caller, params, body, signal }) =>
      turnResponse(heed, params.id, (onRecorded) => heed.conversation(params.id).send(body.content, { caller, via: 'http', onRecorded }), {
        stream: body.stream === true,
        signal,
      }),
  ),
];
