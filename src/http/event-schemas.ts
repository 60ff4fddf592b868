import { z } from 'zod';
import type { EventType } from '../types.js';

/*
 * The events of a conversation's log as the HTTP API shows them, one schema per type with the `data`
 * its writers record (src/agent/send.ts, run-turn.ts, turn.ts, tool-calls.ts; src/actions/settle.ts,
 * close-open.ts, cancel.ts, lapse.ts; src/notify/deliverer.ts). They describe, they do not validate:
 * the log is written by the engine, never parsed back with these. Until the typed protocol layer
 * (src/protocol/) exists, this file is the one place that says what each event carries.
 */

const json = z.unknown();
const isoTime = z.string().describe('ISO 8601 time, UTC');
const actionKind = z.enum(['approval', 'question', 'client_tool', 'url']);

const messageCreated = z.object({
  messageId: z.string(),
  role: z.enum(['user', 'assistant']),
  parts: z.array(z.record(z.string(), json)).optional().describe("A user's message: its parts as stored."),
  by: z.string().nullable().optional().describe("A user's message: the user id of who sent it; null for an anonymous caller."),
  intake: z.literal(true).optional().describe("The assistant message that asks the agent's intake questions."),
});

const turnStarted = z.object({
  trigger: z.enum(['message', 'answer', 'timeout', 'recovery']).describe('What started it: a new message, the answer that closed a pause, a lapse, or a takeover after a crash.'),
});

const textDelta = z.object({ messageId: z.string(), delta: z.string() });

const toolCalled = z.object({ messageId: z.string(), toolCallId: z.string(), toolName: z.string(), input: json });

const toolResult = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  isError: z.boolean(),
  output: json.optional().describe('The result as the model reads it.'),
  outputBytes: z.number().int().optional().describe("A client tool's answer: only its size (the output itself is never logged)."),
});

const actionRequired = z.object({ actionId: z.string(), kind: actionKind, toolCallId: z.string(), toolName: z.string() });

const actionResolved = z.object({
  actionId: z.string().optional().describe('Absent when a remembered approval let the call through (no action was raised).'),
  kind: actionKind,
  toolCallId: z.string(),
  toolName: z.string(),
  status: z.string().describe('How it ended: `approved`, `denied`, `resolved`, `cancelled`, `expired`, …'),
  resolvedBy: z.string().nullable(),
  channel: z.enum(['api', 'system', 'timeout', 'remembered', 'link', 'slack']),
  decision: z.enum(['allow', 'deny', 'accept', 'decline', 'cancel']).optional().describe('Approvals and URL requests.'),
  editedArgs: z.literal(true).optional().describe('The approval changed the arguments.'),
  remember: z.literal(true).optional(),
  remembered: z.literal(true).optional(),
  outputBytes: z.number().int().optional(),
  error: z.string().optional().describe("A client tool's error text."),
  cancelled: z.literal(true).optional(),
  expired: z.literal(true).optional(),
});

const turnPaused = z.object({ actionIds: z.array(z.string()) });

const warning = z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), json).optional() });
const turnCompleted = z.object({ warnings: z.array(warning).optional() });

const turnCancelled = z.object({
  reason: z.enum(['cancelled', 'action_expired']),
  by: z.string().nullable().optional().describe('Who cancelled (a user id; null for an anonymous caller).'),
});

const turnFailed = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

const deliveryFailed = z.object({
  deliveryId: z.string(),
  actionId: z.string(),
  event: z.string(),
  target: z.string().describe('The kind of target only (`webhook`, `email`), never its address.'),
  attempts: z.number().int(),
  error: z.string(),
});

/** A vote on an approval decided by votes (docs/approvals.md); the deciding one is followed by `action.resolved`. */
const actionVoted = z.object({
  actionId: z.string(),
  kind: z.literal('approval'),
  toolCallId: z.string(),
  toolName: z.string(),
  by: z.string(),
  decision: z.enum(['allow', 'deny']),
  comment: z.string().optional(),
  editedArgs: z.literal(true).optional().describe('The vote proposed new arguments: the allows before it stopped counting.'),
  allows: z.number().int(),
  denies: z.number().int(),
  required: z.number().int(),
  decides: z.boolean(),
});

const actionEscalated = z.object({
  actionId: z.string(),
  kind: z.literal('approval'),
  toolCallId: z.string(),
  toolName: z.string(),
  added: z.array(z.string()).describe('Approvers the escalation added.'),
  approvers: z.array(z.string()).describe('Everyone who may vote from now on.'),
});

/** The `data` of each event type. */
export const eventData = {
  'message.created': messageCreated,
  'turn.started': turnStarted,
  'text.delta': textDelta,
  'tool.called': toolCalled,
  'tool.result': toolResult,
  'action.required': actionRequired,
  'action.resolved': actionResolved,
  'action.voted': actionVoted,
  'action.escalated': actionEscalated,
  'turn.paused': turnPaused,
  'turn.completed': turnCompleted,
  'turn.cancelled': turnCancelled,
  'turn.failed': turnFailed,
  'delivery.failed': deliveryFailed,
} as const;

export type EventTypeName = keyof typeof eventData;

// Every event type of the log has its schema here, and nothing else does (a new type fails to compile until it is added).
export const coversEventTypes: [Exclude<EventType, EventTypeName>, Exclude<EventTypeName, EventType>] extends [never, never] ? true : false = true;

const pascal = (type: string) =>
  type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

function eventOf<T extends EventTypeName>(type: T) {
  return z.object({
    conversationId: z.string(),
    seq: z.number().int().describe('1, 2, 3… per conversation; also the SSE id.'),
    type: z.literal(type),
    data: eventData[type],
    at: isoTime,
  });
}

/** One schema per event type, named for the OpenAPI document (`MessageCreatedEvent`, …). */
export const eventSchemas = Object.fromEntries(
  (Object.keys(eventData) as EventTypeName[]).map((type) => [`${pascal(type)}Event`, eventOf(type)]),
) as Record<string, z.ZodObject>;

/** An event of the log: a union discriminated by `type`. */
export const eventRecord = z.discriminatedUnion(
  'type',
  Object.values(eventSchemas) as unknown as [ReturnType<typeof eventOf>, ...Array<ReturnType<typeof eventOf>>],
);
