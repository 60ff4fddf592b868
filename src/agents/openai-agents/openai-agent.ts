import type { Agent, AgentInputItem, RunState, run as runAgent } from '@openai/agents';
import { HeedError } from '../../errors.js';
import { oneLine } from '../../kinds/one-line.js';
import { importOptional } from '../../optional-dependency.js';
import type { JsonValue } from '../../protocol/values.js';
import type { StoredResolution } from '../../types.js';
import { editedArguments } from '../edited-arguments.js';
import { conversationState, messageText, valuesFinder } from '../adapter-state.js';
import type {
  AgentHandler,
  HandlerActionRequest,
  HandlerReply,
  HandlerValues,
  ProcessMessageInput,
  ResolveActionInput,
} from '../handler-types.js';
import type { HandlerAgent } from '../handler-agent.js';

/** The sentence a person reads when they send edited arguments for an OpenAI Agents tool call. */
export const EDITS_REFUSED =
  'The OpenAI Agents SDK cannot take edited arguments: a tool call can only be approved as it is or rejected (with a comment the model reads).';

// An agent of any output and context: the adapter only runs it and reads its text.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyAgent = Agent<any, any>;

export interface OpenAIAgentOptions {
  name: string;
  description?: string;
  /** An OpenAI Agents JS agent; its tools with `needsApproval` pause for a person. */
  agent: AnyAgent;
  /** The most model calls of one run (the SDK's `maxTurns`). */
  maxTurns?: number;
  /** Sets more on each approval (an approval policy, an expiry), from the tool call it stands for. */
  approval?: (call: {
    name: string;
    args: JsonValue;
  }) => Partial<Extract<HandlerActionRequest, { kind: 'approval' }>> | undefined;
  /** Where to keep run states and history when Heed does not hand the handler its store. */
  values?: HandlerValues;
}

interface OpenAIAgents {
  run: typeof runAgent;
  RunState: typeof RunState;
}

/** A run paused on tool approvals: its serialised state, the calls by action order, the answers so far. */
interface Pause {
  state: string;
  calls: Array<{ callId: string; name: string }>;
  answers: Record<string, StoredResolution>;
}

interface AdapterState {
  /** The conversation so far, as the SDK reads it, after the last run that finished. */
  history?: AgentInputItem[];
  pause?: Pause;
  resumed?: { key: string; reply: HandlerReply };
}

const scope = (conversationId: string) => `openai-agents:${conversationId}`;
const stored = conversationState<AdapterState>(scope);

/**
 * An OpenAI Agents JS agent as a Heed agent: each conversation keeps its history; each interruption of a
 * run (a tool with `needsApproval`) becomes an approval with the call's parsed arguments; once all are
 * answered the run goes on from its stored `RunState` with `approve` / `reject` (the comment as the
 * rejection message).
 *
 * @example
 * const heed = createHeed({ agents: [openaiAgent({ name: 'support', agent: supportAgent })] });
 */
