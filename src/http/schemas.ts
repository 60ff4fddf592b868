import { z } from 'zod';
import { resolutionInputSchema } from '../actions/resolution-input.js';

/**
 * The zod schemas of the HTTP API. Request schemas are what the routes validate with; response
 * schemas describe what they return. `docSchemas` names the ones the OpenAPI document lists as
 * components, so both come from this one file.
 */

const isoTime = z.string().describe('ISO 8601 time, UTC');
const json = z.unknown();

// ------------------------------------------------------------------ requests

export const conversationIdParams = z.object({ id: z.string().min(1).max(200) });
export const actionParams = conversationIdParams.extend({ actionId: z.string().min(1).max(200) });
export const toolParams = conversationIdParams.extend({ tool: z.string().min(1).max(200) });

export const conversationStatus = z.enum(['idle', 'running', 'requires_action']);

export const createConversationBody = z.strictObject({
  agent: z.string().min(1).describe('Name of one of the agents of `GET /api/agents`.'),
  metadata: z.record(z.string(), json).optional().describe('Any JSON object kept with the conversation.'),
});

const limit = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);

export const listConversationsQuery = z.object({
  status: conversationStatus.optional(),
  agent: z.string().min(1).optional(),
  limit: limit(200, 50),
});

export const messageBody = z.strictObject({
  content: z.string().min(1).max(100_000).describe('What the user says.'),
  stream: z.boolean().optional().describe('Answer with Server-Sent Events of the turn instead of JSON.'),
});

export const actionBody = z.strictObject({
  resolution: resolutionInputSchema.describe("The answer; `type` must equal the action's kind."),
  stream: z.boolean().optional().describe('Answer with Server-Sent Events of the continuation instead of JSON.'),
});

/**
 * What the action route checks before the core runs: the envelope only. The resolution itself is
 * checked by the core with `resolutionInputSchema` (the same schema as in `actionBody`), after the
 * 404/409/410/403 checks, because DESIGN §3 fixes that order.
 */
export const actionEnvelope = actionBody.extend({ resolution: json.optional() });

export const branchBody = z.strictObject({
  fromMessageId: z.string().min(1).optional().describe('Copy up to and including this message; default the whole conversation.'),
});

export const eventsQuery = z.object({
  after: z.coerce.number().int().min(0).default(0).describe('Return events numbered after this one.'),
  limit: limit(500, 200),
});

export const streamQuery = z.object({
  after: z.coerce.number().int().min(0).optional().describe('Start after this event number (`Last-Event-ID` wins when both are sent).'),
});

export const inboxQuery = z.object({
  limit: limit(200, 50),
  cursor: z.string().min(1).max(500).optional().describe('`nextCursor` of the previous page.'),
});

// ------------------------------------------------------------------ responses

export const errorBody = z.object({
  error: z.object({
    code: z.string().describe('Stable code clients match on, e.g. `action_not_pending`.'),
    message: z.string().describe('A sentence a person can read.'),
    details: z.record(z.string(), json).optional(),
  }),
});

export const agentInfo = z.object({
  name: z.string(),
  description: z.string().optional(),
  capabilities: z.object({ toolApproval: z.boolean(), questions: z.boolean(), intake: z.boolean(), clientTools: z.boolean() }),
});

export const conversationView = z.object({
  id: z.string(),
  agent: z.string(),
  ownerId: z.string().nullable(),
  channel: z.string().nullable(),
  status: conversationStatus,
  version: z.number().int(),
  lastEventSeq: z.number().int(),
  metadata: z.record(z.string(), json).nullable(),
  createdAt: isoTime,
  updatedAt: isoTime,
});

const questionOption = z.object({
  value: z.string(),
  label: z.string(),
  description: z.string().optional(),
  preview: z.string().optional(),
  hotkey: z.string().optional(),
});

export const question = z.object({
  id: z.string(),
  header: z.string().max(30),
  prompt: z.string(),
  description: z.string().optional(),
  options: z.array(questionOption).optional(),
  multiple: z.boolean().optional(),
  custom: z.boolean().optional(),
  input: z
    .object({
      type: z.enum(['text', 'textarea', 'number', 'boolean', 'date', 'email', 'url', 'select']),
      min: z.union([z.number(), z.string()]).optional(),
      max: z.union([z.number(), z.string()]).optional(),
      pattern: z.string().optional(),
      required: z.boolean().optional(),
      placeholder: z.string().optional(),
    })
    .optional(),
  defaults: z.array(z.string()).optional(),
});

