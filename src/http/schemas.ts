import { z } from 'zod';
import { allKinds, nonEmpty } from '../kinds/index.js';
import { eventRecord, eventSchemas } from '../protocol/events.js';
import { MAX_MESSAGE_CHARS } from '../protocol/conversation.js';
import {
  actionView,
  conversationStatus,
  conversationView,
  json,
  kindViews,
  messageView,
  question,
} from '../protocol/views.js';
import {
  actionsResponse,
  agentInfo,
  agentsResponse,
  cancelResponse,
  conversationsResponse,
  demoResponse,
  errorBody,
  eventsResponse,
  extendResponse,
  healthResponse,
  inboxResponse,
  meResponse,
  queuedMessageView,
  queuedResult,
  rememberedTool,
  rememberedToolsResponse,
  snapshot,
  turnResult,
} from '../protocol/responses.js';

// The routes take their response schemas from here, beside their request schemas.
export {
  actionsResponse,
  agentInfo,
  agentsResponse,
  cancelResponse,
  conversationsResponse,
  conversationView,
  demoResponse,
  eventsResponse,
  extendResponse,
  healthResponse,
  inboxResponse,
  meResponse,
  queuedResult,
  rememberedToolsResponse,
  snapshot,
  turnResult,
};

/**
 * The zod schemas of the HTTP API. Request schemas are what the routes validate with; the response
 * schemas, from src/protocol/, describe what they return. `docSchemas` names the ones the OpenAPI
 * document lists as components.
 */

// ------------------------------------------------------------------ requests

export const conversationIdParams = z.object({ id: z.string().min(1).max(200) });
export const agentParams = z.object({
  name: z.string().min(1).max(200).describe("The agent's name, as `GET /api/agents` lists it."),
});
export const actionParams = conversationIdParams.extend({ actionId: z.string().min(1).max(200) });
export const extendBody = z.strictObject({
  minutes: z
    .number()
    .min(0)
    .max(10 * 365 * 24 * 60)
    .describe(
      'The request lapses this many minutes from now (fractions allowed), at most `hitl.maxExtendMinutes`; 0 = never, where the agent allows it.',
    ),
});
export const toolParams = conversationIdParams.extend({ tool: z.string().min(1).max(200) });

export const createConversationBody = z.strictObject({
  agent: z.string().min(1).describe('Name of one of the agents of `GET /api/agents`.'),
  metadata: z.record(z.string(), json).optional().describe('Any JSON object kept with the conversation.'),
});

const limit = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);

export const listConversationsQuery = z.object({
  status: conversationStatus.optional(),
  agent: z.string().min(1).optional(),
  q: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe('Only conversations whose title or agent name contains this text (1 to 100 characters), ignoring case.'),
  limit: limit(200, 50),
});

export const messageBody = z.strictObject({
  content: z.string().min(1).max(MAX_MESSAGE_CHARS).describe('What the user says.'),
  stream: z
    .boolean()
    .optional()
    .describe('Answer with Server-Sent Events of the turn instead of JSON, as `POST …/messages/stream` does.'),
});

/** `POST …/messages/stream`: the stream is the route, so there is no flag. */
export const streamMessageBody = messageBody.omit({ stream: true });

/**
 * Each kind's answer as documented: a question's answers typed (an option's value or label, or the typed
 * value; a list for a multiple choice). The kinds check the answers themselves, with messages that say
 * which question is wrong. By the name the OpenAPI document gives each (`ApprovalResolution`…).
 */
const kindResolutions = Object.fromEntries(
  allKinds().map((kind) => [`${kind.wire.docName}Resolution`, kind.wire.documentedAnswer ?? kind.wire.answer]),
);
export const documentedResolution = z.discriminatedUnion('type', nonEmpty(Object.values(kindResolutions)));

export const actionBody = z.strictObject({
  resolution: documentedResolution.describe("The answer; `type` must equal the action's kind."),
  stream: z
    .boolean()
    .optional()
    .describe(
      'Answer with Server-Sent Events of the continuation instead of JSON, as `POST …/actions/{actionId}/stream` does.',
    ),
});

/**
 * What the action route checks before the core runs: the envelope only. The resolution itself is
 * checked by the core with `resolutionInputSchema` (`actionBody` documents it), after the
 * 404/409/410/403 checks, because docs/concepts.md fixes that order.
 */
export const actionEnvelope = actionBody.extend({ resolution: json.optional() });

/** `POST …/actions/:actionId/stream`, as checked and as documented. */
export const streamActionEnvelope = actionEnvelope.omit({ stream: true });
export const streamActionBody = actionBody.omit({ stream: true });

export const branchBody = z.strictObject({
  fromMessageId: z
    .string()
    .min(1)
    .optional()
    .describe('Copy up to and including this message; default the whole conversation.'),
});

export const eventsQuery = z.object({
  after: z.coerce.number().int().min(0).default(0).describe('Return events numbered after this one.'),
  limit: limit(500, 200),
});

export const streamQuery = z.object({
  after: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Start after this event number (`Last-Event-ID` wins when both are sent).'),
});

export const conversationQuery = z.object({
  before: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Only messages before this message id (to read earlier pages).'),
  limit: limit(500, 100).describe('How many messages, newest of the page; default 100.'),
});

export const inboxQuery = z.object({
  limit: limit(200, 50),
  cursor: z.string().min(1).max(500).optional().describe('`nextCursor` of the previous page.'),
});

// ------------------------------------------------------------------ responses
// The views and bodies the routes answer with live in src/protocol/ (types, tests and this document share them).

export const openApiResponse = z.record(z.string(), json).describe('An OpenAPI 3.1 document.');

/** Schemas listed by name under `components.schemas` of the OpenAPI document. */
export const docSchemas: Record<string, z.ZodType> = {
  Error: errorBody,
  Agent: agentInfo,
  Conversation: conversationView,
  Question: question,
  Action: actionView,
  ...kindViews,
  Message: messageView,
  TurnResult: turnResult,
  QueuedResult: queuedResult,
  QueuedMessage: queuedMessageView,
  ConversationSnapshot: snapshot,
  Event: eventRecord,
  ...eventSchemas,
  RememberedTool: rememberedTool,
  Resolution: documentedResolution,
  ...kindResolutions,
  CreateConversationRequest: createConversationBody,
  SendMessageRequest: messageBody,
  SendMessageStreamRequest: streamMessageBody,
  ResolveActionRequest: actionBody,
  ResolveActionStreamRequest: streamActionBody,
  BranchRequest: branchBody,
};
