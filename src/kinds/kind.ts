import type { Caller } from '../caller.js';
import type { AgentTools } from '../tool.js';
import type { ResolutionInput } from '../protocol/resolution-input.js';
import type { ActionKind as KindName, ActionRecord, ActionRequest, StoredResolution, ToolOutput } from '../types.js';

/** How an answer reads in `action.resolved` events. */
export type ResolvedStatus = 'approved' | 'rejected' | 'answered' | 'skipped' | 'dismissed' | 'failed' | 'cancelled' | 'expired';

/** An action whose request is of kind `K`. */
export type KindAction<K extends KindName = KindName> = ActionRecord & { request: Extract<ActionRequest, { kind: K }> };

/** A request of kind `K`. */
export type KindRequest<K extends KindName = KindName> = Extract<ActionRequest, { kind: K }>;

/** A request as a running tool raises it, before its check: a question's questions are as the tool wrote them. */
export type RaisedRequest<K extends KindName = KindName> = K extends 'question' ? Omit<KindRequest<'question'>, 'questions'> & { questions: unknown } : KindRequest<K>;

/** An answer as a client sent it, once well formed and of kind `K`. */
export type KindAnswer<K extends KindName = KindName> = Extract<ResolutionInput, { type: K }>;

/** An answer once checked: what is stored, how the event reads it, and what the model will read if not the record. */
export interface CheckedResolution {
  stored: StoredResolution;
  eventStatus: ResolvedStatus;
  defaulted: string[] | null;
  /** For a client tool: the tool result the model will read (never kept on the record). */
  toolOutput?: ToolOutput;
  remember?: boolean;
}

/** What a lapse under `deny` answers on the person's behalf. */
export interface LapsedAnswer {
  resolution: StoredResolution;
  status: ResolvedStatus;
  defaulted: string[] | null;
  /** The tool result the model reads at once, when the kind's call gets one on lapse (a client tool's). */
  toolOutput?: ToolOutput;
}

/** The tool result the model reads for a call whose action is closed; `stop` ends the turn after it. */
export interface ModelReads {
  output: ToolOutput;
  stop?: boolean;
}

/** What checking an answer may look at besides the action: the agent's tools and the server's limits. */
export interface AnswerContext {
  agent: AgentTools | undefined;
  limits: { clientToolOutputBytes: number };
}

/** Who is answering, for a kind's own access rule: the caller and the conversation's agent's tools. */
export interface AccessContext {
  caller: Caller | null;
  agent: AgentTools | undefined;
}

/**
 * A tool part of a UI message (AI SDK) as the browser sent it, with its answer: `approval-responded`
 * with `approval`, `output-available` with `output`, or `output-error` with `errorText`.
 */
export type SentToolPart = Record<string, unknown> & { state: string };

/**
 * The rules of one kind of action, in one module (src/kinds/<kind>.ts) registered in src/kinds/index.ts.
 * Settling, lapsing and the AI SDK answers call only these; none switches on the kind.
 */
export interface ActionKind<K extends KindName = KindName> {
  readonly kind: K;
  /** Whether its view (src/views.ts) shows the tool's argument schema (`argsSchema`) beside the arguments under review. */
  readonly viewsToolArgs: boolean;
  /**
   * Checks a request a running tool raises (`ctx.ask`, `ctx.approve`, `ctx.askLive`, `ctx.openUrl`)
   * and gives it as stored; throws a 400 `invalid_request` saying what is wrong.
   */
  checkRequest(request: RaisedRequest<K>): KindRequest<K>;
  /**
   * The kind's own rule on who may answer, after those every action has (src/engine/settle.ts): throws a
   * 403 `action_forbidden` for a caller it refuses. Absent when the kind has none.
   */
  checkAccess?(action: KindAction<K>, context: AccessContext): Promise<void>;
  /** Checks an answer against what the action asked; throws a 400 `HeedError` naming what is wrong. */
  checkAnswer(answer: KindAnswer<K>, action: KindAction<K>, context: AnswerContext): CheckedResolution;
  /** What a lapse under `deny` answers. */
  lapse(action: KindAction<K>): LapsedAnswer;
  /**
   * What the model reads for a tool call whose action is closed (answered, lapsed or cancelled) and that
   * has no result yet; undefined when the call goes on to run (an allowed approval).
   */
  modelReads(action: KindAction<K>): ModelReads | undefined;
  /** The answer a browser's tool part stands for, as a resolution to check; undefined when it holds none for this kind. */
  answerFromUiPart(part: SentToolPart): Record<string, unknown> | undefined;
}
