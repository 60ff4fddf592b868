import type { z } from 'zod';
import type { RaiseShape } from './raise.js';
import type { Caller } from '../caller.js';
import type { ActionRecordOf, actionViewBase, TimeoutPolicy } from '../protocol/action-base.js';
import type { JsonObject, JsonValue, ToolOutput } from '../protocol/values.js';
import type { AgentTools } from '../tool.js';

/*
 * One kind of action is one module, src/kinds/<kind>.ts, made with `defineKind` and registered in `kinds`
 * (src/kinds/index.ts): its wire shapes as zod (from which the unions of every kind's requests, answers
 * and views are built), its rules and how it reads to a person. Nothing else names the kind.
 */

type ObjectSchema = z.ZodObject<z.ZodRawShape, z.core.$ZodObjectConfig>;
type StoredShapes = readonly [ObjectSchema, ...ObjectSchema[]];

/** A kind's shapes on the wire, as zod. */
export interface KindWire<
  Req extends ObjectSchema = ObjectSchema,
  Ans extends ObjectSchema = ObjectSchema,
  Sto extends StoredShapes = StoredShapes,
  Extra extends z.ZodRawShape = z.ZodRawShape,
> {
  /** The request as stored on the action and shown, flattened, in its view: `kind` (a literal, the kind's name) and its own fields. */
  request: Req;
  /** What a client sends to answer it: `type` (the kind's name) and the answer's fields. */
  answer: Ans;
  /** The answer as the OpenAPI document shows it, when more precise than `answer` (a question's answers). */
  documentedAnswer?: ObjectSchema;
  /** The answer as stored, in one shape or several, each with `type`. */
  stored: Sto;
  /** Fields its view shows besides the request's (a tool's argument schema, the questions that took their default). */
  viewExtras?: Extra;
  /** Its name in the OpenAPI document's components: `Approval` gives `ApprovalAction` and `ApprovalResolution`. */
  docName: string;
}

/**
 * The view of an action whose request is `Request`, with extra view fields `Extra`, as its kind's
 * presentation reads it; the view clients get also has the `resolution` (src/kinds/index.ts).
 */
export type KindView<Request, Extra extends z.ZodRawShape = Record<never, never>> = z.output<
  z.ZodObject<typeof actionViewBase>
> &
  Request &
  // An object with no fields outputs `Record<string, never>`, which no view is.
  (keyof Extra extends never ? unknown : z.output<z.ZodObject<Extra>>);

/** The types of one kind (or, joined, of several): its request, answer, stored answer and view. */
export interface KindTypes {
  name: string;
  request: { kind: string };
  /** A request as a running tool raises it, before `checkRequest` (a question's questions are as the tool wrote them). */
  raised: { kind: string };
  answer: { type: string };
  stored: { type: string };
  view: { kind: string };
}

/** An action of the kind(s) `T`. */
export type KindAction<T extends KindTypes = KindTypes> = ActionRecordOf<T['name'], T['request'], T['stored']>;

/** How an answer reads in `action.resolved` events. */
export type ResolvedStatus =
  'approved' | 'rejected' | 'answered' | 'skipped' | 'dismissed' | 'failed' | 'cancelled' | 'expired';

/** An answer once checked: what is stored, how the event reads it, and what the model will read if not the record. */
export interface CheckedResolution<T extends KindTypes = KindTypes> {
  stored: T['stored'];
  eventStatus: ResolvedStatus;
  defaulted: string[] | null;
  /** For a client tool: the tool result the model will read (never kept on the record). */
  toolOutput?: ToolOutput;
  /** What the `tool.result` event logs in place of `toolOutput` (a client tool's output: only its size). Absent: the output itself. */
  loggedOutput?: { outputBytes: number };
  remember?: boolean;
}

/** What a lapse under `deny` answers on the person's behalf. */
export interface LapsedAnswer<T extends KindTypes = KindTypes> {
  resolution: T['stored'];
  status: ResolvedStatus;
  defaulted: string[] | null;
  /** The tool result the model reads at once, when the kind's call gets one on lapse (a client tool's). */
  toolOutput?: ToolOutput;
}

