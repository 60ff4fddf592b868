import type { Context } from 'hono';
import type { Caller } from '../../caller.js';
import { defineRoute, type AppEnv, type Route, type Served } from '../route.js';
import { conversationIdParams, messageBody, queuedResult, streamMessageBody, turnResult } from '../schemas.js';
import { openStream } from '../stream-limits.js';
import { turnResponse } from '../turn-stream.js';

const messageErrors = [
  'invalid_request',
  'unauthorized',
  'not_found',
  'conversation_busy',
  'queue_full',
  'channel_chat',
  'action_pending',
  'budget_reached',
  'message_limit_reached',
  'rate_limited',
] as const;

const queuedNote =
  "While a turn runs, a message is refused (409 `conversation_busy`) unless the agent's `busyPolicy` is `queue`: then it is recorded and answered 202 " +
  'with its place in the queue (JSON, also when a stream was asked for); it runs once the turns before it end, in order (`message.queued`, then ' +
  '`message.created` and `turn.started` with trigger `queue` in the event log), or is dropped (`message.dropped`) where a new message would be refused then. ' +
  'At most `limits.maxQueuedMessages` (10) wait: one more is 409 `queue_full`.';

const queuedResponse = {
  description: 'Queued behind the running turn (`busyPolicy: "queue"`): its place, and nothing run yet.',
  schema: queuedResult,
};

export const messageRoutes: Route[] = [
  defineRoute(
    {
      method: 'post',
      path: '/api/conversations/:id/messages',
      operationId: 'sendMessage',
      summary: 'Send a message and run the turn it starts',
      description:
        'Answers when the turn completes, pauses (`requires_action`, with `pendingActions`), is cancelled or fails. ' +
        'For the turn as Server-Sent Events use `POST …/messages/stream` (or send `stream: true` here; the answer is then that stream). ' +
        queuedNote,
      tag: 'conversations',
      params: conversationIdParams,
      body: messageBody,
      responses: { 200: { description: 'How the turn ended.', schema: turnResult }, 202: queuedResponse },
      errors: [...messageErrors],
    },
    ({ c, heed, host, caller, params, body, signal }) =>
      sendMessage(c, { heed, host }, caller, params.id, body.content, body.stream === true, signal),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/api/conversations/:id/messages/stream',
      operationId: 'sendMessageStream',
      summary: 'Send a message and follow the turn it starts as Server-Sent Events',
      description:
        'The same as `POST …/messages`, answered as the events of the turn, ending with `turn.done`. Errors before anything is recorded are ordinary JSON errors. ' +
        queuedNote,
      tag: 'conversations',
      params: conversationIdParams,
      body: streamMessageBody,
      responses: { 200: { description: 'The turn as it runs.', events: turnEvents('the turn') }, 202: queuedResponse },
      errors: [...messageErrors],
    },
    ({ c, heed, host, caller, params, body, signal }) =>
      sendMessage(c, { heed, host }, caller, params.id, body.content, true, signal),
  ),
];

/** What a stream of a turn carries, for the document. */
export function turnEvents(what: string): string {
  return (
    `The events of ${what} as they are written (\`message.created\`, \`text.delta\`, \`tool.called\`, … each as in \`GET …/events\`: ` +
    'SSE event name = type, id = event number, data = the event as JSON), then `turn.done` whose data is the `TurnResult`.'
  );
}

function sendMessage(
  c: Context<AppEnv>,
  { heed, host }: Served,
  caller: Caller,
  id: string,
  content: string,
  streamed: boolean,
  signal: AbortSignal,
) {
  // A stream counts against the caller's limit before anything runs: a refused one records nothing.
  const stream = streamed ? openStream(c, caller) : undefined;
  if (stream instanceof Response) return stream;
  return turnResponse(host, id, (onRecorded) => heed.conversation(id).send(content, { caller, onRecorded }), {
    stream,
    signal,
  });
}
