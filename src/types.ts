/** Records Heed stores and returns. Timestamps are ISO 8601 strings in UTC. */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

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
}

export type ToolOutput =
  | { type: 'json'; value: JsonValue }
  | { type: 'text'; value: string }
  | { type: 'error-text'; value: string };

export type MessagePart =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: JsonValue }
  | { type: 'tool-result'; toolCallId: string; toolName: string; output: ToolOutput };

export interface MessageMetadata {
  warnings?: TurnWarning[];
  /** Set on a synthetic assistant message that carries an intake's questions. */
  intake?: boolean;
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

export type ActionKind = 'approval' | 'question' | 'client_tool' | 'url';
export type ActionStatus = 'pending' | 'resolved' | 'cancelled' | 'expired';
export type TimeoutPolicy = 'deny' | 'cancel';
/**
 * How the action came to be: a gated tool, the model's ask tool, the agent's intake, a tool's
 * ctx.ask/approve/openUrl (re-run on resume), or a tool's ctx.askLive (kept running in memory).
 */
export type ActionOrigin = 'tool' | 'ask' | 'intake' | 'ctx' | 'live';

export interface QuestionOption {
  value: string;
  label: string;
  description?: string;
  /** A code block or sketch shown while the option is focused. */
  preview?: string;
  hotkey?: string;
}

export type InputType = 'text' | 'textarea' | 'number' | 'boolean' | 'date' | 'email' | 'url' | 'select';

export interface QuestionInput {
  type: InputType;
  /** Smallest number, shortest text, or earliest YYYY-MM-DD. */
  min?: number | string;
  /** Largest number, longest text, or latest YYYY-MM-DD. */
  max?: number | string;
  /** A regular expression the whole value must match. */
  pattern?: string;
  required?: boolean;
  placeholder?: string;
}

export interface Question {
  id: string;
  /** 1–30 characters, unique in the action. */
  header: string;
  prompt: string;
  description?: string;
  options?: QuestionOption[];
  multiple?: boolean;
  /** Free text besides the options; allowed unless false. */
  custom?: boolean;
  input?: QuestionInput;
  /** Pre-picked answers, canonical strings. */
  defaults?: string[];
}

export interface ApprovalRequest {
  kind: 'approval';
  args: JsonValue;
  title: string;
  summary: string;
  /** False for a tool gated by a predicate: such approvals are never remembered. */
  canRemember: boolean;
}
export interface QuestionRequest {
  kind: 'question';
  preamble?: string;
  questions: Question[];
}
export interface ClientToolRequest {
  kind: 'client_tool';
  args: JsonValue;
  clientKind: string;
  timeoutSeconds?: number;
}
export interface UrlRequest {
  kind: 'url';
  url: string;
  title?: string;
  message?: string;
}
export type ActionRequest = ApprovalRequest | QuestionRequest | ClientToolRequest | UrlRequest;

export type ApprovalResolution = {
  type: 'approval';
  decision: 'allow' | 'deny';
  comment?: string;
  approvedArgs?: JsonValue;
  remember?: boolean;
};
export type QuestionResolution =
  | { type: 'question'; answers: Record<string, string[]> }
  | { type: 'question'; skip: true; answers: Record<string, string[]> }
  | { type: 'question'; dismiss: true };
/** As stored: the page's output itself is never kept on the record, only its size. */
export type ClientToolResolution =
  | { type: 'client_tool'; outputBytes: number }
  | { type: 'client_tool'; error: string };
export type UrlResolution = { type: 'url'; decision: 'accept' | 'decline' | 'cancel' };
export type CancelledResolution = { type: 'cancelled'; reason: string };
export type StoredResolution =
  | ApprovalResolution
  | QuestionResolution
  | ClientToolResolution
  | UrlResolution
  | CancelledResolution;

export interface ActionRecord {
  id: string;
  conversationId: string;
  /** The assistant message that asked. */
  messageId: string;
  toolCallId: string;
  toolName: string;
  kind: ActionKind;
  origin: ActionOrigin;
  /** For ctx.ask/approve: the call-order index within the tool call (answers are journaled by it). */
  journalIndex: number;
  status: ActionStatus;
  request: ActionRequest;
  createdAt: string;
  expiresAt: string | null;
  /** The lapse policy in force when the pause was taken. */
  onTimeout: TimeoutPolicy;
  resolution: StoredResolution | null;
  resolvedBy: string | null;
  resolvedAt: string | null;
  /** Question ids that took their default because the answer left them out. */
  defaulted: string[] | null;
}

// ---------------------------------------------------------------- events

export type EventType =
  | 'message.created'
  | 'turn.started'
  | 'text.delta'
  | 'tool.called'
  | 'tool.result'
  | 'action.required'
  | 'action.resolved'
  | 'turn.paused'
  | 'turn.completed'
  | 'turn.cancelled'
  | 'turn.failed';

export interface EventRecord {
  conversationId: string;
  /** 1, 2, 3… per conversation, without gaps. */
  seq: number;
  type: EventType;
  data: JsonObject;
  at: string;
}

export interface RememberedTool {
  toolName: string;
  rememberedBy: string;
  rememberedAt: string;
}