/** What an `action.resolved` event records of an answer, besides how it ended (its `status`). */
export interface ResolvedDetails {
  /** Approvals and URL requests: the answer's decision. */
  decision?: 'allow' | 'deny' | 'accept' | 'decline' | 'cancel';
  /** An approval that changed the arguments. */
  editedArgs?: true;
  /** An approval remembered for later calls of its tool. */
  remember?: true;
  /** A client tool's output: only its size (the output itself is never logged). */
  outputBytes?: number;
  /** A client tool's error text. */
  error?: string;
  /** A client tool: whether the page produced an output (false for an error, a lapse). */
  ok?: boolean;
  /** A client tool: milliseconds from the request to its answer. */
  durationMs?: number;
}

/** The tool result the model reads for a call whose action is closed; `stop` ends the turn after it. */
export interface ModelReads {
  output: ToolOutput;
  stop?: boolean;
  /** The call did not run, though the output is not an error text (a deny whose comment is an object): the log says so. */
  isError?: true;
}

/** What the agent's config changes in what the model reads. */
export interface ModelReadsOptions {
  /** `hitl.lapseMessage`: the sentence for a request nobody answered in time, instead of the kind's own. */
  lapseMessage?: string;
}

/** What checking an answer may look at besides the action: the agent's tools, the server's limits and its switches. */
export interface AnswerContext {
  agent: AgentTools | undefined;
  limits: { clientToolOutputBytes: number };
  /** `hitl.validateApprovedArgs` (the agent's, else the server's): false takes edited arguments unchecked. */
  validateApprovedArgs: boolean;
}

/** Who is answering, for a kind's own access rule: the caller and the conversation's agent's tools. */
export interface AccessContext {
  caller: Caller | null;
  agent: AgentTools | undefined;
  /** The name of the conversation's agent. */
  agentName: string;
}

/**
 * A tool part of a UI message (AI SDK) as the browser sent it, with its answer: `approval-responded`
 * with `approval`, `output-available` with `output`, or `output-error` with `errorText`.
 */
export type SentToolPart = Record<string, unknown> & { state: string };

/** How a kind's pending action reads as an AG-UI interrupt, and how a resume entry answers it (docs/ag-ui.md). */
export interface AgUiInterruptRules {
  /** The interrupt's `reason`: `tool_call` where a tool call waits on a decision or a result, `input_required` where a person is asked. */
  readonly reason: 'tool_call' | 'input_required';
  /**
   * The answer as the resume `payload` may also carry it, besides the kind's own answer (an approval's
   * `{ approved, editedArgs }`, as AG-UI clients send it). Absent: only the kind's own.
   */
  readonly alternativeAnswer?: ObjectSchema;
  /**
   * Whether a pending call of a tool the run itself offers (`RunAgentInput.tools`) is left to the client as
   * an AG-UI frontend tool call (`pendingToolCallIds`, answered by a `role: 'tool'` message) rather than
   * an interrupt. Absent: never.
   */
  readonly frontendTool?: boolean;
  /**
   * The answer a resume entry stands for, to check like any other: `cancelled` declines or dismisses it;
   * `resolved` reads its payload (with or without the kind's `type`). Anything it cannot read is passed on
   * for the answer check to refuse by name.
   */
  answerFromResume(status: 'resolved' | 'cancelled', payload: unknown): Record<string, unknown>;
}

/** The one-click answers an answer link offers: URLs of the answer page with a choice picked. */
export interface OneClickLinks {
  /** An approval's allow and deny (the page still asks to confirm). */
  allow?: string;
  deny?: string;
  /** A question's options: question id → option value → URL. */
  options?: Record<string, Record<string, string>>;
}

/**
 * An answer given with one press where only a button fits (a push notification's actions): its `key`
 * names the button, `answer` is what is sent as the answer link's `resolution`.
 */
export interface OneClickAnswer {
  key: string;
  label: string;
  answer: Record<string, unknown>;
}

/** The choice an answer link carried, as the answer page opens on it: nothing is sent until the person confirms. */
export interface OneClickChoice<T extends KindTypes = KindTypes> {
  /** The request as the card opens on it, the choice picked (a question's option selected in place of its defaults). */
  view: T['view'];
  /** What was chosen, as the message said it. */
  label: string;
  /** The answer the card asks to confirm, where its card marks one itself (an approval's `allow` or `deny`). */
  confirm?: string;
}

