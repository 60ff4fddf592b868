import { HeedError } from '../errors.js';
import { newId } from '../ids.js';
import { policyFields } from '../kinds/approval-policy.js';
import { conversationView } from '../views.js';
import { channelPlatform } from '../protocol/conversation.js';
import type { AgentConfig } from '../config.js';
import { newAction } from '../engine/new-action.js';
import { isFailureRecord } from '../engine/open-calls.js';
import { pause } from '../engine/turn/tool-calls.js';
import { TurnInterrupted, type Turn } from '../engine/turn/turn.js';
import type {
  ActionRecord,
  ConversationRecord,
  JsonValue,
  MessagePart,
  MessageRecord,
  StoredResolution,
} from '../types.js';
import { AgentError } from './agent-error.js';
import { checkReply, type CheckedReply } from './handler-reply.js';
import type { AgentHandler } from './handler-types.js';
import { remoteHandler } from './remote.js';

/** Kept on the tool message that records a settled action as handed to the agent (its action id). */
const HANDED = 'handedToAgent';

const handlers = new WeakMap<AgentConfig, AgentHandler>();

/** The agent's handler (a remote agent's made once, over HTTP); undefined for an agent on Heed's own loop. */
export function handlerOf(agent: AgentConfig | undefined): AgentHandler | undefined {
  if (!agent) return undefined;
  if (agent.handler) return agent.handler;
  if (!agent.remote) return undefined;
  let made = handlers.get(agent);
  if (!made) {
    made = remoteHandler(agent.remote);
    handlers.set(agent, made);
  }
  return made;
}

/**
 * Refuses an answer to an action of an agent that cannot take one (a handler without `resolveAction`),
 * before anything is recorded.
 */
export function refuseUnanswerable(agent: AgentConfig | undefined, actionId: string): void {
  const handler = handlerOf(agent);
  if (handler && !handler.resolveAction) {
    throw new HeedError(
      'not_found',
      `The agent "${agent?.name}" cannot take answers: its handler has no resolveAction, so this request can only lapse or be withdrawn.`,
      { details: { actionId } },
    );
  }
}

/** Lets the agent's handler refuse an answer it cannot take (its `checkAnswer`), before anything is recorded. */
export function refuseUntakeable(
  agent: AgentConfig | undefined,
  conversation: ConversationRecord,
  action: ActionRecord,
  resolution: StoredResolution,
): void {
  handlerOf(agent)?.checkAnswer?.({ conversation, action, resolution });
}

/**
 * A turn of an agent whose work is the host's code. The stored messages say where it stands: after a
 * user message with no reply yet, `processMessage`; after a pause whose actions are all settled,
 * `resolveAction` for each one not yet handed over, in settling order, each result written before the
 * next call, so a retry after a crash goes on from the first one not recorded (with the same key).
 */
export async function runHandlerTurn(turn: Turn, handler: AgentHandler): Promise<'paused' | 'completed'> {
  const messages = turn.messages;
  const since = lastIndexOf(messages, (message) => message.role === 'user');
  const paused = lastIndexOf(
    messages,
    (message, index) =>
      index > since &&
      message.role === 'assistant' &&
      message.parts.some((part) => part.type === 'tool-call') &&
      !isFailureRecord(message),
  );
  if (paused >= 0) return resolveSettled(turn, handler, messages[paused]);
  const answered = messages.some((message, index) => index > since && message.role === 'assistant');
  if (since < 0 || answered) return 'completed';

  const message = messages[since];
  const reply = await call('processMessage', turn, () =>
    handler.processMessage({
      conversation: turn.conversation,
      message,
      signal: turn.abort.signal,
      idempotencyKey: message.id,
      values: turn.engine.store,
    }),
  );
  return record(turn, reply, { always: true });
}

/**
 * Where each action's settlement stands in the event log. Two answers can land in the same millisecond
 * (their `resolvedAt` then ties); the log still holds them in the order they were settled. Read only
 * when there is such a tie.
 */
