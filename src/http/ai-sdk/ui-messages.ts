import { ASK_TOOL_NAME } from '../../kinds/question.js';
import { INTAKE_TOOL_NAME } from '../../engine/turn/prompt.js';
import type { AgentConfig } from '../../config.js';
import { aiSdkTitleOf, lapsed, presentationOf } from '../../kinds/index.js';
import { commentText } from '../../kinds/comment-text.js';
import { toolResults } from '../../protocol/tool-results.js';
import type { JsonObject, MessagePart, ToolOutput } from '../../types.js';
import type { ActionView, MessageView } from '../../views.js';

/**
 * The AI SDK 6 UI message shapes Heed sends (a subset of `UIMessage` from `ai`): text, step
 * boundaries, and static tool parts (`tool-<name>`) in the states a paused turn needs.
 */
export type UiToolState =
  | 'input-available'
  | 'approval-requested'
  | 'approval-responded'
  | 'output-available'
  | 'output-error'
  | 'output-denied';

export interface UiToolPart {
  type: `tool-${string}`;
  toolCallId: string;
  state: UiToolState;
  input: unknown;
  output?: unknown;
  errorText?: string;
  title?: string;
  /** `heed`: the action this call waits (or waited) on, as `GET …/actions` shows it, less the arguments. */
  toolMetadata?: JsonObject;
  approval?: { id: string; approved?: boolean; reason?: string };
}

export type UiPart = { type: 'text'; text: string; state: 'done' } | { type: 'step-start' } | UiToolPart;

export interface UiMessage {
  id: string;
  role: 'user' | 'assistant';
  parts: UiPart[];
}

/** The ask tool and an agent's intake: calls whose whole input is the questions, so the part shows those. */
export function isQuestionTool(toolName: string, agent: AgentConfig | undefined): boolean {
  return toolName === INTAKE_TOOL_NAME || (toolName === ASK_TOOL_NAME && Boolean(agent?.ask));
}

/**
 * What a tool part shows as its input: the stored call's input, except for a question tool, where it
 * is the questions as asked (ids filled in, intake questions that the call itself does not carry), and
 * a client tool, where it is what the page is to run with (the arguments a person approved, if edited).
 */
export function partInput(
  toolName: string,
  callInput: unknown,
  action: ActionView | undefined,
  agent: AgentConfig | undefined,
): unknown {
  if (action?.kind === 'question' && action.questions && isQuestionTool(toolName, agent)) {
    return { ...(action.preamble ? { preamble: action.preamble } : {}), questions: action.questions };
  }
  if (action?.kind === 'client_tool') return action.args;
  return callInput;
}

/** Fields of an action a tool part already carries. */
const PART_FIELDS = new Set(['args', 'argsSchema', 'conversationId', 'messageId', 'toolCallId', 'toolName']);

/**
 * `toolMetadata.heed`: the action without the fields the part already carries. A child agent's request (`via`)
 * sits on the lead's `agent_<name>` part, which says nothing of the child's tool, its arguments or conversation:
 * those are kept.
 */
export function heedMetadata(action: ActionView): JsonObject {
  const carried = action.via?.length ? new Set(['toolCallId']) : PART_FIELDS;
  const rest = Object.fromEntries(Object.entries(action).filter(([key]) => !carried.has(key)));
  return { heed: JSON.parse(JSON.stringify(rest)) as JsonObject };
}

/** What an answered question part shows: the settled answers (canonical) and the summary the model read. */
export function questionOutput(action: ActionView | undefined, summary?: string): JsonObject | undefined {
  const resolution = action?.resolution;
  if (!action || resolution?.type !== 'question' || 'dismiss' in resolution) return undefined;
  const output: JsonObject = { answers: resolution.answers };
  if ('skip' in resolution) output.skipped = true;
  if (action.kind === 'question' && action.defaulted?.length) output.defaulted = action.defaulted;
  if (summary !== undefined) output.summary = summary;
  return output;
}

/** The action a call waits on now, else the last one it had. */
export function currentAction(actions: ActionView[] | undefined): ActionView | undefined {
  if (!actions?.length) return undefined;
  return actions.find((action) => action.status === 'pending') ?? actions[actions.length - 1];
}

export function isDenied(action: ActionView | undefined): boolean {
  // A lapse is stored as a refusal (seed 002) but nobody denied it: its part is the error the model read.
  if (!action || lapsed(action)) return false;
  return action.resolution?.type === 'approval' && action.resolution.decision === 'deny';
}

/** A deny whose comment is an object: the model read that object as the call's result, and the call did not run. */
function isStructuredDenial(action: ActionView | undefined, result: ToolOutput): boolean {
  const comment = action?.resolution?.type === 'approval' ? action.resolution.comment : undefined;
  return (
    typeof comment === 'object' && result.type === 'json' && JSON.stringify(result.value) === JSON.stringify(comment)
  );
}

