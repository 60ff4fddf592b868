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
  | { type: 'error-text'; value: string }
  /** Text and media side by side (an MCP tool's image, say); the model gets the media as media, not text. */
  | { type: 'content'; value: ToolContentPart[] };

/** One part of a `content` tool output. `data` is base64; in events it is left out and `bytes` says how big it was. */
export type ToolContentPart = { type: 'text'; text: string } | { type: 'media'; mediaType: string; data: string };

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
 * How an action was settled: `api` a person (over HTTP or a library call), `system` Heed itself (a new
 * message closed the pause, a branch), `timeout` a lapse, `remembered` a remembered approval, `link` a
 * person through a signed answer link (`resolvedBy` is then the link's recipient). Kept apart
 * from `resolvedBy`, the user id, so no user id can pass for the system or for an anonymous caller.
 */
export type ResolutionChannel = 'api' | 'system' | 'timeout' | 'remembered' | 'link' | 'slack';
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
  /** A regular expression (RE2 syntax) the whole value must match; answers checked by it are at most 1,000 characters. */
  pattern?: string;
  /**
   * Set by the server, never taken from the asker: the pattern is also safe to run with a
   * backtracking engine, so a form may check it as the person types. Others are checked by the server only.
   */
  patternBacktrackSafe?: boolean;
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
  // Set when the tool's `approval` policy asks for votes (docs/approvals.md); absent for a plain approval.
  /** Who may vote (named approvers, plus those added by escalation); absent: whoever may answer the conversation. */
  approvers?: string[];
  /** Distinct allows needed to approve. Its presence marks an approval decided by votes. */
  required?: number;
  /** `any`: one deny refuses; `majority`: see docs/approvals.md. */
  deny?: 'any' | 'majority';
  /** The conversation's owner may not vote (four eyes). */
  excludeRequester?: boolean;
  /** When (`at`) who (`to`) is added if no decision was reached; `escalatedAt` once done. */
  escalate?: { at: string; to: string[]; escalatedAt?: string };
  /** Votes so far, oldest first. */
  votes?: ApprovalVote[];
  /** The arguments first asked about, once a vote proposed others (`args` is then what is under vote). */
  originalArgs?: JsonValue;
}

/** One approver's answer to an approval decided by votes. */
export interface ApprovalVote {
  by: string;
  decision: 'allow' | 'deny';
  comment?: string;
  at: string;
  /** Arguments this vote proposed (an allow with `approvedArgs`): it cleared the allows given before. */
  args?: JsonValue;
  /** An allow given for arguments a later vote replaced: it no longer counts. */
  outdated?: true;
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
  /** For an approval decided by votes: every vote, the deciding one last. */
  votes?: ApprovalVote[];
};
export type QuestionResolution =
  { type: 'question'; answers: Record<string, string[]> } | { type: 'question'; skip: true; answers: Record<string, string[]> } | { type: 'question'; dismiss: true };
/** As stored: the page's output itself is never kept on the record, only its size. */
export type ClientToolResolution = { type: 'client_tool'; outputBytes: number } | { type: 'client_tool'; error: string };
export type UrlResolution = { type: 'url'; decision: 'accept' | 'decline' | 'cancel' };
export type CancelledResolution = { type: 'cancelled'; reason: string };
export type StoredResolution = ApprovalResolution | QuestionResolution | ClientToolResolution | UrlResolution | CancelledResolution;

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
  /** The user id of whoever settled it; null for an anonymous caller, the system and a lapse (see `channel`). */
  resolvedBy: string | null;
  /** How it was settled; null while pending. */
  channel: ResolutionChannel | null;
  resolvedAt: string | null;
  /** Question ids that took their default because the answer left them out. */
  defaulted: string[] | null;
}

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