/** An answer a person gives with one press, where nothing of the kind's own renders it (the generic card). */
export interface Choice<T extends KindTypes = KindTypes> {
  label: string;
  answer: T['answer'];
  /** The choice to offer first. */
  primary?: boolean;
}

/** Approve all or Deny all, as the inboxes' batch answers (`POST /api/inbox/decisions`) name them. */
export type BatchDecision = 'approve' | 'deny';

/** What a batch's Approve all or Deny all sends for one request, or why it leaves the request out. */
export type BatchAnswer<T extends KindTypes = KindTypes> =
  | {
      answer: T['answer'];
      /** What runs once it is sent, in one line (a tool and its arguments); absent when nothing runs. */
      runs?: string;
    }
  | { refused: string };

/** One line of a request read in full: `strong` heads it, `dim` is said more quietly. */
export interface DetailLine {
  text: string;
  tone?: 'strong' | 'dim';
}

/**
 * How actions of a kind read to a person. Browsers load it too (src/react/), so a kind's module imports
 * nothing that only runs on a server at load time.
 */
export interface KindPresentation<T extends KindTypes = KindTypes> {
  /** The request in a few words, as a settled card heads it. */
  title(action: T['view']): string;
  /** What is asked, in one line, for a notification's subject (after the agent's name). */
  summary(action: T['view']): string;
  /** What the kind is called on screen (`Approval`, `Open URL`). Absent: its name. */
  readonly noun?: string;
  /**
   * What is asked, in one line, where the kind is already shown beside it (the terminal inbox's list):
   * the approval's title, the first question. Absent: its `summary`.
   */
  headline?(action: T['view']): string;
  /** How a settled request ended, in a few words (`Allowed`, `Skipped`…). */
  outcome(resolution: T['stored']): string;
  /**
   * How a settled request ended, in one line: its `outcome`, then what the answer said in brackets
   * (`Denied ("not today")`, `Answered (Size: Large; Quantity: 3)`). The terminal inbox, the console,
   * Slack and heed/react show it through `describeResolution` (src/kinds/index.ts), which says it for a
   * lapse or a withdrawal too. Absent: its `outcome`.
   */
  describeResolution?(action: T['view'], resolution: T['stored']): string;
  /** Whether the answer changed what was asked (an allow with edited arguments): a settled card then marks its title as what was asked. Absent: never. */
  changedByAnswer?(resolution: T['stored']): boolean;
  /** Who answers it when a person does not (a client tool: `the page`): settled cards say so in place of who answered. Absent: a person. */
  readonly answeredBy?: string;
  /**
   * The request in full, line by line, as a person reads it before answering (the terminal inbox's
   * detail pane): what it asks, then its arguments, questions or address. A line's text may hold newlines
   * (an argument's JSON). Absent: its `title` and `summary`.
   */
  detailLines?(action: T['view']): DetailLine[];
  /** How far a request decided by several answers has got, in one line (an approval's votes); undefined while one answer decides it. Absent: one answer always does. */
  progress?(action: T['view']): string | undefined;
  /** One line under the headline where a list shows it (the console's inbox): the tool and its arguments, the address. Absent or undefined: none. */
  detail?(action: T['view']): string | undefined;
  /** What a search of a list matches besides the kind, agent, tool, title and summary: arguments, questions and their options, the address. */
  searchText?(action: T['view']): Array<string | undefined>;
  /** Whether a person answers it through an answer link (src/notify/links.ts) and so gets it by mail. */
  readonly answeredByLink: boolean;
  /** The answer link's one-click choices for a request, on the answer page `page`. */
  oneClickLinks(request: T['request'], page: string): OneClickLinks;
  /**
   * The answers a notification's buttons may send at once, with no page to confirm on: an approval's
   * Allow and Deny, a lone single-choice question's options. Absent or empty: a tap opens the request.
   */
  oneClickAnswers?(action: T['view']): OneClickAnswer[];
  /**
   * The inverse of `oneClickLinks`: the choice an answer page's address carries (`?choice=deny`,
   * `?q=ship&v=no`), when it names one the request offers. Absent or undefined: none.
   */
  oneClickChoice?(action: T['view'], params: URLSearchParams): OneClickChoice<T> | undefined;
  /**
   * Whether its call's AI SDK tool part is an approval (`approval-requested` while it waits); the inverse
   * of the kind's `answerFromUiPart`.
   */
  readonly aiSdkApproval: boolean;
  /** The title of its call's AI SDK tool part, if the part has one. */
  aiSdkTitle(action: T['view']): string | undefined;
  /**
   * The answers a person may give with one press, offered where nothing of this kind's own shows it (the
   * generic card of heed/react, the terminal inbox). Absent: those say it cannot be answered there.
   */
  choices?(action: T['view']): Array<Choice<T>>;
  /**
   * The answer Approve all or Deny all of the inboxes sends for it (never remembered), or why it cannot
   * take that decision (a question cannot be approved). Absent: it is left out of every batch.
   */
  batch?(action: T['view'], decision: BatchDecision): BatchAnswer<T>;
}