/** Whether the action's call shows as an AI SDK approval (its kind's `aiSdkApproval`). */
export function isUiApproval(action: ActionView | undefined): action is ActionView {
  return action !== undefined && presentationOf(action.kind).aiSdkApproval;
}

function approvalOf(action: ActionView | undefined): UiToolPart['approval'] | undefined {
  if (action?.resolution?.type !== 'approval') return undefined;
  const { decision, comment } = action.resolution;
  return { id: action.id, approved: decision === 'allow', ...(comment ? { reason: commentText(comment) } : {}) };
}

/** A stored tool call as a tool part, in the state its result and its action give it. */
export function toolPart(
  call: Extract<MessagePart, { type: 'tool-call' }>,
  result: ToolOutput | undefined,
  actions: ActionView[] | undefined,
  agent: AgentConfig | undefined,
): UiToolPart {
  const action = currentAction(actions);
  const part: UiToolPart = {
    type: `tool-${call.toolName}`,
    toolCallId: call.toolCallId,
    state: 'input-available',
    input: partInput(call.toolName, call.input, action, agent),
  };
  if (action) {
    part.toolMetadata = heedMetadata(action);
    const title = aiSdkTitleOf(action);
    if (title) part.title = title;
  }
  const approval = approvalOf(action);
  if (result) {
    if (isDenied(action) && (result.type === 'error-text' || isStructuredDenial(action, result)))
      return { ...part, state: 'output-denied', approval };
    if (result.type === 'error-text') {
      return { ...part, state: 'output-error', errorText: result.value, ...(approval?.approved ? { approval } : {}) };
    }
    const output = isQuestionTool(call.toolName, agent)
      ? (questionOutput(action, String(result.value)) ?? result.value)
      : result.value;
    return { ...part, state: 'output-available', output, ...(approval?.approved ? { approval } : {}) };
  }
  if (action?.status === 'pending') {
    return isUiApproval(action) ? { ...part, state: 'approval-requested', approval: { id: action.id } } : part;
  }
  // Answered, but the turn has not written the call's result yet (it is running, or other requests are open).
  if (approval) return { ...part, state: 'approval-responded', approval };
  const answered = action?.kind === 'question' ? questionOutput(action) : undefined;
  return answered ? { ...part, state: 'output-available', output: answered } : part;
}

/**
 * A conversation's stored messages as AI SDK UI messages: each user message as it was sent, and
 * everything the agent wrote between two user messages as one assistant message, one step per
 * model call, with each tool call's result folded into its part. A group that ends on tool results
 * (no model call after them) gets an empty closing step, so `lastAssistantMessageIsCompleteWithToolCalls`
 * does not send it back.
 */
export function uiMessages(
  messages: MessageView[],
  agent: AgentConfig | undefined,
  /** The pending requests of a lead's children, each on the lead's call that waits on it (./child-answers.ts). */
  childActions: ActionView[] = [],
): UiMessage[] {
  const results = toolResults(messages);
  const actionsByCall = new Map<string, ActionView[]>();
  for (const action of [...messages.flatMap((message) => message.metadata?.actions ?? []), ...childActions]) {
    const list = actionsByCall.get(action.toolCallId) ?? [];
    list.push(action);
    actionsByCall.set(action.toolCallId, list);
  }

  const out: UiMessage[] = [];
  let group: UiMessage | undefined;
  let endsOnResults = false;
  const close = () => {
    if (group && endsOnResults && !group.parts.some(isWaiting)) group.parts.push({ type: 'step-start' });
    group = undefined;
  };
  for (const message of messages) {
    // A failed turn's record has nothing to show as a part: a chat learns of the failure from the stream's error.
    if (message.role === 'assistant' && message.parts.length === 0 && message.metadata?.failed) continue;
    if (message.role === 'user') {
      close();
      const parts = message.parts.flatMap((part): UiPart[] =>
        part.type === 'text' ? [{ type: 'text', text: part.text, state: 'done' }] : [],
      );
      out.push({ id: message.id, role: 'user', parts });
      continue;
    }
    if (!group) {
      group = { id: message.id, role: 'assistant', parts: [] };
      out.push(group);
    }
    endsOnResults = message.role === 'tool';
    if (message.role !== 'assistant') continue;
    group.parts.push({ type: 'step-start' });
    for (const part of message.parts) {
      if (part.type === 'text') group.parts.push({ type: 'text', text: part.text, state: 'done' });
      else if (part.type === 'tool-call') {
        group.parts.push(toolPart(part, results.get(part.toolCallId), actionsByCall.get(part.toolCallId), agent));
      }
    }
  }
  close();
  return out;
}

function isWaiting(part: UiPart): boolean {
  if (part.type === 'text' || part.type === 'step-start') return false;
  return part.state === 'input-available' || part.state === 'approval-requested' || part.state === 'approval-responded';
}