async function settlementOrder(turn: Turn, actions: ActionRecord[]): Promise<(action: ActionRecord) => number> {
  const times = actions.map((action) => action.resolvedAt ?? '');
  if (new Set(times).size === times.length) return () => 0;
  const position = new Map<string, number>();
  for (let after = 0, page = 500; page === 500 && position.size < actions.length;) {
    const events = await turn.engine.store.listEvents(turn.conversation.id, { after, limit: 500 });
    for (const event of events) {
      const id = event.type === 'action.resolved' ? event.data.actionId : undefined;
      if (id && actions.some((action) => action.id === id)) position.set(id, event.seq);
      after = event.seq;
    }
    page = events.length;
  }
  return (action) => position.get(action.id) ?? Number.MAX_SAFE_INTEGER;
}

async function resolveSettled(
  turn: Turn,
  handler: AgentHandler,
  paused: MessageRecord,
): Promise<'paused' | 'completed'> {
  const after = turn.messages.filter((message) => message.position > paused.position);
  const handed = new Set(after.map((message) => message.metadata?.[HANDED]).filter((id) => typeof id === 'string'));
  const order = paused.parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : []));
  const todo = (await turn.actions()).filter((action) => action.messageId === paused.id && !handed.has(action.id));
  const settled = await settlementOrder(turn, todo);
  todo.sort(
    (a, b) =>
      (a.resolvedAt ?? '').localeCompare(b.resolvedAt ?? '') ||
      settled(a) - settled(b) ||
      order.indexOf(a.toolCallId) - order.indexOf(b.toolCallId),
  );
  if (todo.some((action) => action.status === 'pending'))
    throw new HeedError('internal_error', 'The turn went on while some of its requests were still waiting.');
  for (const [index, action] of todo.entries()) {
    const resolution = handedResolution(action, after);
    const resolve = handler.resolveAction?.bind(handler);
    // Without resolveAction nobody could answer; a lapse or a withdrawal is recorded and nothing is called.
    const reply = resolve
      ? await call('resolveAction', turn, () =>
          resolve({
            conversation: turn.conversation,
            action,
            resolution,
            signal: turn.abort.signal,
            idempotencyKey: action.id,
            values: turn.engine.store,
          }),
        )
      : { pending: [] };
    turn.addMessage(
      'tool',
      [
        {
          type: 'tool-result',
          toolCallId: action.toolCallId,
          toolName: action.toolName,
          // As stored: a page's output stays only on the tool message its answer wrote.
          output: { type: 'json', value: (action.resolution ?? resolution) as JsonValue },
        },
      ],
      { [HANDED]: action.id },
    );
    // `pendingActions` is the complete set still waiting: the last call's reply says what that is.
    const last = index === todo.length - 1;
    const outcome = await record(turn, last ? reply : { ...reply, pending: [] }, { always: false });
    if (outcome === 'paused') return outcome;
  }
  return 'completed';
}

/**
 * Writes a reply: its text as an assistant message with one tool call per request, and the pause of those
 * requests, in one write. `always`: the message is written even with nothing in it, as the record that the
 * call was made.
 */
