import type { Command } from '@langchain/langgraph';
import { HeedError } from '../../errors.js';
import { importOptional } from '../../optional-dependency.js';
import type { MessageRecord } from '../../types.js';
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
import { storeCheckpointSaver, type LangGraphModule, type StoreCheckpointSaver } from './checkpoint-saver.js';
import { editedArguments } from '../edited-arguments.js';
import { pauseFrom, resumeValues, type GraphInterrupt, type MiddlewareAction, type Pause } from './interrupts.js';

/** The few methods of a compiled LangGraph.js graph the adapter calls (`StateGraph.compile()`, `createAgent`). */
export interface LangGraphGraph {
  invoke(input: unknown, config?: never): Promise<unknown>;
  getState(config: never): Promise<GraphSnapshot>;
  /** Set when the graph was compiled with its own checkpointer; the adapter then uses that one. */
  checkpointer?: unknown;
}

/** What the adapter reads of a graph's state: its values and where it was interrupted. */
export interface GraphSnapshot {
  values: unknown;
  tasks: ReadonlyArray<{ interrupts: readonly GraphInterrupt[] }>;
}

export interface LangGraphAgentOptions {
  name: string;
  description?: string;
  /** A compiled graph. Without a checkpointer of its own it gets one over Heed's store. */
  graph: LangGraphGraph;
  /** The graph's input for a user message (default: `{ messages: [{ role: 'user', content: text }] }`). */
  input?: (text: string, message: MessageRecord) => unknown;
  /** The reply from the final state (default: the text of the last assistant message, or the state if it is text). */
  reply?: (values: unknown) => string | undefined;
  /** Sets more on the approval of a human-in-the-loop middleware's action (an approval policy, an expiry). */
  approval?: (action: MiddlewareAction) => Partial<Extract<HandlerActionRequest, { kind: 'approval' }>> | undefined;
  /** Where to keep checkpoints and pauses when Heed does not hand the handler its store. */
  values?: HandlerValues;
}

/** Where the adapter keeps a conversation's pause and the last reply it resumed with. */
const stateScope = (threadId: string) => `langgraph:pause:${threadId}`;

interface AdapterState {
  pause?: Pause;
  /** The reply of the last resume, by the idempotency key of the call that made it: a retried call gets it again. */
  resumed?: { key: string; reply: HandlerReply };
}

const stored = conversationState<AdapterState>(stateScope);

type LangGraph = LangGraphModule & { Command: typeof Command };

/**
 * A LangGraph.js graph as a Heed agent: one thread per conversation; each `interrupt(value)` becomes an
 * action (the human-in-the-loop middleware's action requests approvals, any other value a question), and the
 * answers resume the graph with `Command({ resume })`.
 *
 * @example
 * const heed = createHeed({ agents: [langgraphAgent({ name: 'refunds', graph: workflow.compile() })] });
 */