export function openaiAgent(options: OpenAIAgentOptions): HandlerAgent {
  let sdk: Promise<OpenAIAgents> | undefined;
  const load = () => (sdk ??= importOptional<OpenAIAgents>('@openai/agents', 'heed/openai-agents (openaiAgent)'));

  const valuesOf = valuesFinder(`The OpenAI agent "${options.name}"`, options.values);

  /** Runs the agent and reads how the run ended: paused on approvals (kept), or finished (its history kept). */
  async function runOnce(
    input: string | AgentInputItem[] | RunState<unknown, AnyAgent>,
    conversationId: string,
    values: HandlerValues,
    signal: AbortSignal,
    previous: AdapterState,
    resumedBy?: string,
  ): Promise<HandlerReply> {
    const { run } = await load();
    const result = await run(options.agent, input, {
      signal,
      ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
    });
    const state: AdapterState = { ...(previous.history ? { history: previous.history } : {}) };
    let reply: HandlerReply;
    if (result.interruptions.length > 0) {
      const calls = result.interruptions.map((item) => ({
        callId: 'callId' in item.rawItem && typeof item.rawItem.callId === 'string' ? item.rawItem.callId : '',
        name: item.name ?? item.toolName ?? 'tool',
        args: parseArguments(item.arguments),
      }));
      state.pause = {
        state: result.state.toString(),
        calls: calls.map(({ callId, name }) => ({ callId, name })),
        answers: {},
      };
      reply = {
        pendingActions: calls.map(({ name, args }) => ({
          kind: 'approval',
          title: `Run ${oneLine(name, 60)}?`,
          toolName: name,
          args,
          // No argsSchema: Heed refuses edited arguments, which the SDK could not take.
          ...(options.approval?.({ name, args }) ?? {}),
        })),
      };
    } else {
      state.history = result.history;
      const output: unknown = result.finalOutput;
      const content = typeof output === 'string' ? output : output === undefined ? undefined : JSON.stringify(output);
      reply = content ? { content } : {};
    }
    if (resumedBy) state.resumed = { key: resumedBy, reply };
    await stored.write(values, conversationId, state);
    return reply;
  }

  const handler: AgentHandler = {
    // The SDK's alwaysApprove lasts one run, not the conversation a person would expect.
    remembersApprovals: false,
    checkAnswer({ action, resolution }) {
      if (editedArguments(resolution, action)) {
        throw new HeedError('invalid_resolution', EDITS_REFUSED, { details: { field: 'approvedArgs' } });
      }
    },

    async processMessage(input: ProcessMessageInput) {
      const values = valuesOf(input);
      const id = input.conversation.id;
      const text = messageText(input.message);
      const previous = await stored.read(values, id);
      const history: AgentInputItem[] = [...(previous.history ?? []), { role: 'user', content: text }];
      return runOnce(history, id, values, input.signal, { history: previous.history });
    },

    async resolveAction(input: ResolveActionInput) {
      const values = valuesOf(input);
      const id = input.conversation.id;
      const previous = await stored.read(values, id);
      // This very call was made before and ran the agent on (a retry after a crash): same reply, no second run.
      if (previous.resumed?.key === input.idempotencyKey) return previous.resumed.reply;
      const pause = previous.pause;
      const call = pause?.calls[input.action.journalIndex];
      if (!pause || !call) {
        throw new HeedError(
          'internal_error',
          `The OpenAI agent "${options.name}" has no paused run waiting for the action ${input.action.id}.`,
        );
      }
      pause.answers[String(input.action.journalIndex)] = input.resolution;
      await stored.write(values, id, { ...previous, pause });
      // The run goes on once every call of the pause is decided: one run takes them all.
      if (pause.calls.some((_, index) => pause.answers[String(index)] === undefined)) return {};

      const { RunState: State } = await load();
      const state = await State.fromString(options.agent, pause.state);
      for (const item of state.getInterruptions()) {
        const callId = 'callId' in item.rawItem ? item.rawItem.callId : undefined;
        const index = pause.calls.findIndex((entry) => entry.callId === callId);
        const answer = index >= 0 ? pause.answers[String(index)] : undefined;
        if (answer && 'decision' in answer && answer.decision === 'allow') state.approve(item);
        else state.reject(item, { message: rejectionMessage(answer) });
      }
      return runOnce(state, id, values, input.signal, previous, input.idempotencyKey);
    },
  };
  return { name: options.name, ...(options.description ? { description: options.description } : {}), handler };
}

/** What the model reads for a call a person did not allow: their comment, or what happened instead. */
function rejectionMessage(answer: StoredResolution | undefined): string {
  if (answer && 'decision' in answer) {
    const comment = 'comment' in answer ? answer.comment : undefined;
    if (typeof comment === 'string' && comment.trim()) return comment;
    if (comment && typeof comment === 'object') return JSON.stringify(comment);
    return 'A person rejected this tool call.';
  }
  const reason = answer?.type === 'cancelled' ? answer.reason : 'no decision';
  return `This tool call was not approved (${reason}).`;
}

/** A call's arguments as JSON, or as the text the model sent when that is not JSON. */
function parseArguments(text: string | undefined): JsonValue {
  if (text === undefined || text === '') return {};
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}