async function record(turn: Turn, reply: CheckedReply, options: { always: boolean }): Promise<'paused' | 'completed'> {
  // A request nobody could answer here (a client tool in a chat thread) would wait until it lapsed: refused
  // before anything of the reply is recorded.
  const unanswerable = reply.pending.find((entry) => !turn.answerableHere(entry.request.kind));
  if (unanswerable) {
    throw new AgentError(
      `The agent asked for a ${unanswerable.request.kind} request ("${unanswerable.toolName}"), which nobody can answer in a ${channelPlatform(turn.conversation.channel)} thread: this conversation takes answers only from its thread.`,
    );
  }
  if (reply.content === undefined && reply.pending.length === 0 && !options.always) {
    await turn.flush();
    return 'completed';
  }
  const messageId = newId('m');
  const parts: MessagePart[] = [];
  if (reply.content !== undefined) {
    parts.push({ type: 'text', text: reply.content });
    turn.event('text.delta', { messageId, delta: reply.content });
  }
  // An id the agent gave is kept, so its page can match the answer; one the conversation already has is refused.
  const used = new Set(
    turn.messages.flatMap((message) =>
      message.parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : [])),
    ),
  );
  const reused = reply.pending.find((entry) => entry.toolCallId !== undefined && used.has(entry.toolCallId));
  if (reused) {
    throw new AgentError(
      `The agent asked with the toolCallId "${reused.toolCallId}", which an earlier call of this conversation has: each call needs its own.`,
    );
  }
  const calls = reply.pending.map((entry) => ({ ...entry, toolCallId: entry.toolCallId ?? newId('call') }));
  for (const entry of calls) {
    const input = 'args' in entry.request ? entry.request.args : {};
    parts.push({ type: 'tool-call', toolCallId: entry.toolCallId, toolName: entry.toolName, input: input ?? null });
  }
  const message = turn.addMessage('assistant', parts, reply.metadata ? { agent: reply.metadata } : null, messageId);
  turn.event('message.created', { messageId, role: 'assistant' });
  if (calls.length === 0) {
    await turn.flush();
    return 'completed';
  }
  const asks: ActionRecord[] = [];
  for (const [index, entry] of calls.entries()) {
    const policy = entry.policy
      ? await policyFields(
          entry.policy,
          'args' in entry.request ? entry.request.args : undefined,
          conversationView(turn.conversation),
          turn.engine.clock(),
        )
      : {};
    asks.push(
      newAction(turn, {
        origin: 'ctx',
        messageId,
        toolCallId: entry.toolCallId,
        toolName: entry.toolName,
        journalIndex: index,
        request: { ...entry.request, ...policy, ...remembers(turn, entry.request) } as ActionRecord['request'],
        expiresInMinutes: entry.expiresInMinutes,
      }),
    );
  }
  return (await pause(turn, message, asks)) ? 'paused' : 'completed';
}

/** An approval may be remembered where the handler takes it and the config allows it (it arrives in `resolveAction`). */
function remembers(turn: Turn, request: object): { canRemember?: boolean } {
  // Only a kind that can be remembered (an approval) has the field.
  if (!('canRemember' in request)) return {};
  const handler = handlerOf(turn.agent);
  return {
    canRemember: handler?.remembersApprovals !== false && turn.engine.setting(turn.agent, 'allowRememberApproval'),
  };
}

/** Calls the handler, reads its reply; a throw becomes the turn's failure, unless the turn was stopped meanwhile. */
async function call(name: 'processMessage' | 'resolveAction', turn: Turn, run: () => unknown): Promise<CheckedReply> {
  // What came before is durable before the agent acts on it.
  await turn.flush();
  let value: unknown;
  try {
    value = await run();
  } catch (thrown) {
    if (turn.abort.signal.aborted) throw new TurnInterrupted();
    if (HeedError.isInstance(thrown) || thrown instanceof AgentError) throw thrown;
    const said = thrown instanceof Error ? thrown.message : String(thrown);
    throw new AgentError(`The agent's ${name} failed: ${said}`, { cause: thrown });
  }
  if (turn.abort.signal.aborted) throw new TurnInterrupted();
  return checkReply(value, `The agent's ${name}`);
}

/**
 * The answer handed to the agent: as stored, plus the output a page sent for a client tool (kept on the tool
 * message the answer wrote, not on the action).
 */
function handedResolution(
  action: ActionRecord,
  after: MessageRecord[],
): StoredResolution | (StoredResolution & { output: JsonValue }) {
  const resolution = action.resolution ?? { type: 'cancelled', reason: action.status };
  for (const message of after) {
    if (message.role !== 'tool' || message.metadata?.[HANDED] !== undefined) continue;
    for (const part of message.parts) {
      if (part.type === 'tool-result' && part.toolCallId === action.toolCallId && part.output.type === 'json')
        return { ...resolution, output: part.output.value };
    }
  }
  return resolution;
}

function lastIndexOf(messages: MessageRecord[], test: (message: MessageRecord, index: number) => boolean): number {
  for (let index = messages.length - 1; index >= 0; index--) if (test(messages[index], index)) return index;
  return -1;
}
