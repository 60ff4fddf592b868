import { z } from 'zod';
import { kinds, nonEmpty, type KindName } from '../kinds/index.js';
import type { JsonObject } from './values.js';
import { actionView, isoTime, answerSurface, warning } from './views.js';

/*
 * The events of a conversation's log, one schema per type with the `data` its writers record: the one
 * list of event types, their TypeScript types (z.infer), the builder every writer uses (`newEvent`) and
 * the check every reader narrows with (`isEvent`). The schemas describe, they do not validate at run
 * time: the log is written only through `newEvent`, so reading it back trusts the types and parses nothing.
 */

const json = z.unknown();
const actionKind = z.enum(nonEmpty(Object.keys(kinds) as KindName[]));

const messageCreated = z.object({
  messageId: z.string(),
  role: z.enum(['user', 'assistant']),
  parts: z.array(z.record(z.string(), json)).optional().describe("A user's message: its parts as stored."),
  by: z
    .string()
    .nullable()
    .optional()
    .describe("A user's message: the user id of who sent it; null for an anonymous caller."),
  intake: z.literal(true).optional().describe("The assistant message that asks the agent's intake questions."),
  queuedAt: isoTime
    .optional()
    .describe('A message that waited for the turn before it (`message.queued`): when it was sent.'),
  failed: z
    .literal(true)
    .optional()
    .describe('The assistant message that records a failed turn (no parts; its `metadata.failed` holds the error).'),
});

const messageQueued = z.object({
  messageId: z.string().describe('The id its user message has once its turn starts.'),
  parts: z.array(z.record(z.string(), json)).describe('Its parts, as they will be stored.'),
  by: z.string().nullable().describe('The user id of who sent it; null for an anonymous caller.'),
  position: z.number().int().min(1).describe('Its place in the queue: 1 runs next.'),
});

const messageDropped = z.object({
  messageId: z.string(),
  error: z
    .object({ code: z.string(), message: z.string() })
    .describe(
      'Why it will not run, as a new message would have been refused then (`action_pending`, `budget_reached`, …), or `cancelled`.',
    ),
});

const turnStarted = z.object({
  trigger: z
    .enum(['message', 'answer', 'timeout', 'recovery', 'queue', 'regenerate', 'child'])
    .describe(
      'What started it: a new message, the answer that closed a pause, a lapse, a takeover (after a crash, a lapsed lease, or a store outage), a message that waited for the turn before it, the last message sent again to make its reply again, or the end of the child conversation(s) its pause waited on.',
    ),
});

const textDelta = z.object({ messageId: z.string(), delta: z.string() });

const toolCalled = z.object({ messageId: z.string(), toolCallId: z.string(), toolName: z.string(), input: json });

const toolResult = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  isError: z.boolean(),
  output: json.optional().describe('The result as the model reads it.'),
  outputBytes: z
    .number()
    .int()
    .optional()
    .describe("A client tool's answer: only its size (the output itself is never logged)."),
});

const actionRequired = z.object({
  actionId: z.string(),
  kind: actionKind,
  toolCallId: z.string(),
  toolName: z.string(),
  action: actionView
    .optional()
    .describe('The action as it was asked (filled in when the log is read; not stored twice).'),
});

const actionResolved = z.object({
  actionId: z
    .string()
    .optional()
    .describe('Absent when a remembered approval let the call through (no action was raised).'),
  kind: actionKind,
  toolCallId: z.string(),
  toolName: z.string(),
  status: z.string().describe('How it ended: `approved`, `denied`, `resolved`, `cancelled`, `expired`, …'),
  summary: z
    .string()
    .optional()
    .describe(
      'How it ended in words, as the console and the inboxes say it: `Allowed`, `Denied ("not today")`, `Lapsed: nobody answered in time`.',
    ),
  resolvedBy: z.string().nullable(),
  answeredFor: z
    .string()
    .optional()
    .describe('Set when `resolvedBy` answered as the delegate of this user (`PUT /api/me/delegation`).'),
  channel: answerSurface,
  decision: z.enum(['allow', 'deny', 'accept', 'decline', 'cancel']).optional().describe('Approvals and URL requests.'),
  editedArgs: z.literal(true).optional().describe('The approval changed the arguments.'),
  remember: z.literal(true).optional(),
  remembered: z.literal(true).optional(),
  outputBytes: z.number().int().optional(),
  error: z.string().optional().describe("A client tool's error text."),
  ok: z
    .boolean()
    .optional()
    .describe('A client tool: whether the page produced an output (false for an error or a lapse).'),
  durationMs: z.number().int().optional().describe('A client tool: milliseconds from the request to its answer.'),
  cancelled: z.literal(true).optional(),
  expired: z.literal(true).optional(),
});

const turnPaused = z.object({ actionIds: z.array(z.string()) });

const childFields = {
  toolCallId: z.string().describe("The parent's call that started the child (`agent_<name>`)."),
  conversationId: z.string().describe('The child conversation.'),
  agent: z.string().describe("The child's agent."),
};

const childStarted = z.object(childFields);

const childPaused = z.object({
  ...childFields,
  actionIds: z.array(z.string()).describe("The child's pending actions (answerable through either conversation)."),
});

