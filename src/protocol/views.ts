import { z } from 'zod';
import type { JsonValue } from '../types.js';

/*
 * What the HTTP API and the library return for conversations, messages and actions, as zod: the one
 * description the TypeScript types (z.output), the OpenAPI document (src/http/openapi.ts) and the route
 * tests (which parse real responses with them) share. Objects are strict: a field the server sends
 * that is not written here fails those tests.
 */

export const json = z.unknown();
/** Any JSON (a tool's arguments, say): documented as any value, typed as what records hold. */
const jsonValue = z.custom<JsonValue>();
export const isoTime = z.string().describe('ISO 8601 time, UTC');

export const conversationStatus = z.enum(['idle', 'running', 'requires_action']);
export const resolutionChannel = z
  .enum(['api', 'system', 'timeout', 'remembered', 'link', 'slack'])
  .describe(
    'How it was settled: `api` (a person), `system` (Heed closed it), `timeout` (it lapsed), `remembered`, `link` (a signed answer link; `resolvedBy` is its recipient), `slack`.',
  );

export const warning = z.strictObject({ code: z.string(), message: z.string(), details: z.record(z.string(), jsonValue).optional() });

export const conversationView = z.strictObject({
  id: z.string(),
  agent: z.string(),
  ownerId: z.string().nullable(),
  channel: z.string().nullable(),
  status: conversationStatus,
  version: z.number().int(),
  lastEventSeq: z.number().int().describe('Number of the last event in the log: follow the stream from here to see only what comes next.'),
  metadata: z.record(z.string(), jsonValue).nullable(),
  createdAt: isoTime,
  updatedAt: isoTime,
});

const questionOption = z.strictObject({
  value: z.string(),
  label: z.string(),
  description: z.string().optional(),
  preview: z.string().optional(),
  hotkey: z.string().optional(),
});