export function langgraphAgent(options: LangGraphAgentOptions): HandlerAgent {
  const { graph } = options;
  let loaded: Promise<{ langgraph: LangGraph; saver?: StoreCheckpointSaver }> | undefined;
  const setUp = () =>
    (loaded ??= importOptional<LangGraph>('@langchain/langgraph', 'heed/langgraph (langgraphAgent)').then(
      (langgraph) => {
        // A graph compiled with its own checkpointer keeps it (and its history) as it is.
        if (graph.checkpointer) return { langgraph };
        const saver = storeCheckpointSaver(langgraph);
        graph.checkpointer = saver;
        return { langgraph, saver };
      },
    ));

  const valuesOf = valuesFinder(`The LangGraph agent "${options.name}"`, options.values);

  /** Runs the graph on the conversation's thread with its checkpoints loaded, then reads where it stopped. */
  async function run(
    input: unknown,
    threadId: string,
    values: HandlerValues,
    signal: AbortSignal,
    waitingOn?: string[],
  ): Promise<GraphSnapshot> {
    const { saver } = await setUp();
    await saver?.load(threadId, values);
    try {
      const state = () => graph.getState({ configurable: { thread_id: threadId } } as never);
      // A resume whose interrupts the thread no longer waits on already ran (its process died before the
      // adapter recorded the reply): it is not run a second time, its outcome is read.
      if (
        waitingOn &&
        !(await state()).tasks.some((task) => task.interrupts.some((i) => waitingOn.includes(i.id ?? '')))
      )
        return await state();
      const config = { configurable: { thread_id: threadId }, signal } as never;
      await graph.invoke(input, config);
      return await state();
    } finally {
      saver?.unload(threadId);
    }
  }

  /** The reply for where the graph stopped: its interrupts as actions (kept as the pause), or its final text. */
  async function replyFor(
    snapshot: GraphSnapshot,
    threadId: string,
    values: HandlerValues,
    resumed?: AdapterState['resumed'],
  ): Promise<HandlerReply> {
    const interrupts: GraphInterrupt[] = snapshot.tasks.flatMap((task) => [...task.interrupts]);
    let reply: HandlerReply;
    let state: AdapterState;
    if (interrupts.length > 0) {
      const { pause, pendingActions } = pauseFrom(interrupts, (request, action) =>
        Object.assign(request, options.approval?.(action) ?? {}),
      );
      reply = { pendingActions };
      state = { pause };
    } else {
      const content = (options.reply ?? lastAssistantText)(snapshot.values);
      reply = content ? { content } : {};
      state = {};
    }
    if (resumed) state.resumed = { key: resumed.key, reply };
    await stored.write(values, threadId, state);
    return reply;
  }

  const handler: AgentHandler = {
    // A graph has nowhere to keep a remembered approval.
    remembersApprovals: false,
    checkAnswer({ action, resolution }) {
      // Edits go where the middleware allows them (the approval then has an argsSchema), nowhere else.
      const editable = 'argsSchema' in action.request && action.request.argsSchema !== undefined;
      if (!editable && editedArguments(resolution, action)) {
        throw new HeedError(
          'invalid_resolution',
          `This step of the graph does not take edited arguments: its review allows no "edit". Approve it as it is, or deny it with a comment.`,
          { details: { field: 'approvedArgs' } },
        );
      }
    },

    async processMessage(input: ProcessMessageInput) {
      const values = valuesOf(input);
      const threadId = input.conversation.id;
      const text = messageText(input.message);
      const graphInput = options.input
        ? options.input(text, input.message)
        : { messages: [{ role: 'user', content: text }] };
      return replyFor(await run(graphInput, threadId, values, input.signal), threadId, values);
    },

    async resolveAction(input: ResolveActionInput) {
      const values = valuesOf(input);
      const threadId = input.conversation.id;
      const state = await stored.read(values, threadId);
      // This very call was made before and resumed the graph (a retry after a crash): same reply, no second run.
      if (state.resumed?.key === input.idempotencyKey) return state.resumed.reply;
      const pause = state.pause;
      const entry = pause?.entries[input.action.journalIndex];
      if (!pause || !entry) {
        throw new HeedError(
          'internal_error',
          `The LangGraph agent "${options.name}" has no paused run waiting for the action ${input.action.id}.`,
        );
      }
      pause.answers[String(input.action.journalIndex)] = input.resolution;
      if (pause.entries.some((_, index) => pause.answers[String(index)] === undefined)) {
        // The graph resumes once every action of the pause is answered: one resume takes them all.
        await stored.write(values, threadId, { ...state, pause });
        return {};
      }
      await stored.write(values, threadId, { pause });
      const { langgraph } = await setUp();
      const resumes = resumeValues(pause);
      // One interrupt takes its value; several (parallel nodes) take a map by interrupt id.
      const resume =
        pause.interrupts.length === 1
          ? resumes[0]
          : Object.fromEntries(
              pause.interrupts.map((interrupt, index) => [interrupt.id ?? String(index), resumes[index]]),
            );
      const ids = pause.interrupts.flatMap((interrupt) => (interrupt.id ? [interrupt.id] : []));
      const snapshot = await run(
        new langgraph.Command({ resume }),
        threadId,
        values,
        input.signal,
        ids.length > 0 ? ids : undefined,
      );
      return replyFor(snapshot, threadId, values, { key: input.idempotencyKey, reply: {} });
    },
  };
  return { name: options.name, ...(options.description ? { description: options.description } : {}), handler };
}

/** The text of the last assistant message of a state with `messages`, or the state itself when it is text. */
export function lastAssistantText(values: unknown): string | undefined {
  if (typeof values === 'string') return values;
  const messages = (values as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return undefined;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as Record<string, unknown> & { getType?: () => string; _getType?: () => string };
    const type = message.getType?.() ?? message._getType?.() ?? message.type ?? message.role;
    if (type !== 'ai' && type !== 'assistant') continue;
    const text = textOf(message.content);
    if (text) return text;
  }
  return undefined;
}

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content.trim() ? content : undefined;
  if (!Array.isArray(content)) return undefined;
  const text = content
    .flatMap((part: unknown) => {
      const block = part as { type?: unknown; text?: unknown } | null;
      return block?.type === 'text' && typeof block.text === 'string' ? [block.text] : [];
    })
    .join('');
  return text.trim() ? text : undefined;
}
