import { ASK_TOOL_NAME, checkQuestions } from '../../kinds/question.js';
import { kindOf } from '../../kinds/index.js';
import { DISMISSED } from '../../kinds/refusal.js';
import { policyFields } from '../../kinds/approval-policy.js';
import { newAction } from '../new-action.js';
import { sameJson } from '../../kinds/approved-args.js';
import { earliestDue } from '../engine.js';
import { HeedError, must } from '../../errors.js';
import { isToolContent, type HeedTool } from '../../tool.js';
import { conversationView } from '../../views.js';
import type {
  ActionRecord,
  ConversationRecord,
  JsonValue,
  MessageRecord,
  ToolOutput,
  TurnWarning,
} from '../../types.js';
import { INTAKE_TOOL_NAME } from './prompt.js';
import { LiveCall } from './live-call.js';
import { eventToolOutput } from './tool-output.js';
import { AskSignal, DismissSignal, toolContext } from './tool-context.js';
import type { Turn } from './turn.js';
import { keepPauseSpan } from '../pause-trace.js';
import type { LoggedOutput } from '../tool-result.js';
import { childAgentOf } from '../children.js';
import { childBudget, settleChildCall, type ChildBudget } from './child-call.js';
import { childRecheckAt } from '../children.js';

export type StepOutcome = 'continue' | 'paused' | 'stop';

type Call = { toolCallId: string; toolName: string; input: JsonValue };
/** A call's result, and what its tool message keeps besides: the arguments a person approved, notes the model reads after it. */
type Result = {
  result: ToolOutput;
  stop?: boolean;
  isError?: true;
  eventOutput?: LoggedOutput;
  approvedArgs?: JsonValue;
  notes?: string[];
  warnings?: TurnWarning[];
};
type CallOutcome = Result | { ask: ActionRecord } | { waiting: ChildWait };
type ChildWait = { toolCallId: string; child: ConversationRecord };

/**
 * Settles the tool calls of the latest assistant message that have no stored result: runs the ones
 * that may run, turns answered actions into results, and gathers new actions into one pause.
 */
export async function settleStepCalls(turn: Turn, assistant: MessageRecord): Promise<StepOutcome> {
  const calls = assistant.parts.filter(
    (part): part is Extract<typeof part, { type: 'tool-call' }> => part.type === 'tool-call',
  );
  const done = new Set<string>();
  for (const message of turn.messages) {
    if (message.position <= assistant.position) continue;
    for (const part of message.parts) if (part.type === 'tool-result') done.add(part.toolCallId);
  }
  const actions = (await turn.actions()).filter((action) => action.messageId === assistant.id);
  const clientStep = calls.some((call) => turn.agent.tools?.[call.toolName]?.client);

  let stop = false;
  const asks: ActionRecord[] = [];
  const waiting: ChildWait[] = [];
  const budget = childBudget(turn, assistant);
  for (const call of calls) {
    if (done.has(call.toolCallId)) continue;
    const mine = actions.filter((action) => action.toolCallId === call.toolCallId);
    const outcome = await settleCall(turn, assistant, call, mine, clientStep, budget);
    if ('ask' in outcome) {
      asks.push(outcome.ask);
    } else if ('waiting' in outcome) {
      waiting.push(outcome.waiting);
    } else {
      turn.addToolResult(call, outcome.result, outcome.eventOutput, {
        approvedArgs: outcome.approvedArgs,
        notes: outcome.notes,
        isError: outcome.isError,
        warnings: outcome.warnings,
      });
      // A limit's warning reaches the turn's result once, however many calls it refused.
      for (const warning of outcome.warnings ?? [])
        if (!turn.warnings.some((kept) => kept.code === warning.code)) turn.warnings.push(warning);
      if (outcome.stop) stop = true;
    }
  }
  if (waiting.length > 0) {
    // A child still open: the parent's turn pauses on it, with whatever this step asked a person itself.
    await pause(turn, assistant, asks, waiting);
    return 'paused';
  }
  if (asks.length > 0) return (await pause(turn, assistant, asks)) ? 'paused' : 'stop';
  return stop ? 'stop' : 'continue';
}