/**
 * The rules of one kind of action. Settling, lapsing, a running tool's requests, the views and the AI SDK
 * answers call only these; none switches on the kind.
 */
export interface ActionKind<T extends KindTypes = KindTypes> {
  readonly kind: T['name'];
  readonly wire: KindWire;
  /**
   * Whether a running tool may ask for it with `ctx.request` (a client tool is raised only by a call to one),
   * and so a backend too (`POST /api/requests`, MCP).
   */
  readonly raisedByTools: boolean;
  /**
   * How it is written outside a running tool: by a backend, a handler or a remote agent (./raise.ts).
   * Absent: its stored request's own shape, with `expiresInMinutes`.
   */
  readonly raise?: RaiseShape<T['raised']>;
  /** Whether its view shows the tool's argument schema (`argsSchema`) beside the arguments under review. */
  readonly viewsToolArgs: boolean;
  /**
   * Whether a person can answer it in a chat thread (docs/channels.md). A thread's conversation takes
   * answers only from the thread, so where this is false (a client tool, which needs the app's web page)
   * the thread's turns do not offer the model the tools that raise it (seed 000). Absent: they can.
   */
  readonly answeredInThreads?: boolean;
  /**
   * Checks a request a running tool raises (`ctx.ask`, `ctx.approve`, `ctx.askLive`, `ctx.openUrl`, `ctx.request`)
   * and gives it as stored; throws a 400 `invalid_request` saying what is wrong.
   */
  checkRequest(request: T['raised']): T['request'];
  /**
   * The kind's own rule on who may answer, after those every action has (src/engine/settle.ts): throws a
   * 403 `action_forbidden` for a caller it refuses. Absent when the kind has none.
   */
  checkAccess?(action: KindAction<T>, context: AccessContext): Promise<void>;
  /** Checks an answer against what the action asked; throws a 400 `HeedError` naming what is wrong. */
  checkAnswer(answer: T['answer'], action: KindAction<T>, context: AnswerContext): CheckedResolution<T>;
  /** What a lapse under `deny` answers. */
  lapse(action: KindAction<T>): LapsedAnswer<T>;
  /**
   * The lapse policy its actions always take, whatever the agent's `onTimeout` (a client tool is always
   * answered with an error the model reads, and the agent carries on). Absent: the agent's.
   */
  readonly onTimeout?: TimeoutPolicy;
  /**
   * The answer that declines it with a person's note: the library's `pending.decline(note)`. Absent: the
   * kind has no decline of its own (the library then sends an approval's deny, which its check refuses).
   */
  decline?(note: string | JsonObject | undefined): T['answer'];
  /**
   * The answer that takes no value (seed 004): the library's `pending.answer()` with nothing. Absent: the kind's
   * answer needs a value (a question's `answer()` confirms its defaults through its own rule).
   */
  agree?(): T['answer'];
  /**
   * What the model reads after the result of a tool that asked this itself (`ctx.ask`…), when the answer
   * says more than the tool hears: a question declined with a note. Absent or undefined: nothing.
   */
  noteAfterResult?(action: KindAction<T>): string | undefined;
  /**
   * The arguments its call is sent to the model with once answered, when a person approved other ones
   * than the model's (a client tool raised after an approval with `approvedArgs`). Absent or undefined: the call's own.
   */
  ranWith?(action: KindAction<T>): JsonValue | undefined;
  /**
   * Minutes until an action of this kind lapses when whoever raised it named none (a client tool: its
   * `timeoutSeconds` plus 30 s). Absent, or undefined for a request: the agent's `hitl.timeoutMinutes`.
   */
  deadlineMinutes?(request: T['request']): number | undefined;
  /** What the `action.resolved` event records of an answer (an approval's decision…), settled at `at`. Absent: only how it ended. */
  resolvedDetails?(resolution: T['stored'], action: KindAction<T>, at: string): ResolvedDetails;
  /**
   * What the model reads for a tool call whose action is closed (answered, lapsed or cancelled) and that
   * has no result yet; undefined when the call goes on to run (an allowed approval).
   */
  modelReads(action: KindAction<T>, options?: ModelReadsOptions): ModelReads | undefined;
  /** The answer a browser's tool part stands for, as a resolution to check; undefined when it holds none for this kind. */
  answerFromUiPart(part: SentToolPart): Record<string, unknown> | undefined;
  /** How an AG-UI client (docs/ag-ui.md) sees a pending action of this kind as an interrupt, and answers it. */
  readonly agUi: AgUiInterruptRules;
  /**
   * The JSON Schema of an answer to this very action, narrower than the kind's (a question's options as
   * enums and typed inputs with their bounds; an approval's arguments as its `argsSchema`), so a client
   * that knows only the schema can draw and check the form (AG-UI's `responseSchema`). Absent: the kind's.
   */
  answerSchemaFor?(action: T['view']): Record<string, unknown>;
  /**
   * The A2A task state (docs/a2a.md) a pause on an action of this kind shows: `input_required` when the
   * caller itself answers it (the default), `auth_required` when a person decides elsewhere and the task goes on by itself.
   */
  readonly a2aPause?: 'input_required' | 'auth_required';
  readonly presentation: KindPresentation<T>;
  /** Type only, never set: the kind's types, read by src/kinds/index.ts to join every kind's. */
  readonly types?: T;
}

