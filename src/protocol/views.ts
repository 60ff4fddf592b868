import { z } from 'zod';
import { allKinds, joined, nonEmpty, type ActionKind, type ActionView, type ActionViewOf } from '../kinds/index.js';
import { actionViewBase, cancelledResolution } from './action-base.js';
import { isoTime, json, jsonValue } from './values.js';

/*
 * What the HTTP API and the library return for conversations, messages and actions, as zod: the one
 * description the TypeScript types (z.output), the OpenAPI document (src/http/openapi.ts) and the route
 * tests (which parse real responses with them) share. Objects are strict: a field the server sends
 * that is not written here fails those tests.
 */

export { isoTime, json } from './values.js';
export { answerSurface } from './action-base.js';
export { question } from '../kinds/question/wire.js';
export { conversationStatus, conversationView, type ConversationView } from './conversation.js';

export const warning = z.strictObject({
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), jsonValue).optional(),
});

/** An answer as stored, of any kind (a client tool keeps only the size of its output), or a withdrawal. */
export const storedResolution = z.union(
  nonEmpty([...allKinds().flatMap((kind) => kind.wire.stored), cancelledResolution]),
);

/** The view of an action of one kind: the bookkeeping every action has, then the kind's request and view fields (src/kinds/<kind>.ts). */
function kindView(kind: ActionKind) {
  const { request, viewExtras } = kind.wire;
  return z.strictObject({
    kind: request.shape.kind,
    ...actionViewBase,
    resolution: storedResolution.optional().describe('As stored; a client tool keeps only `outputBytes`.'),
    ...request.shape,
    ...viewExtras,
  });
}

/** Each kind's view, by the name the OpenAPI document gives it (`ApprovalAction`…). */
export const kindViews = Object.fromEntries(allKinds().map((kind) => [`${kind.wire.docName}Action`, kindView(kind)]));

/** A request waiting on (or answered by) a person: a union discriminated by `kind`. */
export const actionView = joined<ActionView>(z.discriminatedUnion('kind', nonEmpty(Object.values(kindViews))));

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
      approvedArgs: jsonValue
        .optional()
        .describe(
          'A tool message: the arguments the call ran with, when a person approved other ones than the model asked for (the model is sent its call with these).',
        ),
      notes: z
        .array(z.string())
        .optional()
        .describe("A tool message: what the model reads after the result (a declined question's note)."),
      regenerates: z
        .strictObject({ messageId: z.string(), count: z.number().int() })
        .optional()
        .describe(
          'A user message sent again to make its reply again (regenerate): the message it repeats, and how many messages right before this one it replaces (that message and its reply), which stay in the record but are no longer sent to the model.',
        ),
      failed: z
        .strictObject({ code: z.string(), message: z.string() })
        .optional()
        .describe(
          'On the assistant message (with no parts) that records a failed turn: why it failed, as the `turn.failed` event says.',
        ),
      actions: z.array(actionView).optional(),
      requiresAction: z.boolean().optional(),
    })
    .catchall(json)
    .optional()
    .describe(
      'On the message that asked: every request it made and how each ended; `requiresAction` while any is open.',
    ),
});

/** An action as clients see it: the request's fields flattened beside the bookkeeping (its type is joined from the kinds', src/kinds/index.ts). */
export type { ActionView, ActionViewOf };
export type ApprovalActionView = ActionViewOf<'approval'>;
export type QuestionActionView = ActionViewOf<'question'>;
export type ClientToolActionView = ActionViewOf<'client_tool'>;
export type UrlActionView = ActionViewOf<'url'>;
export type MessageView = z.output<typeof messageView>;