async function settleCall(
  turn: Turn,
  assistant: MessageRecord,
  call: Call,
  mine: ActionRecord[],
  clientStep: boolean,
  budget: ChildBudget,
): Promise<CallOutcome> {
  const agent = turn.agent;
  if (call.toolName === INTAKE_TOOL_NAME || (call.toolName === ASK_TOOL_NAME && agent.ask)) {
    return settleQuestionCall(turn, assistant, call, mine);
  }
  const childAgent = childAgentOf(agent, call.toolName);
  if (childAgent !== undefined) return settleChildCall(turn, call, childAgent, budget);
  const definition = agent.tools?.[call.toolName];
  if (!definition) return error(`There is no tool named "${call.toolName}".`);
  if (typeof call.input === 'string') return error('The tool input is not valid JSON.');

  if (definition.client) {
    const action = mine.find((entry) => entry.kind === 'client_tool');
    if (action) return answeredResult(turn, action);
    if (!turn.offers('client_tool'))
      return error(`"${call.toolName}" needs the web page, which is not available here. Go on without it.`);
    const parsed = definition.inputSchema.safeParse(call.input);
    if (!parsed.success)
      return error(
        `Invalid input for ${call.toolName}: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`,
      );
    // Approval still applies first (seed 002): the page is asked only once a person allowed the call, with the arguments they approved.
    const gate = await approvalGate(turn, assistant, call, definition, parsed.data, mine);
    if (!('allowed' in gate)) return gate;
    const approved = gate.allowed.approvedArgs;
    const edited = approved !== undefined;
    return {
      ask: newAction(turn, {
        origin: 'tool',
        messageId: assistant.id,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        request: {
          kind: 'client_tool',
          args: edited ? approved : call.input,
          clientKind: definition.client.kind,
          timeoutSeconds: definition.client.timeoutSeconds,
          ...(edited ? { originalArgs: call.input } : {}),
        },
      }),
    };
  }

  if (clientStep && mine.length === 0) {
    return error(
      `Skipped: this step also asked the page to run a client tool. Call ${call.toolName} again once that result is in.`,
    );
  }

  const parsed = definition.inputSchema.safeParse(call.input);
  if (!parsed.success) {
    return error(
      `Invalid input for ${call.toolName}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('; ')}`,
    );
  }
  const gate = await approvalGate(turn, assistant, call, definition, parsed.data, mine);
  if (!('allowed' in gate)) return gate;
  const outcome = await execute(turn, assistant, call, definition, gate.allowed.input, mine);
  // The model is sent its call with the arguments it ran with (src/engine/turn/prompt.ts).
  return 'result' in outcome && gate.allowed.approvedArgs !== undefined
    ? { ...outcome, approvedArgs: gate.allowed.approvedArgs }
    : outcome;
}

/**
 * The approval a call needs before it runs (or before the page is asked): raised now; a refusal the model
 * reads; or allowed, with the input to run with (the person's edit, when it differs from the model's).
 */