/** The types a kind's wire shapes give. */
export interface TypesOf<
  Req extends ObjectSchema,
  Ans extends ObjectSchema,
  Sto extends StoredShapes,
  Extra extends z.ZodRawShape,
  Raised,
> extends KindTypes {
  name: z.output<Req>['kind'] & string;
  request: z.output<Req> & { kind: string };
  raised: Raised & { kind: string };
  answer: z.output<Ans> & { type: string };
  stored: z.output<Sto[number]> & { type: string };
  view: KindView<z.output<Req>, Extra> & { kind: string };
}

/** A kind's rules and presentation as `defineKind(wire).rules` takes them, typed by its wire shapes. */
export type KindRules<T extends KindTypes> = Omit<ActionKind<T>, 'wire' | 'kind' | 'types' | 'checkRequest'> & {
  checkRequest(request: T['raised']): T['request'];
};

/** A kind made by `defineKind`: its rules, with its wire shapes typed. */
export type DefinedKind<
  Req extends ObjectSchema,
  Ans extends ObjectSchema,
  Sto extends StoredShapes,
  Extra extends z.ZodRawShape,
  Raised,
> = ActionKind<TypesOf<Req, Ans, Sto, Extra, Raised>> & { readonly wire: KindWire<Req, Ans, Sto, Extra> };

/**
 * Makes a kind: `defineKind(wire).rules({ … })`, registered in `kinds` (src/kinds/index.ts). In two steps
 * so that the rules are typed by the wire shapes, never read as the source of those types. A kind whose
 * running tools raise requests in a looser shape than it stores (a question's questions, checked by
 * `checkRequest`) writes that shape as `checkRequest`'s parameter type.
 */
export function defineKind<
  Req extends ObjectSchema,
  Ans extends ObjectSchema,
  Sto extends StoredShapes,
  Extra extends z.ZodRawShape = Record<never, never>,
>(wire: KindWire<Req, Ans, Sto, Extra>) {
  // The request's `kind` is a literal (KindWire), the kind's name.
  const kind = (wire.request.shape.kind as z.ZodLiteral<string>).value;
  return {
    rules<Raised = z.output<Req>>(
      rules: Omit<KindRules<TypesOf<Req, Ans, Sto, Extra, z.output<Req>>>, 'raise'> & {
        checkRequest(request: Raised): z.output<Req>;
        raise?: RaiseShape<Raised>;
      },
    ): DefinedKind<Req, Ans, Sto, Extra, Raised> {
      return { ...rules, wire, kind } as DefinedKind<Req, Ans, Sto, Extra, Raised>;
    },
  };
}
