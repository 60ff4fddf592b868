import { z } from 'zod';
import { resolutionInputSchema } from '../protocol/resolution-input.js';
import { eventRecord, eventSchemas } from '../protocol/events.js';

export { eventRecord };

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
  stream: z.boolean().optional().describe('Answer with Server-Sent Events of the turn instead of JSON, as `POST …/messages/stream` does.'),
});

/** `POST …/messages/stream`: the stream is the route, so there is no flag. */
export const streamMessageBody = messageBody.omit({ stream: true });

const answerValue = z.union([z.string(), z.number(), z.boolean()]);

/**
 * `resolutionInputSchema` as documented: the same union, with each question's answer typed (an option's
 * value or label, or the typed value; a list for a multiple choice). The core checks the answers
 * themselves, with messages that say which question is wrong.
 */
export const approvalResolution = resolutionInputSchema.options[0];
export const questionResolution = resolutionInputSchema.options[1].extend({
  answers: z
    .record(z.string(), z.union([answerValue, z.array(answerValue)]))
    .optional()
    .describe('By question id (or header): an option value or label, or the typed value; a list for a multiple choice. A question left out takes its default.'),
});
export const clientToolResolution = resolutionInputSchema.options[2];
export const urlResolution = resolutionInputSchema.options[3];
export const documentedResolution = z.discriminatedUnion('type', [approvalResolution, questionResolution, clientToolResolution, urlResolution]);

export const actionBody = z.strictObject({
  resolution: documentedResolution.describe("The answer; `type` must equal the action's kind."),
  stream: z.boolean().optional().describe('Answer with Server-Sent Events of the continuation instead of JSON, as `POST …/actions/{actionId}/stream` does.'),
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
  fromMessageId: z.string().min(1).optional().describe('Copy up to and including this message; default the whole conversation.'),
});

export const eventsQuery = z.object({
  after: z.coerce.number().int().min(0).default(0).describe('Return events numbered after this one.'),
  limit: limit(500, 200),
});

export const streamQuery = z.object({
  after: z.coerce.number().int().min(0).optional().describe('Start after this event number (`Last-Event-ID` wins when both are sent).'),
});

export const conversationQuery = z.object({
  before: z.string().min(1).max(200).optional().describe('Only messages before this message id (to read earlier pages).'),
  limit: limit(500, 100).describe('How many messages, newest of the page; default 100.'),
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
      patternBacktrackSafe: z.boolean().optional().describe('set by the server: a browser may run this pattern as the person types'),
      required: z.boolean().optional(),
      placeholder: z.string().optional(),
    })
    .optional(),
  defaults: z.array(z.string()).optional(),
});

const actionBase = {
  id: z.string(),
  conversationId: z.string(),
  messageId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  status: z.enum(['pending', 'resolved', 'cancelled', 'expired']),
  createdAt: isoTime,
  expiresAt: isoTime.optional(),
  resolution: z.record(z.string(), json).optional().describe('As stored; a client tool keeps only `outputBytes`.'),
  resolvedBy: z.string().optional().describe('The user id of whoever settled it; absent for an anonymous caller, the system and a lapse.'),
  channel: z
    .enum(['api', 'system', 'timeout', 'remembered', 'link', 'slack'])
    .optional()
    .describe('How it was settled: `api` (a person), `system` (Heed closed it), `timeout` (it lapsed), `remembered`, `link` (a signed answer link; `resolvedBy` is its recipient).'),
  resolvedAt: isoTime.optional(),
};

