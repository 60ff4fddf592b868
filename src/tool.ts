import { z } from 'zod';
import { approvalPolicyProblems, type ApprovalPolicy } from './kinds/approval-policy.js';
import { clip } from './kinds/clip.js';
import { HeedError } from './errors.js';
import type { Caller } from './caller.js';
import type { JsonObject, JsonValue, ToolContentPart } from './protocol/values.js';
import type { RaisedRequest, StoredResolution } from './kinds/index.js';
import type { AskedQuestion } from './kinds/question.js';
import type { TypedAnswer } from './kinds/question/typed.js';

export type { TypedAnswer };

const CONTENT = Symbol('heed.toolContent');

/** What a tool returns to hand the model text and media parts (an image, say) instead of JSON. */
export interface ToolContent {
  readonly [CONTENT]: true;
  readonly parts: ToolContentPart[];
}

export function toolContent(parts: ToolContentPart[]): ToolContent {
  return { [CONTENT]: true, parts };
}

export function isToolContent(value: unknown): value is ToolContent {
  return typeof value === 'object' && value !== null && CONTENT in value;
}

/**
 * What a tool's `ctx.ask` resolves to. Answers are typed as each question asks (as an MCP server's form
 * gets them): a number for a `number` input, a boolean for a `boolean` one, a list of option values for a
 * multiple choice, else text (an option's value, a date as YYYY-MM-DD).
 */
export interface AskOutcome {
  /** The answers by question id, typed (defaults filled in); none when the person declined (`skipped`). */
  answers: Record<string, TypedAnswer>;
  /** True when the person declined (skipped, `pending.decline(note)`) or the ask lapsed: `answers` is then empty. */
  skipped: boolean;
  /** Question ids that took their default. */
  defaulted: string[];
  /** Why the person declined, when they said; the model also reads it after the tool's result. */
  note?: string;
}

export interface ApproveOutcome {
  approved: boolean;
  /** The arguments as approved: the person's edit (`approvedArgs`, checked against `argsSchema`), else those asked about. */
  args: JsonValue;
  /** The person's comment; on a deny it may be a JSON object. */
  comment?: string | JsonObject;
}

/** A request made with `ctx.askLive`. */
export type LiveRequest =
  | { kind: 'question'; preamble?: string; questions: AskedQuestion[]; expiresInMinutes?: number }
  | { kind: 'url'; url: string; title?: string; message?: string; expiresInMinutes?: number }
  /** A yes/no on what the tool is about to do; `args` is shown and may come back edited as `approvedArgs`. */
  | { kind: 'approval'; title: string; summary?: string; args?: JsonValue; expiresInMinutes?: number };

/** How a live request was settled. */
export interface LiveAnswer {
  status: 'resolved' | 'cancelled' | 'expired';
  resolution: StoredResolution | null;
  defaulted: string[];
}

/** Handed to a tool's `execute`. */
export interface ToolContext {
  conversationId: string;
  toolCallId: string;
  /** Equal to the tool call id: pass it to a side effect so a re-run after a crash has its effect once. */
  idempotencyKey: string;
  /** Who sent the message or answer that runs this turn (null for the system or an anonymous caller). */
  caller: Caller | null;
  /** False in a turn no person can answer in (a one-shot `send(…, { interactive: false })`). */
  interactive: boolean;
  abortSignal: AbortSignal;
  /**
   * Ask the person in the middle of the work. The turn pauses; on resume the tool runs again from the
   * top and this call returns the recorded answer (answers are journaled by call order).
   */
  ask(request: { preamble?: string; questions: AskedQuestion[]; expiresInMinutes?: number }): Promise<AskOutcome>;
  /**
   * Ask for a yes/no before doing something; journaled like `ask`. With `argsSchema` (zod, or a JSON Schema)
   * the person may edit `args`: the edit is checked against it (400 `invalid_approved_args` naming the
   * field) and comes back as the outcome's `args`.
   */
  approve(request: {
    title: string;
    summary?: string;
    args?: JsonValue;
    argsSchema?: z.ZodType | Record<string, unknown>;
    expiresInMinutes?: number;
    approval?: ApprovalPolicy<JsonValue | undefined>;
  }): Promise<ApproveOutcome>;
  /**
   * Ask while the tool keeps running, for work that cannot be re-run (an MCP server's request lives
   * on its connection). The turn pauses; the answer must reach this process: if it restarts while
   * the request waits, the tool call fails with an error the model reads.
   */
  askLive(request: LiveRequest): Promise<LiveAnswer>;
  /** Ask the person to open an http(s) address and say how it went. */
  openUrl(request: {
    url: string;
    title?: string;
    message?: string;
    expiresInMinutes?: number;
  }): Promise<'accept' | 'decline' | 'cancel'>;
  /**
   * Ask for an action of any kind a tool may raise (src/kinds/), written as that kind's request: like
   * `ask`, the turn pauses and the tool runs again once it is settled, when this returns how it ended.
   * `ask`, `approve` and `openUrl` are this with each kind's own shape of question and answer.
   */
  request(request: RaisedRequest & { expiresInMinutes?: number }): Promise<LiveAnswer>;
  /**
   * Names the conversation (its `title`, kept in `metadata.title`; at most 120 characters, on one
   * line), replacing any title it had. Stored with what the call leads to (its result, or the pause).
   */
  setTitle(title: string): void;
}

