/** Records Heed stores and returns. Timestamps are ISO 8601 strings in UTC. */

import type { ApprovalRequest, ApprovalResolution, ApprovalVote } from './kinds/approval.js';
import type { ActionRecord, KindName, KindRequest, StoredResolution } from './kinds/index.js';
import type { JsonObject, JsonValue, ToolContentPart, ToolOutput } from './protocol/values.js';

export type { JsonObject, JsonValue, ToolContentPart, ToolOutput };
export type {
  ActionOrigin,
  ActionStatus,
  CancelledResolution,
  AnswerSurface,
  TimeoutPolicy,
} from './protocol/action-base.js';
export type {
  AskedQuestion,
  InputType,
  Question,
  QuestionInput,
  QuestionOption,
  QuestionRequest,
} from './kinds/question.js';
export type { ActionRecord, ApprovalRequest, ApprovalResolution, ApprovalVote, StoredResolution };

export type ConversationStatus = 'idle' | 'running' | 'requires_action';

export interface ConversationRecord {
  id: string;
  agent: string;
  /** User id of the owner; null for an anonymous, ownerless conversation. */
  ownerId: string | null;
  /** Set when the conversation lives in a channel (e.g. a chat workspace thread): HTTP may not write it. */
  channel: string | null;
  status: ConversationStatus;
  /** Bumped by every write; writes that must agree compare-and-set on it. */
  version: number;
  metadata: JsonObject | null;
  createdAt: string;
  updatedAt: string;
  /** Earliest `expiresAt` of the open actions; null when nothing waits or nothing lapses. */
  actionDueAt: string | null;
  /** Who runs the turn now and until when (renewed while it runs); null when no turn runs. */
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  /** Model tokens spent so far (input + output), checked against `limits.maxTokensPerConversation`. */
  tokensUsed: number;
  /** Number of the last event appended; events are numbered 1, 2, 3… per conversation. */
  lastEventSeq: number;
  /** True once the agent's thread-start intake was asked in this conversation. */
  intakeDone: boolean;
  /**
   * Messages sent while a turn ran (`busyPolicy: 'queue'`), oldest first, each started once the turn before
   * it ends; absent when none waits. Only while `status` is `running`. Their text is in the event log.
   */
  queue?: QueuedMessage[];
}

/** A message waiting for the running turn to end; its text is the `message.queued` event numbered `seq`. */
export interface QueuedMessage {
  /** The id its user message will have. */
  id: string;
  seq: number;
  /** Who sent it: a user id, or null for an anonymous caller. */
  by: string | null;
  queuedAt: string;
}

export type MessagePart =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: JsonValue }
  | { type: 'tool-result'; toolCallId: string; toolName: string; output: ToolOutput };

export interface MessageMetadata {
  warnings?: TurnWarning[];
  /** Set on a synthetic assistant message that carries an intake's questions. */
  intake?: boolean;
  /** On a tool message: the arguments the call ran with when a person approved other ones than the model's (the model is sent the call with these). */
  approvedArgs?: JsonValue;
  /** On a tool message: what the model reads after the result (a declined question's note). */
  notes?: string[];
  /**
   * Set on a user message that ran the reply to an earlier one again (regenerate): that message's id, and
   * how many messages right before this one it replaces (that message and its reply), which stay in the
   * record but are no longer sent to the model or shown as the chat.
   */
  regenerates?: { messageId: string; count: number };
  /** Set on the assistant message (with no parts) that records a failed turn: why it failed. */
  failed?: { code: string; message: string };
  [key: string]: JsonValue | TurnWarning[] | undefined;
}

export interface MessageRecord {
  id: string;
  conversationId: string;
  /** Position in the conversation, 0-based, dense. */
  position: number;
  role: 'user' | 'assistant' | 'tool';
  parts: MessagePart[];
  metadata: MessageMetadata | null;
  createdAt: string;
}

export interface TurnWarning {
  code: 'pause_state_too_large' | 'tool_not_offered' | string;
  message: string;
  details?: JsonObject;
}

// ---------------------------------------------------------------- actions
// Each kind's request and answers are written once, as zod, in its module (src/kinds/<kind>.ts); these join them.

/** The name of a kind of action (`approval`, `question`, `client_tool`, `url`). */
export type ActionKind = KindName;
export type ActionRequest = KindRequest;
export type ClientToolRequest = KindRequest<'client_tool'>;
export type UrlRequest = KindRequest<'url'>;
export type QuestionResolution = Extract<StoredResolution, { type: 'question' }>;
export type ClientToolResolution = Extract<StoredResolution, { type: 'client_tool' }>;
export type UrlResolution = Extract<StoredResolution, { type: 'url' }>;

// ---------------------------------------------------------------- events

/** The type of an event of the log; the list is written once, in src/protocol/events.ts. */
export type { EventType } from './protocol/events.js';

/** An event of the log: a union discriminated by `type`, each with the data its type carries (src/protocol/events.ts). */
export type { EventRecord } from './protocol/events.js';

export interface RememberedTool {
  toolName: string;
  /** The user id of whoever said "remember"; null for an anonymous caller. */
  rememberedBy: string | null;
  rememberedAt: string;
}