export const actionView = z.object({
  id: z.string(),
  kind: z.enum(['approval', 'question', 'client_tool', 'url']),
  conversationId: z.string(),
  messageId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  status: z.enum(['pending', 'resolved', 'cancelled', 'expired']),
  createdAt: isoTime,
  expiresAt: isoTime.optional(),
  args: json.optional().describe('approval, client_tool: the arguments of the call'),
  argsSchema: z.record(z.string(), json).optional().describe('approval, client_tool: JSON Schema of the arguments'),
  title: z.string().optional(),
  summary: z.string().optional(),
  canRemember: z.boolean().optional(),
  clientKind: z.string().optional(),
  timeoutSeconds: z.number().optional(),
  preamble: z.string().optional(),
  questions: z.array(question).optional(),
  url: z.string().optional(),
  message: z.string().optional(),
  resolution: z.record(z.string(), json).optional().describe('As stored; a client tool keeps only `outputBytes`.'),
  resolvedBy: z.string().optional(),
  resolvedAt: isoTime.optional(),
  defaulted: z.array(z.string()).optional().describe('Question ids that took their default.'),
});

const messagePart = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('tool-call'), toolCallId: z.string(), toolName: z.string(), input: json }),
  z.object({ type: z.literal('tool-result'), toolCallId: z.string(), toolName: z.string(), output: json }),
]);

export const messageView = z.object({
  id: z.string(),
  role: z.enum(['user', 'assistant', 'tool']),
  parts: z.array(messagePart),
  createdAt: isoTime,
  metadata: z
    .object({ actions: z.array(actionView).optional(), requiresAction: z.boolean().optional() })
    .catchall(json)
    .optional()
    .describe('On the message that asked: every request it made and how each ended.'),
});

const warning = z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), json).optional() });

export const turnResult = z.object({
  status: z.enum(['completed', 'requires_action', 'cancelled', 'failed']),
  conversationId: z.string(),
  messages: z.array(messageView).describe('Messages this turn wrote, in order.'),
  pendingActions: z.array(actionView).optional(),
  warnings: z.array(warning).optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

export const snapshot = z.object({
  conversation: conversationView,
  messages: z.array(messageView),
  pendingActions: z.array(actionView).optional(),
  runtime: z.object({ status: conversationStatus, pendingActionIds: z.array(z.string()) }),
});

export const eventRecord = z.object({
  conversationId: z.string(),
  seq: z.number().int().describe('1, 2, 3… per conversation; also the SSE id.'),
  type: z.enum([
    'message.created',
    'turn.started',
    'text.delta',
    'tool.called',
    'tool.result',
    'action.required',
    'action.resolved',
    'turn.paused',
    'turn.completed',
    'turn.cancelled',
    'turn.failed',
  ]),
  data: z.record(z.string(), json),
  at: isoTime,
});

export const rememberedTool = z.object({ toolName: z.string(), rememberedBy: z.string(), rememberedAt: isoTime });

export const agentsResponse = z.object({ agents: z.array(agentInfo) });
export const conversationsResponse = z.object({ conversations: z.array(conversationView) });
export const actionsResponse = z.object({ actions: z.array(actionView) });
export const inboxResponse = z.object({
  actions: z.array(actionView),
  nextCursor: z.string().optional().describe('Pass as `cursor` for the next page; absent on the last page.'),
});
export const eventsResponse = z.object({
  events: z.array(eventRecord),
  hasMore: z.boolean().describe('True when more events follow the last one returned.'),
});
export const cancelResponse = z.object({ status: conversationStatus, cancelled: z.boolean() });
export const rememberedToolsResponse = z.object({ tools: z.array(rememberedTool) });
export const healthResponse = z.object({ ok: z.literal(true) });

/** Schemas listed by name under `components.schemas` of the OpenAPI document. */
export const docSchemas: Record<string, z.ZodType> = {
  Error: errorBody,
  Agent: agentInfo,
  Conversation: conversationView,
  Question: question,
  Action: actionView,
  Message: messageView,
  TurnResult: turnResult,
  ConversationSnapshot: snapshot,
  Event: eventRecord,
  RememberedTool: rememberedTool,
  Resolution: resolutionInputSchema,
  CreateConversationRequest: createConversationBody,
  SendMessageRequest: messageBody,
  ResolveActionRequest: actionBody,
  BranchRequest: branchBody,
};
