import { z } from 'zod';
import { isoTime } from './values.js';

/*
 * What every action has, whatever its kind: the record's and the view's bookkeeping. Each kind of action
 * (src/kinds/<kind>.ts) adds its request and its answers to these; src/kinds/index.ts joins the kinds.
 */

export type ActionStatus = 'pending' | 'resolved' | 'cancelled' | 'expired';
export type TimeoutPolicy = 'deny' | 'cancel';
/**
 * The surface an answer came through (on the wire and in the store it is the field `channel`, kept so; in
 * code "channel" means a chat platform only). How an action was settled: `api` a person (over HTTP or a library call), `system` Heed itself (a new
 * message closed the pause, a branch), `timeout` a lapse (`resolvedBy` is then `system:timeout`),
 * `remembered` a remembered approval, `link` a person through a signed answer link (`resolvedBy` is then
 * the link's recipient). Kept apart from `resolvedBy`, so no user id can pass for the system, a lapse or
 * an anonymous caller.
 */
export type AnswerSurface = 'api' | 'system' | 'timeout' | 'remembered' | 'link' | ChannelPlatform;

/**
 * The chat platforms a conversation can live in (docs/channels.md): each one's name starts its
 * conversations' `channel` (`telegram:…`), names its endpoint and is the `channel` of answers given there.
 */
export const channelPlatforms = ['slack', 'teams', 'discord', 'telegram', 'github', 'linear', 'gchat'] as const;
/** A built-in platform's name, or the name of one added with `addChatPlatform` (docs/architecture.md). */
export type ChannelPlatform = (typeof channelPlatforms)[number] | (string & {});
/**
 * How the action came to be: a gated tool, the model's ask tool, the agent's intake, a tool's
 * ctx.ask/approve/openUrl/request (re-run on resume), or a tool's ctx.askLive (kept running in memory).
 */
export type ActionOrigin = 'tool' | 'ask' | 'intake' | 'ctx' | 'live';

/** The answer of an action withdrawn before anyone answered, whatever its kind. */
export type CancelledResolution = { type: 'cancelled'; reason: string };

/** An action as stored, with the request and answers of the kinds `K` (the union of all kinds: `ActionRecord` of src/types.ts). */
export interface ActionRecordOf<K extends string, Request, Resolution> {
  id: string;
  conversationId: string;
  /** The assistant message that asked. */
  messageId: string;
  toolCallId: string;
  toolName: string;
  kind: K;
  origin: ActionOrigin;
  /** For ctx.ask/approve: the call-order index within the tool call (answers are journaled by it). */
  journalIndex: number;
  status: ActionStatus;
  request: Request;
  createdAt: string;
  expiresAt: string | null;
  /** The lapse policy in force when the pause was taken. */
  onTimeout: TimeoutPolicy;
  resolution: Resolution | CancelledResolution | null;
  /**
   * The user id of whoever settled it; `system:timeout` for a lapse (DESIGN.md §4), whose `channel` is
   * `timeout`; null for an anonymous caller and the system (see `channel`).
   */
  resolvedBy: string | null;
  /**
   * Set when `resolvedBy` answered as someone's delegate (docs/approvals.md, Delegation): whom they answered
   * for. Absent otherwise.
   */
  answeredFor?: string;
  /** How it was settled; null while pending. */
  channel: AnswerSurface | null;
  resolvedAt: string | null;
  /** Question ids that took their default because the answer left them out. */
  defaulted: string[] | null;
  /**
   * When reminders are still to be sent before `expiresAt` (`hitl.remind`, docs/notifications.md), earliest
   * first; planned when the action is raised or extended, and each taken off by the sweep that sends it.
   * Absent or empty: none.
   */
  remindAt?: string[] | null;
}

export const answerSurface = z
  // A platform added with `addChatPlatform` is a surface too: its name is not in the list.
  .union([z.enum(['api', 'system', 'timeout', 'remembered', 'link', ...channelPlatforms]), z.string().min(1)])
  .describe(
    'How it was settled: `api` (a person), `system` (Heed closed it), `timeout` (it lapsed), `remembered`, `link` (a signed answer link; `resolvedBy` is its recipient), or the chat platform it was answered in (`slack`, `telegram`, …).',
  );

export const cancelledResolution = z.strictObject({ type: z.literal('cancelled'), reason: z.string() });

/** The view's fields every action has, before its kind's request; `resolution` is added per kind. */
export const actionViewBase = {
  id: z.string(),
  conversationId: z.string(),
  messageId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  status: z.enum(['pending', 'resolved', 'cancelled', 'expired']),
  createdAt: isoTime,
  expiresAt: isoTime.optional(),
  resolvedBy: z
    .string()
    .optional()
    .describe(
      'The user id of whoever settled it; `system:timeout` for a lapse (its `channel` is `timeout`); absent for an anonymous caller and the system.',
    ),
  answeredFor: z
    .string()
    .optional()
    .describe('Set when `resolvedBy` answered as the delegate of this user (`PUT /api/me/delegation`).'),
  channel: answerSurface.optional(),
  resolvedAt: isoTime.optional(),
  conversation: z
    .strictObject({
      agent: z.string(),
      title: z.string().nullable(),
      ownerId: z
        .string()
        .nullable()
        .describe('Who the conversation belongs to: whoever asked for what the action waits on.'),
    })
    .optional()
    .describe('In the inbox (`GET /api/inbox` and its stream): the conversation the action waits in.'),
  via: z
    .array(z.strictObject({ conversationId: z.string(), agent: z.string() }))
    .optional()
    .describe(
      "Listed in a parent conversation: the child conversations it waits in, nearest first (docs/concepts.md, Agents that call agents). Answer it through either conversation's action route.",
    ),
  onBehalfOf: z
    .string()
    .optional()
    .describe(
      'In the inbox: the person this waits on, whose delegation the caller holds (`PUT /api/me/delegation`); an answer is given for them.',
    ),
};

/** JSON Schema of a tool's arguments, in the view of a kind that shows them (an approval, a client tool). */
/** Who may answer a request made with `POST /api/requests` besides its caller (its `assignees`). */
export const assigneesField = z
  .array(z.string())
  .optional()
  .describe(
    'User ids who may answer besides whoever may answer the conversation (the `assignees` of `POST /api/requests`).',
  );

export const argsSchemaField = z
  .record(z.string(), z.unknown())
  .optional()
  .describe('JSON Schema of the arguments (a tool of the agent).');