export const approvalAction = z.object({
  kind: z.literal('approval'),
  ...actionBase,
  args: json.describe('The arguments of the call.'),
  argsSchema: z.record(z.string(), json).optional().describe('JSON Schema of the arguments (a tool of the agent).'),
  title: z.string(),
  summary: z.string(),
  canRemember: z.boolean().describe('False for a tool gated by a predicate: such approvals are never remembered.'),
  // An approval decided by votes (the tool's `approval` policy; docs/approvals.md). `args` is then what is under vote.
  approvers: z.array(z.string()).optional().describe('User ids who may vote (escalation adds to it). Absent: whoever may answer the conversation.'),
  required: z.number().int().optional().describe('Distinct allows needed. Present only on an approval decided by votes.'),
  deny: z.enum(['any', 'majority']).optional().describe('`any`: one deny refuses; `majority`: see docs/approvals.md.'),
  excludeRequester: z.boolean().optional().describe("The conversation's owner may not vote (four eyes)."),
  escalate: z
    .object({ at: isoTime, to: z.array(z.string()), escalatedAt: isoTime.optional() })
    .optional()
    .describe('When `to` join the approvers if no decision came; `escalatedAt` once they did. The lapse time does not move.'),
  votes: z
    .array(
      z.object({
        by: z.string(),
        decision: z.enum(['allow', 'deny']),
        comment: z.string().optional(),
        at: isoTime,
        args: json.optional().describe('Arguments this vote proposed; the allows before it stopped counting.'),
        outdated: z.literal(true).optional().describe('An allow for arguments a later vote replaced.'),
      }),
    )
    .optional()
    .describe('Votes so far, oldest first (once decided, those of the resolution, the deciding one last).'),
  originalArgs: json.optional().describe('The arguments first asked about, once a vote proposed others.'),
});

export const questionAction = z.object({
  kind: z.literal('question'),
  ...actionBase,
  preamble: z.string().optional(),
  questions: z.array(question),
  defaulted: z.array(z.string()).optional().describe('Question ids that took their default.'),
});

export const clientToolAction = z.object({
  kind: z.literal('client_tool'),
  ...actionBase,
  args: json.describe('The arguments of the call.'),
  argsSchema: z.record(z.string(), json).optional().describe('JSON Schema of the arguments (a tool of the agent).'),
  clientKind: z.string(),
  timeoutSeconds: z.number().optional(),
});

export const urlAction = z.object({
  kind: z.literal('url'),
  ...actionBase,
  url: z.string(),
  title: z.string().optional(),
  message: z.string().optional(),
});

/** A request waiting on (or answered by) a person: a union discriminated by `kind`. */
export const actionView = z.discriminatedUnion('kind', [approvalAction, questionAction, clientToolAction, urlAction]);

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
  hasEarlierMessages: z
    .literal(true)
    .optional()
    .describe('Present when older messages exist than the first one here: ask again with `?before=<its id>`.'),
});

export const rememberedTool = z.object({
  toolName: z.string(),
  rememberedBy: z.string().nullable().describe('The user id of whoever said "remember"; null for an anonymous caller.'),
  rememberedAt: isoTime,
});

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
export const openApiResponse = z.record(z.string(), json).describe('An OpenAPI 3.1 document.');

/** Schemas listed by name under `components.schemas` of the OpenAPI document. */
export const docSchemas: Record<string, z.ZodType> = {
  Error: errorBody,
  Agent: agentInfo,
  Conversation: conversationView,
  Question: question,
  Action: actionView,
  ApprovalAction: approvalAction,
  QuestionAction: questionAction,
  ClientToolAction: clientToolAction,
  UrlAction: urlAction,
  Message: messageView,
  TurnResult: turnResult,
  ConversationSnapshot: snapshot,
  Event: eventRecord,
  ...eventSchemas,
  RememberedTool: rememberedTool,
  Resolution: documentedResolution,
  ApprovalResolution: approvalResolution,
  QuestionResolution: questionResolution,
  ClientToolResolution: clientToolResolution,
  UrlResolution: urlResolution,
  CreateConversationRequest: createConversationBody,
  SendMessageRequest: messageBody,
  SendMessageStreamRequest: streamMessageBody,
  ResolveActionRequest: actionBody,
  ResolveActionStreamRequest: streamActionBody,
  BranchRequest: branchBody,
};