async function approvalGate(
  turn: Turn,
  assistant: MessageRecord,
  call: Call,
  definition: HeedTool,
  input: unknown,
  mine: ActionRecord[],
): Promise<CallOutcome | { allowed: { input: unknown; approvedArgs?: JsonValue } }> {
  const approval = mine.find((entry) => entry.kind === 'approval' && entry.origin === 'tool');
  if (!approval) {
    const gate = definition.needsApproval;
    const gated =
      typeof gate === 'function'
        ? await gate(input, { conversationId: turn.conversation.id, caller: turn.caller })
        : gate === true;
    if (!gated) return { allowed: { input } };
    // A predicate decides per call, so its approvals are never remembered; `hitl.allowRememberApproval: false` turns memory off.
    const canRemember = typeof gate !== 'function' && turn.engine.setting(turn.agent, 'allowRememberApproval');
    const remembered = canRemember && (await turn.rememberedTools()).some((entry) => entry.toolName === call.toolName);
    if (!remembered) return { ask: await approvalAction(turn, assistant, call, definition, input, canRemember) };
    turn.event('action.resolved', {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      kind: 'approval',
      status: 'approved',
      resolvedBy: null,
      channel: 'remembered',
      remembered: true,
    });
    return { allowed: { input } };
  }
  const refused = closedResult(turn, approval);
  if (refused) return refused;
  const resolution = approval.resolution;
  if (
    resolution?.type !== 'approval' ||
    resolution.approvedArgs === undefined ||
    sameJson(resolution.approvedArgs, call.input)
  )
    return { allowed: { input } };
  const edited = definition.inputSchema.safeParse(resolution.approvedArgs);
  if (!edited.success) {
    // Taken unchecked (`hitl.validateApprovedArgs: false`) and refused by the tool: never run the model's own arguments instead.
    const problems = edited.error.issues
      .map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`)
      .join('; ');
    return error(`The approved arguments are not accepted by ${call.toolName} (${problems}), so it did not run.`);
  }
  return { allowed: { input: edited.data, approvedArgs: resolution.approvedArgs } };
}

async function execute(
  turn: Turn,
  assistant: MessageRecord,
  call: Call,
  definition: HeedTool,
  input: unknown,
  mine: ActionRecord[],
): Promise<CallOutcome> {
  if (!definition.execute) return error(`${call.toolName} has no implementation on the server.`);
  const engine = turn.engine;
  let live = engine.liveCalls.get(call.toolCallId);
  let state: { signal?: AskSignal } = {};
  let outcome: Awaited<ReturnType<LiveCall['next']>>;
  if (live) {
    // The tool kept running while it waited: hand it the answer it was waiting for.
    const waiting = live.waiting?.index;
    const answered = mine.find((entry) => entry.origin === 'live' && entry.journalIndex === waiting);
    if (answered) live.answer(answered);
    outcome = await live.next();
  } else {
    if (mine.some((entry) => entry.origin === 'live')) {
      return error(
        `${call.toolName} was waiting for an answer when the server restarted, and that request cannot be resumed. Call the tool again if it is still needed.`,
      );
    }
    // What came before must be durable before a side effect happens.
    await turn.flush();
    live = new LiveCall();
    const made = toolContext(
      turn,
      call,
      mine.filter((entry) => entry.origin === 'ctx'),
      live,
    );
    state = made.state;
    const tool = definition.execute;
    const running = live;
    // The span covers the tool's run until it returns, fails or waits for an answer; what it sends carries it.
    outcome = await engine.tracing.span(
      'heed.tool',
      { 'heed.tool.name': call.toolName, 'heed.tool.call_id': call.toolCallId },
      async () => {
        running.start(() => tool(input, made.context));
        return running.next();
      },
    );
  }
  // What the person's answers to this tool's own requests say beyond what the tool hears (a declined question's note).
  const notes = afterResult(mine);
  if ('ask' in outcome) {
    engine.liveCalls.set(call.toolCallId, live);
    return {
      ask: newAction(turn, {
        origin: 'live',
        messageId: assistant.id,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        journalIndex: outcome.index,
        request: outcome.ask,
        expiresInMinutes: outcome.expiresInMinutes,
      }),
    };
  }
  engine.liveCalls.delete(call.toolCallId);
  if ('error' in outcome) {
    const thrown = outcome.error;
    if (thrown instanceof DismissSignal) return { result: { type: 'error-text', value: DISMISSED }, stop: true, notes };
    if (!(thrown instanceof AskSignal) && !state.signal) {
      const message = thrown instanceof Error ? thrown.message : String(thrown);
      return { ...error(`${call.toolName} failed: ${message}`), notes };
    }
  }
  // A tool that swallowed the signal in its own try/catch still waits for the answer.
  if (state.signal) {
    return {
      ask: newAction(turn, {
        origin: 'ctx',
        messageId: assistant.id,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        journalIndex: state.signal.journalIndex,
        request: state.signal.request,
        expiresInMinutes: state.signal.expiresInMinutes,
      }),
    };
  }
  const value = (outcome as { value: unknown }).value;
  if (isToolContent(value)) {
    const result: ToolOutput = { type: 'content', value: value.parts };
    return { result, eventOutput: eventToolOutput(result), notes };
  }
  return { result: { type: 'json', value: toJson(value) }, notes };
}

/** The notes of a tool's answered requests the model reads after the tool's result, by each request's kind. */
function afterResult(asked: ActionRecord[]): string[] {
  return asked
    .filter((action) => action.origin === 'ctx' || action.origin === 'live')
    .sort((a, b) => a.journalIndex - b.journalIndex)
    .flatMap((action) => kindOf(action.kind).noteAfterResult?.(action) ?? []);
}

function settleQuestionCall(turn: Turn, assistant: MessageRecord, call: Call, mine: ActionRecord[]): CallOutcome {
  const action = mine.find((entry) => entry.kind === 'question');
  if (action) {
    return answeredResult(turn, action);
  }
  if (call.toolName === INTAKE_TOOL_NAME) return error('The intake questions were not recorded.');
  if (!turn.offers('question'))
    return error('Asking the user is not available here. Go on without asking, using your best judgement.');
  const input = (call.input ?? {}) as { preamble?: unknown; questions?: unknown };
  const checked = checkQuestions(input.questions, { source: 'ask' });
  if (!checked.ok)
    return error(
      `The questions were not asked. Fix these problems and call ${ASK_TOOL_NAME} again:\n- ${checked.problems.join('\n- ')}`,
    );
  return {
    ask: newAction(turn, {
      origin: 'ask',
      messageId: assistant.id,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      request: {
        kind: 'question',
        ...(typeof input.preamble === 'string' ? { preamble: input.preamble } : {}),
        questions: checked.questions,
      },
    }),
  };
}

async function approvalAction(
  turn: Turn,
  assistant: MessageRecord,
  call: Call,
  definition: HeedTool,
  input: unknown,
  canRemember: boolean,
): Promise<ActionRecord> {
  const title =
    typeof definition.approvalTitle === 'function'
      ? definition.approvalTitle(input)
      : (definition.approvalTitle ?? `Run ${call.toolName}?`);
  const summary =
    typeof definition.approvalSummary === 'function'
      ? definition.approvalSummary(input)
      : (definition.approvalSummary ??
        definition.description ??
        `Allow the agent to call ${call.toolName} with these arguments.`);
  return newAction(turn, {
    origin: 'tool',
    messageId: assistant.id,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    request: {
      kind: 'approval',
      args: call.input,
      title,
      summary,
      canRemember,
      // Approvers are worked out once, now, and kept with the action (an approval decided by votes is never remembered).
      ...(definition.approval
        ? await policyFields(definition.approval, input, conversationView(turn.conversation), turn.engine.clock())
        : {}),
    },
  });
}

/**
 * Stores the pause as one write: the actions, the conversation's status and due time, and the events.
 * A pause bigger than `limits.maxStateBytes` is not taken: the calls get an error result instead.
 */
export async function pause(
  turn: Turn,
  assistant: MessageRecord,
  asks: ActionRecord[],
  children: ChildWait[] = [],
): Promise<boolean> {
  if (children.length > 0) return pauseOnChildren(turn, asks, children);
  const bytes =
    Buffer.byteLength(JSON.stringify(asks), 'utf8') + Buffer.byteLength(JSON.stringify(assistant.parts), 'utf8');
  const limit = turn.engine.limits.maxStateBytes;
  if (bytes > limit) {
    const message = `The paused state would be ${bytes} bytes, more than the limit of ${limit}; nothing was paused and the tool was not run.`;
    const warning = { code: 'pause_state_too_large', message, details: { bytes, limit } };
    turn.warnings.push(warning);
    // Kept on the message of the first call that did not run, so a reload still says why nothing waits (seed 002).
    asks.forEach((ask, index) =>
      turn.addToolResult(
        ask,
        { type: 'error-text', value: 'Not run: the request was too large to store.' },
        undefined,
        index === 0 ? { warnings: [warning] } : {},
      ),
    );
    return false;
  }
  turn.addActions(asks);
  // The sweep looks again at the earliest lapse, escalation or reminder.
  const due = earliestDue(asks);
  turn.set({ status: 'requires_action', actionDueAt: due, leaseOwner: null, leaseExpiresAt: null });
  announceRequired(turn, asks);
  const actionIds = asks.map((ask) => ask.id);
  turn.event('turn.paused', { actionIds });
  const engine = turn.engine;
  // The span ends when the pause is stored. What becomes of its actions later, an answer hours after on
  // another instance included, joins this trace through the span kept beside them (pause-trace.ts).
  await engine.tracing.span('heed.pause', { 'heed.action_ids': actionIds }, async (span) => {
    if (span.context) await keepPauseSpan(engine.store, turn.conversation.id, actionIds, span.context);
    await turn.flush();
  });
  return true;
}

/** One `action.required` per action raised. The log refers to the action; readers get it filled in as asked (events/hydrate.ts). */
function announceRequired(turn: Turn, asks: ActionRecord[]): void {
  for (const ask of asks)
    turn.event('action.required', {
      actionId: ask.id,
      kind: ask.kind,
      toolCallId: ask.toolCallId,
      toolName: ask.toolName,
    });
}

/**
 * Pauses the parent's turn on its open children (and on what the step asked a person itself): status
 * `requires_action`, the children's pending actions named in `turn.paused` and `child.paused`. The child's
 * end continues the parent (src/engine/child-continue.ts); `actionDueAt` brings the sweep back to look
 * in case the process that ended the child died before it could.
 */
async function pauseOnChildren(turn: Turn, asks: ActionRecord[], children: ChildWait[]): Promise<boolean> {
  const engine = turn.engine;
  turn.addActions(asks);
  const due = earliestDue(asks);
  const recheck = childRecheckAt(engine);
  turn.set({
    status: 'requires_action',
    actionDueAt: due !== null && due < recheck ? due : recheck,
    leaseOwner: null,
    leaseExpiresAt: null,
  });
  announceRequired(turn, asks);
  const childActions: string[] = [];
  for (const { toolCallId, child } of children) {
    const pending =
      child.status === 'requires_action'
        ? (await engine.store.listActions(child.id)).filter((action) => action.status === 'pending').map((a) => a.id)
        : [];
    childActions.push(...pending);
    turn.event('child.paused', { toolCallId, conversationId: child.id, agent: child.agent, actionIds: pending });
  }
  turn.event('turn.paused', { actionIds: [...asks.map((ask) => ask.id), ...childActions] });
  await turn.flush();
  // A child that ended while this pause was being written found the parent still running: look once more.
  turn.afterPause = async () => engine.children?.continueParent(turn.conversation.id);
  return true;
}

/** What the model reads for a call whose action is closed, by the action's kind; undefined when the call runs. */
function closedResult(turn: Turn, action: ActionRecord): CallOutcome | undefined {
  const reads = kindOf(action.kind).modelReads(action, {
    lapseMessage: turn.engine.setting(turn.agent, 'lapseMessage'),
  });
  return (
    reads && {
      result: reads.output,
      ...(reads.stop ? { stop: true } : {}),
      ...(reads.isError ? { isError: true } : {}),
    }
  );
}

/** The result of a call whose action was answered: a call is settled again only once its action is closed. */
function answeredResult(turn: Turn, action: ActionRecord): CallOutcome {
  return must(
    closedResult(turn, action),
    `The ${action.kind} action ${action.id} is closed before its call is settled.`,
  );
}

function error(value: string): CallOutcome {
  return { result: { type: 'error-text', value } };
}

function toJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as JsonValue;
  } catch {
    throw new HeedError('internal_error', 'The tool returned something that cannot be stored as JSON.');
  }
}
