import { z } from 'zod';
import { MAX_WAIT_SECONDS } from '../../engine/requests/read.js';
import { externalRequest } from '../../kinds/external-request.js';
import { actionView } from '../../protocol/views.js';
import type { JsonObject } from '../../types.js';
import { defineRoute, type Route } from '../route.js';
import { takeStreamSlot } from '../stream-limits.js';

export const createRequestBody = z.strictObject({
  request: externalRequest.describe(
    "Any kind's request as a tool raises it with `ctx.request`: `{ kind: 'approval', title, summary?, toolName?, args?, argsSchema? }`, " +
      "`{ kind: 'question', preamble?, questions }` or `{ kind: 'url', url, title?, message? }`, each with `expiresInMinutes?`.",
  ),
  assignees: z
    .array(z.string().min(1).max(200))
    .max(100)
    .optional()
    .describe(
      'User ids and `group:<name>` entries who may answer it besides the caller; it shows in their inbox (a group: in the inbox of each member).',
    ),
  callbackUrl: z
    .string()
    .max(2000)
    .optional()
    .describe(
      'Where the settled action is posted (signed with `notify.callbackSecret`); its host must be listed in `notify.callbackHosts`.',
    ),
  expiresAt: z
    .string()
    .max(100)
    .optional()
    .describe("When it lapses (ISO time); default the request's `expiresInMinutes`, else `hitl.timeoutMinutes`."),
  idempotencyKey: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'The same key from the same caller returns the same request (200 instead of 201). Signed-in callers only: from an anonymous caller it is 400 `invalid_request`.',
    ),
  metadata: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("The conversation's metadata (`title` names it); keys starting with `heed:` are refused."),
  channel: z
    .string()
    .max(300)
    .optional()
    .describe(
      'Where in a chat workspace to post it too, as a card answered there (`<platform>:<place>`: `telegram:-100123`, `slack:T1:C1`), on a configured channel; answered there as the Heed person each answerer maps to (`channels.<platform>.userId`, else their address).',
    ),
});

const requestParams = z.object({ id: z.string().min(1).max(200) });
const waitQuery = z.object({
  timeoutSeconds: z.coerce
    .number()
    .min(0)
    .max(MAX_WAIT_SECONDS)
    .default(30)
    .describe(`How long to wait for an answer, in seconds (at most ${MAX_WAIT_SECONDS}).`),
});

export const requestRoutes: Route[] = [
  defineRoute(
    {
      method: 'post',
      path: '/api/requests',
      operationId: 'createRequest',
      summary: 'Ask a person directly, from any backend',
      description:
        'The request becomes an action in a conversation of its own, owned by the caller, in which no agent runs. It shows in ' +
        'the inbox of its assignees, is sent by the configured webhooks and email, and is answered through ' +
        '`POST /api/conversations/{id}/actions/{actionId}` or any other surface. The request is checked as a tool’s `ctx.request` is ' +
        '(400 `invalid_request`, nothing stored). A second create with the same `idempotencyKey` from the same caller answers 200 ' +
        'with the request made first.',
      tag: 'requests',
      body: createRequestBody,
      responses: {
        201: { description: 'The new request (an action).', schema: actionView },
        200: { description: 'The request made before with the same idempotency key.', schema: actionView },
      },
      errors: [
        'invalid_request',
        'unauthorized',
        'callback_not_allowed',
        'payload_too_large',
        'metadata_too_large',
        'rate_limited',
      ],
    },
    async ({ heed, caller, body, countNewConversation }) => {
      countNewConversation();
      const made = await heed.requests.create({
        ...body,
        metadata: body.metadata as JsonObject | undefined,
        caller,
      });
      return Response.json(made.action, { status: made.created ? 201 : 200 });
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/api/requests/:id',
      operationId: 'getRequest',
      summary: 'A request made with POST /api/requests',
      description: 'For its caller and its assignees; anyone else gets the same 404 as an id that names nothing.',
      tag: 'requests',
      params: requestParams,
      responses: {
        200: { description: 'The request (an action), with its resolution once settled.', schema: actionView },
      },
      errors: ['unauthorized', 'not_found'],
    },
    async ({ heed, caller, params }) => Response.json(await heed.requests.get(params.id, { caller })),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/api/requests/:id/wait',
      operationId: 'waitForRequest',
      summary: 'Wait until a request is settled',
      description:
        'Answers 200 with the action once it is answered, lapsed or withdrawn, or 202 with it still pending when ' +
        '`timeoutSeconds` pass first: ask again then.',
      tag: 'requests',
      params: requestParams,
      query: waitQuery,
      responses: {
        200: { description: 'The settled request.', schema: actionView },
        202: { description: 'Still pending when the time was up.', schema: actionView },
      },
      errors: ['invalid_request', 'unauthorized', 'not_found', 'rate_limited'],
    },
    async ({ heed, caller, params, query, c, signal }) => {
      // A wait holds a connection and a timer like a stream does: it takes one of the caller's stream slots.
      const release = takeStreamSlot(c, caller);
      if (release instanceof Response) return release;
      try {
        // The wait ends when the caller goes away or the server shuts down, as well as on an answer or the time.
        const gone = c.req.raw.signal;
        const outcome = await heed.requests.wait(params.id, {
          caller,
          timeoutSeconds: query.timeoutSeconds,
          signal: AbortSignal.any([signal, gone]),
        });
        return Response.json(outcome.action, { status: outcome.settled ? 200 : 202 });
      } finally {
        release();
      }
    },
  ),
];
