import { defineRoute, type Route } from '../route.js';
import {
  branchBody,
  cancelResponse,
  conversationIdParams,
  conversationQuery,
  conversationsResponse,
  conversationView,
  createConversationBody,
  listConversationsQuery,
  snapshot,
} from '../schemas.js';
import type { JsonObject } from '../../types.js';

export const conversationRoutes: Route[] = [
  defineRoute(
    {
      method: 'post',
      path: '/api/conversations',
      operationId: 'createConversation',
      summary: 'Start a conversation with an agent',
      description:
        'The conversation is owned by the caller; an anonymous caller gets an ownerless one that anyone who knows its id may use.',
      tag: 'conversations',
      body: createConversationBody,
      responses: { 201: { description: 'The new conversation.', schema: conversationView } },
      errors: [
        'invalid_request',
        'unauthorized',
        'not_found',
        'payload_too_large',
        'metadata_too_large',
        'rate_limited',
      ],
    },
    async ({ heed, caller, body, countNewConversation }) => {
      countNewConversation();
      const conversation = await heed.createConversation({
        agent: body.agent,
        metadata: body.metadata as JsonObject | undefined,
        caller,
      });
      return Response.json(conversation, { status: 201 });
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/api/conversations',
      operationId: 'listConversations',
      summary: "The caller's conversations, most recently updated first",
      description: 'An anonymous caller owns none, so its list is empty.',
      tag: 'conversations',
      query: listConversationsQuery,
      responses: { 200: { description: 'The conversations.', schema: conversationsResponse } },
      errors: ['invalid_request', 'unauthorized'],
    },
    async ({ heed, caller, query }) =>
      Response.json({ conversations: await heed.listConversations({ ...query, caller }) }),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/api/conversations/:id',
      operationId: 'getConversation',
      summary: 'A conversation with its messages and what it waits on',
      description:
        'Messages come a page at a time: the newest `limit` (default 100), oldest first. `hasEarlierMessages: true` says older ones ' +
        'exist; ask for them with `?before=<id of the first message>`. A `before` that names no message of the conversation gives none.',
      tag: 'conversations',
      params: conversationIdParams,
      query: conversationQuery,
      responses: {
        200: { description: 'The conversation; `pendingActions` is omitted when nothing waits.', schema: snapshot },
      },
      errors: ['invalid_request', 'unauthorized', 'not_found'],
    },
    async ({ heed, caller, params, query }) =>
      Response.json(
        await heed.conversation(params.id).get({ caller, messages: { before: query.before, limit: query.limit } }),
      ),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/api/conversations/:id/cancel',
      operationId: 'cancelConversation',
      summary: 'Cancel an open pause or a running turn',
      description:
        'Every pending action closes as cancelled and the turn ends `cancelled`. An idle conversation is left alone (`cancelled: false`).',
      tag: 'conversations',
      params: conversationIdParams,
      responses: { 200: { description: 'What the conversation does now.', schema: cancelResponse } },
      errors: ['unauthorized', 'not_found', 'channel_chat', 'conversation_busy'],
    },
    async ({ heed, caller, params }) => Response.json(await heed.conversation(params.id).cancel({ caller })),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/api/conversations/:id/branch',
      operationId: 'branchConversation',
      summary: 'Copy a conversation into a new private one',
      description: 'Copies up to `fromMessageId` (default: everything). Requests still open arrive closed.',
      tag: 'conversations',
      params: conversationIdParams,
      body: branchBody,
      responses: { 201: { description: 'The new conversation.', schema: conversationView } },
      errors: ['invalid_request', 'unauthorized', 'not_found', 'payload_too_large', 'rate_limited'],
    },
    async ({ heed, caller, params, body, countNewConversation }) => {
      countNewConversation();
      const branched = await heed.conversation(params.id).branch({ caller, fromMessageId: body.fromMessageId });
      return Response.json(branched, { status: 201 });
    },
  ),
];