export interface ApprovalCheckContext {
  conversationId: string;
  caller: Caller | null;
}

/** A client tool call as its `access` check sees it. */
export interface ClientToolCall<Input> {
  caller: Caller | null;
  toolCallId: string;
  /** The arguments of the call (as `request.args`). */
  input: Input;
  /** The stored request: `args`, `clientKind`, `timeoutSeconds`, `originalArgs`. */
  request: { kind: 'client_tool'; args: unknown; clientKind: string; timeoutSeconds?: number; originalArgs?: unknown };
  conversationId: string;
  /** The assistant message that made the call. */
  messageId: string;
  /** The name of the conversation's agent. */
  agent: string;
  /** When the call was made (ISO 8601). */
  createdAt: string;
}

export interface ClientToolOptions<Input, Output> {
  /** Groups client tools by the kind of answer they need; non-empty. */
  kind: string;
  /** Extra check of who may answer (on top of who may continue the conversation). */
  access?: (context: ClientToolCall<Input>) => boolean | Promise<boolean>;
  /** Check the output against the stored input: true to accept, or a sentence explaining the refusal. */
  validate?: (context: { input: Input; output: Output }) => true | string;
  /** The page answers with an error after this; the server's own deadline is this + 30 s. */
  timeoutSeconds?: number;
}

export interface ToolDefinition<Input = any, Output = any> {
  description?: string;
  inputSchema: z.ZodType<Input>;
  /** Runs the tool on the server. A client tool has none. */
  execute?: (input: Input, context: ToolContext) => Output | Promise<Output>;
  /** Ask a person before every call (true) or before calls the predicate picks. */
  needsApproval?: boolean | ((input: Input, context: ApprovalCheckContext) => boolean | Promise<boolean>);
  /** Who decides and how many must agree (several approvers, four eyes, escalation); see docs/approvals.md. */
  approval?: ApprovalPolicy<Input>;
  /** Title of the approval card; defaults to "Run <tool>?". */
  approvalTitle?: string | ((input: Input) => string);
  /** One line saying what approving does. */
  approvalSummary?: string | ((input: Input) => string);
  outputSchema?: z.ZodType<Output>;
  /** Makes this a client tool: the browser page produces the output. */
  client?: ClientToolOptions<Input, Output>;
}

export type HeedTool<Input = any, Output = any> = ToolDefinition<Input, Output> & { readonly __heedTool: true };

/**
 * Defines a tool. A client tool has `client` and `outputSchema` and no `execute`.
 *
 * @example
 * ```ts
 * const refund = tool({
 *   description: 'Refund an order.',
 *   inputSchema: z.object({ orderId: z.number().int() }),
 *   needsApproval: true,
 *   execute: async ({ orderId }, ctx) => payments.refund({ orderId, idempotencyKey: ctx.idempotencyKey }),
 * });
 * ```
 */
export function tool<Input, Output = unknown>(definition: ToolDefinition<Input, Output>): HeedTool<Input, Output> {
  if (definition.client) {
    if (definition.execute) {
      throw new HeedError(
        'invalid_config',
        'A client tool has no execute: the page that embeds the chat produces its output.',
      );
    }
    if (!definition.outputSchema) {
      throw new HeedError('invalid_config', 'A client tool needs an outputSchema to check what the page sends back.');
    }
    if (!definition.client.kind) {
      throw new HeedError('invalid_config', 'A client tool needs a non-empty client.kind.');
    }
  }
  // tool() does not know the name its tool gets: its description says which one is meant.
  const which = definition.description ? `The tool "${clip(definition.description, 60)}"` : 'A tool';
  const problems = approvalPolicyProblems(definition.approval, 'approval');
  if (problems.length)
    throw new HeedError('invalid_config', `${which} has a malformed approval policy: ${problems.join(' ')}`, {
      details: { path: 'approval' },
    });
  if (definition.approval && !definition.needsApproval) {
    throw new HeedError(
      'invalid_config',
      `${which} has an approval policy but no needsApproval: approval: a tool with an approval policy needs needsApproval (true or a predicate).`,
      {
        details: { path: 'approval' },
      },
    );
  }
  return { ...definition, __heedTool: true };
}

export { argsJsonSchema, inputJsonSchema, jsonSchemaInput } from './kinds/json-schema.js';

/** The tools an agent offers, by name: all the rules of an action kind need to know of an agent. */
export interface AgentTools {
  readonly tools?: Readonly<Record<string, HeedTool>>;
}

/** Agents by name, as far as views need them (to show a tool's argument schema). */
export interface AgentDirectory {
  readonly agents: ReadonlyMap<string, AgentTools>;
}