export const question = z.strictObject({
  id: z.string(),
  header: z.string().max(30),
  prompt: z.string(),
  description: z.string().optional(),
  options: z.array(questionOption).optional(),
  multiple: z.boolean().optional(),
  custom: z.boolean().optional(),
  input: z
    .strictObject({
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

const vote = z.strictObject({
  by: z.string(),
  decision: z.enum(['allow', 'deny']),
  comment: z.string().optional(),
  at: isoTime,
  args: jsonValue.optional().describe('Arguments this vote proposed; the allows before it stopped counting.'),
  outdated: z.literal(true).optional().describe('An allow for arguments a later vote replaced.'),
});

const answers = z.record(z.string(), z.array(z.string())).describe('By question id: the canonical answers.');

/** An answer as stored: a client tool keeps only the size of its output. */
export const storedResolution = z.union([
  z.strictObject({
    type: z.literal('approval'),
    decision: z.enum(['allow', 'deny']),
    comment: z.string().optional(),
    approvedArgs: jsonValue.optional(),
    remember: z.boolean().optional(),
    votes: z.array(vote).optional().describe('For an approval decided by votes: every vote, the deciding one last.'),
  }),
  z.strictObject({ type: z.literal('question'), answers }),
  z.strictObject({ type: z.literal('question'), skip: z.literal(true), answers }),
  z.strictObject({ type: z.literal('question'), dismiss: z.literal(true) }),
  z.strictObject({ type: z.literal('client_tool'), outputBytes: z.number().int() }),
  z.strictObject({ type: z.literal('client_tool'), error: z.string() }),
  z.strictObject({ type: z.literal('url'), decision: z.enum(['accept', 'decline', 'cancel']) }),
  z.strictObject({ type: z.literal('cancelled'), reason: z.string() }),
]);

const actionBase = {
  id: z.string(),
  conversationId: z.string(),
  messageId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  status: z.enum(['pending', 'resolved', 'cancelled', 'expired']),
  createdAt: isoTime,
  expiresAt: isoTime.optional(),
  resolution: storedResolution.optional().describe('As stored; a client tool keeps only `outputBytes`.'),
  resolvedBy: z.string().optional().describe('The user id of whoever settled it; absent for an anonymous caller, the system and a lapse.'),
  channel: resolutionChannel.optional(),
  resolvedAt: isoTime.optional(),
};

const argsSchema = z.record(z.string(), json).optional().describe('JSON Schema of the arguments (a tool of the agent).');

export const approvalAction = z.strictObject({
  kind: z.literal('approval'),
  ...actionBase,
  args: jsonValue.describe('The arguments of the call.'),
  argsSchema,
  title: z.string(),
  summary: z.string(),
  canRemember: z.boolean().describe('False for a tool gated by a predicate: such approvals are never remembered.'),
  // An approval decided by votes (the tool's `approval` policy; docs/approvals.md). `args` is then what is under vote.
  approvers: z.array(z.string()).optional().describe('User ids who may vote (escalation adds to it). Absent: whoever may answer the conversation.'),
  required: z.number().int().optional().describe('Distinct allows needed. Present only on an approval decided by votes.'),
  deny: z.enum(['any', 'majority']).optional().describe('`any`: one deny refuses; `majority`: see docs/approvals.md.'),
  excludeRequester: z.boolean().optional().describe("The conversation's owner may not vote (four eyes)."),
  escalate: z
    .strictObject({ at: isoTime, to: z.array(z.string()), escalatedAt: isoTime.optional() })
    .optional()
    .describe('When `to` join the approvers if no decision came; `escalatedAt` once they did. The lapse time does not move.'),
  votes: z.array(vote).optional().describe('Votes so far, oldest first (once decided, those of the resolution, the deciding one last).'),
  originalArgs: jsonValue.optional().describe('The arguments first asked about, once a vote proposed others.'),
});

export const questionAction = z.strictObject({
  kind: z.literal('question'),
  ...actionBase,
  preamble: z.string().optional(),
  questions: z.array(question),
  defaulted: z.array(z.string()).optional().describe('Question ids that took their default.'),
});

export const clientToolAction = z.strictObject({
  kind: z.literal('client_tool'),
  ...actionBase,
  args: jsonValue.describe('The arguments of the call.'),
  argsSchema,
  clientKind: z.string(),
  timeoutSeconds: z.number().optional(),
});

export const urlAction = z.strictObject({
  kind: z.literal('url'),
  ...actionBase,
  url: z.string(),
  title: z.string().optional(),
  message: z.string().optional(),
});

/** A request waiting on (or answered by) a person: a union discriminated by `kind`. */
export const actionView = z.discriminatedUnion('kind', [approvalAction, questionAction, clientToolAction, urlAction]);

const toolContentPart = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({ type: z.literal('media'), mediaType: z.string(), data: z.string().describe('base64') }),
]);

const toolOutput = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('json'), value: jsonValue }),
  z.strictObject({ type: z.literal('text'), value: z.string() }),
  z.strictObject({ type: z.literal('error-text'), value: z.string() }),
  z.strictObject({ type: z.literal('content'), value: z.array(toolContentPart) }),
]);

export const messagePart = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({ type: z.literal('tool-call'), toolCallId: z.string(), toolName: z.string(), input: jsonValue }),
  z.strictObject({ type: z.literal('tool-result'), toolCallId: z.string(), toolName: z.string(), output: toolOutput }),
]);

export const messageView = z.strictObject({
  id: z.string(),
  role: z.enum(['user', 'assistant', 'tool']),
  parts: z.array(messagePart),
  createdAt: isoTime,
  metadata: z
    .object({
      warnings: z.array(warning).optional(),
      intake: z.boolean().optional().describe("The assistant message that asks the agent's intake questions."),
      actions: z.array(actionView).optional(),
      requiresAction: z.boolean().optional(),
    })
    .catchall(json)
    .optional()
    .describe('On the message that asked: every request it made and how each ended; `requiresAction` while any is open.'),
});

/** An action as clients see it: the request's fields flattened beside the bookkeeping. */
export type ActionView = z.output<typeof actionView>;
export type ApprovalActionView = z.output<typeof approvalAction>;
export type QuestionActionView = z.output<typeof questionAction>;
export type ClientToolActionView = z.output<typeof clientToolAction>;
export type UrlActionView = z.output<typeof urlAction>;
export type ConversationView = z.output<typeof conversationView>;
export type MessageView = z.output<typeof messageView>;