const childCompleted = z.object({
  ...childFields,
  status: z
    .enum(['completed', 'failed', 'cancelled'])
    .describe("How the child's work ended: its reply, or an error, is the call's result."),
});

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
  for: z.string().optional().describe("Set when `by` voted as this approver's delegate: it counts as their vote."),
  channel: answerSurface.optional().describe('Where the vote was given (`api`, `link`, a chat platform).'),
  decision: z.enum(['allow', 'deny']),
  comment: z
    .union([z.string(), z.record(z.string(), json)])
    .optional()
    .describe('Text; a deny may carry a JSON object.'),
  editedArgs: z
    .literal(true)
    .optional()
    .describe('The vote proposed new arguments: the allows before it stopped counting.'),
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

const actionExtended = z.object({
  actionId: z.string(),
  kind: actionKind,
  toolCallId: z.string(),
  toolName: z.string(),
  by: z.string().nullable().describe('Who extended it (null: an anonymous caller).'),
  channel: answerSurface.optional().describe('Where it was extended (`api` or `link`).'),
  minutes: z.number().describe('What was asked: the deadline is now this many minutes away (0: never lapses).'),
  previousExpiresAt: isoTime.nullable(),
  expiresAt: isoTime.nullable().describe('The new deadline; null: it never lapses.'),
});

const actionReminded = z.object({
  actionId: z.string(),
  kind: actionKind,
  toolCallId: z.string(),
  toolName: z.string(),
  expiresAt: isoTime.describe('When it lapses unless someone answers.'),
  minutesLeft: z.number().describe('Minutes from the reminder to the deadline.'),
});

/** The `data` of each event type. */
export const eventData = {
  'message.created': messageCreated,
  'message.queued': messageQueued,
  'message.dropped': messageDropped,
  'turn.started': turnStarted,
  'text.delta': textDelta,
  'tool.called': toolCalled,
  'tool.result': toolResult,
  'action.required': actionRequired,
  'action.resolved': actionResolved,
  'action.voted': actionVoted,
  'action.escalated': actionEscalated,
  'action.extended': actionExtended,
  'action.reminded': actionReminded,
  'turn.paused': turnPaused,
  'child.started': childStarted,
  'child.paused': childPaused,
  'child.completed': childCompleted,
  'turn.completed': turnCompleted,
  'turn.cancelled': turnCancelled,
  'turn.failed': turnFailed,
  'delivery.failed': deliveryFailed,
} as const;

/** The type of an event of the log: the keys of `eventData`, written nowhere else. */
export type EventType = keyof typeof eventData;

/** What an event of a given type carries. */
export type EventData<T extends EventType> = z.infer<(typeof eventData)[T]>;

/** An event to append, as a store keeps it (the store numbers it). */
export interface NewEvent {
  type: EventType;
  data: JsonObject;
  at: string;
}

/** An event to append, with the data its type carries. Every writer of the log goes through here. */
export function newEvent<T extends EventType>(type: T, at: string, data: EventData<T>): NewEvent {
  // Every schema above is JSON (the log is stored as JSON), so its data is a JsonObject.
  const value: object = data;
  return { type, at, data: value as JsonObject };
}

/** An event as read from the log, narrowed to one type: its data typed by that type's schema. */
export type LogEvent<T extends EventType> = {
  conversationId: string;
  seq: number;
  type: T;
  data: EventData<T> & { [key: string]: unknown };
  at: string;
};

/** An event of the log: a union discriminated by `type`, each with the data its type carries. */
export type EventRecord = { [T in EventType]: LogEvent<T> }[EventType];

/**
 * An event as a store reads it back. The log is written only through `newEvent`, so the data a stored
 * event holds is what its type carries; stores call this rather than cast.
 */
export function storedEvent(fields: {
  conversationId: string;
  seq: number;
  type: EventType;
  data: JsonObject;
  at: string;
}): EventRecord {
  return fields as EventRecord;
}

/** Whether an event read from the log is of `type`; narrows its data to what that type carries. */
export function isEvent<T extends EventType>(
  event: { type: string; data: JsonObject },
  type: T,
): event is LogEvent<T> & typeof event {
  return event.type === type;
}

const pascal = (type: string) =>
  type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

function eventOf<T extends EventType>(type: T) {
  return z.object({
    conversationId: z.string(),
    seq: z.number().int().describe('1, 2, 3… per conversation; also the SSE id.'),
    type: z.literal(type),
    data: eventData[type],
    at: isoTime,
  });
}

const eventTypes = Object.keys(eventData) as EventType[];
const [firstEvent, ...otherEvents] = eventTypes.map(eventOf);

/** One schema per event type, named for the OpenAPI document (`MessageCreatedEvent`, …). */
export const eventSchemas: Record<string, z.ZodObject> = Object.fromEntries(
  [firstEvent, ...otherEvents].map((schema, index) => [`${pascal(eventTypes[index])}Event`, schema]),
);

/** An event of the log: a union discriminated by `type`. */
export const eventRecord = z.discriminatedUnion('type', [firstEvent, ...otherEvents]);
