import type { JsonObject, JsonValue } from '../protocol/values.js';
import type { ApprovalPolicy } from '../kinds/approval-policy.js';
import type { AskedQuestion, ActionRecord, ConversationRecord, MessageRecord, StoredResolution } from '../types.js';

/**
 * What an agent that runs outside Heed's loop asks a person for: any kind's request as a tool raises it
 * with `ctx.request`. Heed checks it as it checks a tool's.
 *
 * @example
 * { kind: 'approval', title: 'Refund order 1042', toolName: 'refund', args: { orderId: '1042', amount: 30 } }
 */
export type HandlerActionRequest =
  | {
      kind: 'approval';
      title: string;
      summary?: string;
      /** Shown with the request; a person may send back edited ones as `approvedArgs`. */
      toolName?: string;
      args?: JsonValue;
      /** JSON Schema the edited arguments must satisfy; without it edited arguments are refused. */
      argsSchema?: JsonObject;
      /** Who decides and how many must agree (docs/approvals.md); over HTTP, approvers as lists of user ids. */
      approval?: ApprovalPolicy<JsonValue | undefined>;
      expiresInMinutes?: number;
    }
  | { kind: 'question'; preamble?: string; questions: AskedQuestion[]; expiresInMinutes?: number }
  | {
      kind: 'client_tool';
      toolName: string;
      /** The call's id as the agent knows it (1 to 128 of letters, digits, `_ . : -`); new in the conversation. */
      toolCallId?: string;
      /** What the call is for, in words. */
      title?: string;
      args: JsonValue;
      /** JSON Schema of `args`, shown with the call. */
      argsSchema?: JsonObject;
      timeoutSeconds?: number;
    }
  | { kind: 'url'; url: string; title?: string; message?: string; expiresInMinutes?: number };

/**
 * Where a handler may keep what it needs between calls, in Heed's own store (SQLite, PostgreSQL or memory):
 * values by scope and key. The framework adapters keep a LangGraph thread's checkpoints and an OpenAI Agents
 * run's state there.
 */
export interface HandlerValues {
  /** Every value of a scope, in key order. */
  listValues(scope: string): Promise<Array<{ key: string; value: string }>>;
  /** Writes values, replacing those with the same scope and key, all or none. */
  putValues(values: Array<{ scope: string; key: string; value: string }>): Promise<void>;
  /** Removes values of `scope`: the ones named by `keys`, or all of them. */
  deleteValues(scope: string, keys?: string[]): Promise<void>;
}

/** What `processMessage` and `resolveAction` return. `pendingActions` is the complete set still waiting. */
export interface HandlerReply {
  /** The assistant's reply text, recorded as an assistant message. */
  content?: string;
  pendingActions?: HandlerActionRequest[];
  metadata?: JsonObject;
}

export interface ProcessMessageInput {
  conversation: ConversationRecord;
  message: MessageRecord;
  signal: AbortSignal;
  /** Stable across a crash and retry of this same call: use it to make side effects happen once. */
  idempotencyKey: string;
  /** Heed's store, for what the handler keeps between calls. */
  values?: HandlerValues;
}

export interface ResolveActionInput {
  conversation: ConversationRecord;
  action: ActionRecord;
  /** The stored answer (an approval's `approvedArgs` already checked against its `argsSchema`). */
  resolution: StoredResolution;
  signal: AbortSignal;
  idempotencyKey: string;
  /** Heed's store, for what the handler keeps between calls. */
  values?: HandlerValues;
}

/**
 * An agent whose work is your own code: `processMessage` for each user message, `resolveAction` once per
 * settled action, in settling order.
 *
 * @example
 * const handler: AgentHandler = {
 *   processMessage: () => ({ pendingActions: [{ kind: 'approval', title: 'Deploy to production?' }] }),
 *   resolveAction: ({ resolution }) => ({ content: 'decision' in resolution ? resolution.decision : 'ok' }),
 * };
 */
export interface AgentHandler {
  processMessage(input: ProcessMessageInput): HandlerReply | Promise<HandlerReply>;
  resolveAction?(input: ResolveActionInput): HandlerReply | Promise<HandlerReply>;
  /**
   * Looks at an answer, already checked by its kind, before Heed records it: throwing a `HeedError` refuses
   * it (an `invalid_resolution` is a 400 with your sentence) and nothing is recorded. For answers the agent
   * cannot take, such as edited arguments its framework has no way to run.
   */
  checkAnswer?(input: CheckAnswerInput): void;
  /**
   * Whether a person may tick "remember" on its approvals (default true, unless `hitl.allowRememberApproval`
   * is false). Heed only passes `remember: true` on in `resolveAction`'s resolution: the handler acts on it.
   */
  remembersApprovals?: boolean;
}

export interface CheckAnswerInput {
  conversation: ConversationRecord;
  action: ActionRecord;
  /** The answer as Heed would store it. */
  resolution: StoredResolution;
}

/**
 * An agent that runs in another service: the same two calls as signed HTTP POSTs (Standard Webhooks).
 *
 * @example
 * { url: 'https://agents.internal.example/heed', secret: process.env.HEED_REMOTE_SECRET!, timeoutSeconds: 30 }
 */
export interface RemoteAgentConfig {
  url: string;
  /** A Standard Webhooks secret (`whsec_…`). */
  secret: string;
  /** The whole call, tries included (default 30). */
  timeoutSeconds?: number;
  /** The largest reply body taken, in bytes (default 1 MiB): a larger one fails the turn, read no further. */
  maxReplyBytes?: number;
}

/** The body Heed POSTs to a remote agent. */
export interface RemoteCallBody {
  type: 'message' | 'resolution';
  conversation: ConversationRecord;
  message?: MessageRecord;
  action?: ActionRecord;
  resolution?: StoredResolution;
  idempotencyKey: string;
}
