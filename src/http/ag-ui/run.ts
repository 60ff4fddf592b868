import type { BaseEvent, Message, RunAgentInput, ToolCall } from '@ag-ui/core';
import type { Caller } from '../../caller.js';
import { checkMessageContent } from '../../engine/send.js';
import { DuplicateMessage } from '../../engine/decide/send.js';
import { childActionRecords, childPendingRecords, type ChildPending } from '../../engine/child-actions.js';
import { liveMessages } from '../../engine/replaced.js';
import type { TurnResult } from '../../engine/turn/run-turn.js';
import { HeedError } from '../../errors.js';
import type { Heed } from '../../heed.js';
import type { HeedHooks } from '../../hooks.js';
import { kindOf } from '../../kinds/index.js';
import type { ActionRecord, JsonObject, MessageRecord } from '../../types.js';
import { actionView } from '../../views.js';
import { openConversation } from '../ai-sdk-chat.js';
import type { SseWriter } from '../sse.js';
import { relayTurnEvents, untilAborted, untilRecorded } from '../turn-stream.js';
import { AgUiEventStream, finishedOutcome, interruptOf, snapshotMessages, type SendAgUi } from './events.js';
import { checkReplay, planResume, type PlannedAnswer, type ResumeEntry } from './resume.js';

/*
 * One AG-UI run (docs/ag-ui.md): it sends the input's new user message, or answers the thread's open
 * interrupts (`resume`, or `role: 'tool'` messages for frontend tools), streams the turn, and finishes with
 * the snapshots and RUN_FINISHED. Refusals are thrown; the route turns them into RUN_ERROR.
 */

export interface RunContext {
  heed: Heed;
  host: HeedHooks;
  caller: Caller;
  agent: string;
  input: RunAgentInput;
  send: SendAgUi;
  writer: SseWriter;
  countNewConversation: () => void;
}

/** A message's text: its content, or its text parts joined when it is a list. */
function contentText(content: string | Array<{ type: string; text?: string }>): string {
  if (typeof content === 'string') return content;
  return content
    .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
    .join('\n');
}

/** A tool message's content as the output it carries: JSON when it parses, else the text. */
function parsedContent(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

/**
 * Reads what the run asks for and does it: answers (`resume`, or `tool` messages for frontend tool calls),
 * else the last `user` message when Heed has not recorded it, else nothing (the thread as it stands).
 * Throws a refusal before anything is recorded.
 */
export async function runAgUi(context: RunContext): Promise<void> {
  const { heed, host, caller, agent, input } = context;
  const id = input.threadId;
  let exists = true;
  try {
    await openConversation(heed, caller, agent, id, false);
  } catch (thrown) {
    if (!HeedError.isInstance(thrown) || thrown.code !== 'not_found') throw thrown;
    exists = false;
  }
  const [own, stored] = exists
    ? await Promise.all([host.store.listActions(id), host.store.listMessages(id)])
    : [[], []];
  // A parent waiting on its children waits on their requests: they are the thread's interrupts too, answered
  // through it (src/engine/settle.ts finds them in the child).
  const waiting = exists ? await childrenWaiting(host, id, stored) : [];
  // A resume that names a child's request settled already (a client's retry) finds it among all the thread's
  // children's, so the same answer again is a replay, as for the thread's own.
  const listed = new Set([...own, ...waiting.map((child) => child.action)].map((action) => action.id));
  const unknown = (input.resume ?? []).some((entry) => !listed.has(entry.interruptId));
  const settled =
    exists && unknown ? (await childrenAnswered(host, id, stored)).filter((child) => !listed.has(child.action.id)) : [];
  const children = [...waiting, ...settled];
  const childAgent = new Map(children.map((child) => [child.action.id, child.agent]));
  const agentOf = (action: ActionRecord) => childAgent.get(action.id) ?? agent;
  const actions = [...own, ...children.map((child) => child.action)];
  const pending = actions.filter((action) => action.status === 'pending');

  // A frontend tool's result comes as a `tool` message for its call, as AG-UI clients send them.
  const resumed = new Set((input.resume ?? []).map((entry) => entry.interruptId));
  const toolAnswers: ResumeEntry[] = [];
  const sentOutputs = new Map<string, string>();
  for (const message of input.messages) {
    if (message.role !== 'tool') continue;
    const action = pending.find((entry) => entry.toolCallId === message.toolCallId && !resumed.has(entry.id));
    if (!action || toolAnswers.some((entry) => entry.interruptId === action.id)) continue;
    const content = contentText(message.content);
    toolAnswers.push({
      interruptId: action.id,
      status: 'resolved',
      payload: message.error ? { error: message.error } : { output: parsedContent(content) },
    });
    if (!message.error) sentOutputs.set(action.toolCallId, content);
  }
  const entries: ResumeEntry[] = [...(input.resume ?? []), ...toolAnswers];

  const last = input.messages.at(-1);
  const newMessage =
    last?.role === 'user' &&
    !stored.some((message) => message.id === last.id || message.metadata?.agUiMessageId === last.id)
      ? last
      : undefined;

  if (entries.length > 0) {
    if (newMessage) {
      throw new HeedError(
        'action_pending',
        'This run both answers interrupts and sends a new message: answer the interrupts first, then send the message in a run of its own.',
        { details: { pendingActionIds: pending.map((action) => action.id) } },
      );
    }
    if (!exists)
      throw new HeedError('not_found', 'There is no thread with that id to resume.', { details: { threadId: id } });
    for (const entry of input.resume ?? []) {
      const action = actions.find((one) => one.id === entry.interruptId);
      const payload = entry.payload as { output?: unknown } | undefined;
      if (
        action &&
        entry.status === 'resolved' &&
        kindOf(action.kind).agUi.frontendTool &&
        payload?.output !== undefined
      )
        sentOutputs.set(action.toolCallId, JSON.stringify(payload.output));
    }
    return resume(context, actions, entries, sentOutputs, agentOf);
  }
  if (newMessage) {
    if (pending.length > 0) {
      throw new HeedError(
        'action_pending',
        `The thread waits on ${pending.length === 1 ? 'an open interrupt' : `${pending.length} open interrupts`}: answer ${pending.length === 1 ? 'it' : 'them'} with \`resume\` before sending a new message.`,
        { details: { pendingActionIds: pending.map((action) => action.id) } },
      );
    }
    const content = contentText(newMessage.content);
    checkMessageContent(content, 'body.messages');
    await openConversation(heed, caller, agent, id, context.countNewConversation);
    const handle = heed.conversation(id);
    return stream(context, { newMessage: true }, (recorded) =>
      handle.send(content, {
        caller,
        busyPolicy: 'reject',
        metadata: { agUiMessageId: newMessage.id },
        seen: (messages) => messages.some((message) => message.metadata?.agUiMessageId === newMessage.id),
        onRecorded: (info) => recorded(info.eventSeq),
      }),
    ).catch(async (thrown: unknown) => {
      // The same message sent twice at once: the other run records and runs it; this one follows it.
      if (thrown instanceof DuplicateMessage) return finish(context, await followRunning(context));
      throw thrown;
    });
  }
  if (pending.length > 0) {
    throw new HeedError(
      'action_pending',
      'The thread waits on open interrupts: a run on it must answer every one of them in `resume`.',
      { details: { pendingActionIds: pending.map((action) => action.id) } },
    );
  }
  if (!exists) {
    throw new HeedError('invalid_request', 'A run on a new thread needs a user message to send, as its last message.', {
      details: { field: 'body.messages' },
    });
  }
  // Nothing new: the thread as it stands, once a turn under way (answered elsewhere) has paused or ended.
  return finish(context, await followRunning(context));
}

/** Settles the resume's answers in order (the last one closes the pause and runs the turn) and streams it. */
async function resume(
  context: RunContext,
  actions: ActionRecord[],
  entries: ResumeEntry[],
  sentOutputs: Map<string, string>,
  agentOf: (action: ActionRecord) => string,
): Promise<void> {
  const { heed, host, caller, agent, input } = context;
  const id = input.threadId;
  const planned = await planResume(host, caller, agentOf, actions, entries);
  // Every answer was settled so already: a replay runs nothing again (it follows the continuation still running).
  if (planned.length === 0) return finish(context, await followRunning(context));
  if (planned.some((answer) => answer.action.conversationId !== id)) return resumeChildren(context, planned, agentOf);
  const handle = heed.conversation(id);
  const settleAll = async (recorded: (eventSeq: number) => void): Promise<TurnResult> => {
    let result: TurnResult | undefined;
    for (const answer of planned as PlannedAnswer[]) {
      result = await handle.resolve(answer.action.id, answer.resolution, {
        caller,
        onRecorded: (info) => recorded(info.eventSeq),
      });
    }
    return result!;
  };
  try {
    await stream(context, { newMessage: false, sentOutputs }, settleAll);
  } catch (thrown) {
    // Settled meanwhile from another surface: the same answer is a replay, another one is refused saying who gave it.
    if (!HeedError.isInstance(thrown) || thrown.code !== 'action_not_pending') throw thrown;
    const now = await host.store.listActions(id);
    const again = await planResume(host, caller, () => agent, now, entries);
    if (again.length > 0) throw thrown;
    return finish(context, await followRunning(context));
  }
}

/**
 * Answers requests of the thread's children (each settled in its child), then streams the thread's own
 * continuation, which the children's end starts, until it pauses or ends. When the thread still waits on
 * something after the answers (another child, a request of its own), the run ends there with the interrupts.
 */
async function resumeChildren(
  context: RunContext,
  planned: PlannedAnswer[],
  agentOf: (action: ActionRecord) => string,
): Promise<void> {
  const { heed, host, caller, input, writer } = context;
  const id = input.threadId;
  const before = (await host.store.getConversation(id))?.lastEventSeq ?? 0;
  const events = new AgUiEventStream(context.send, { newMessage: false });
  let ended!: () => void;
  const done = new Promise<void>((resolve) => (ended = resolve));
  // Followed from before the answers: a continuation that runs before they return is still seen whole.
  const follow = host.follow(
    id,
    before,
    (event) => {
      events.handle(event);
      if (events.ended) ended();
    },
    { flow: writer },
  );
  try {
    for (const answer of planned) {
      try {
        await heed.conversation(id).resolve(answer.action.id, answer.resolution, { caller });
      } catch (thrown) {
        // Settled meanwhile (the same resume sent twice at once, another surface): the same answer is a replay.
        if (!HeedError.isInstance(thrown) || thrown.code !== 'action_not_pending') throw thrown;
        const now = await host.store.getAction(answer.action.conversationId, answer.action.id);
        if (!now) throw thrown;
        await checkReplay(host, caller, agentOf(answer.action), now, answer.resolution);
      }
    }
    const now = await host.store.getConversation(id);
    const waiting =
      now?.status === 'requires_action' &&
      ((await host.store.listActions(id)).some((action) => action.status === 'pending') ||
        (await childrenWaiting(host, id, await host.store.listMessages(id))).length > 0);
    if (!waiting) await untilAborted(done, writer.signal);
  } finally {
    follow.close();
  }
  if (writer.signal.aborted) return;
  return finish(context, events);
}

/**
 * When the thread's turn is running (started elsewhere: the same answer, the same message), streams its events from now
 * until it pauses or ends, so the run ends with its outcome; undefined when nothing runs. The follower reads
 * the log from the number read first, so an end that comes in between is still seen.
 */
async function followRunning(context: RunContext): Promise<AgUiEventStream | undefined> {
  const { host, input, writer } = context;
  const conversation = await host.store.getConversation(input.threadId);
  if (conversation?.status !== 'running') return undefined;
  const events = new AgUiEventStream(context.send, { newMessage: false });
  let ended!: () => void;
  const done = new Promise<void>((resolve) => (ended = resolve));
  const follow = host.follow(
    input.threadId,
    conversation.lastEventSeq,
    (event) => {
      events.handle(event);
      if (events.ended) ended();
    },
    { flow: writer },
  );
  try {
    await untilAborted(done, writer.signal);
  } finally {
    follow.close();
  }
  return events;
}

/**
 * Runs a message or answers; once the first is recorded, streams the turn's events from the log as AG-UI
 * events until it pauses or ends, then finishes the run. A refusal before anything is recorded rejects.
 */
async function stream(
  context: RunContext,
  options: { newMessage: boolean; sentOutputs?: Map<string, string> },
  run: (recorded: (eventSeq: number) => void) => Promise<TurnResult>,
): Promise<void> {
  const { host, input, writer } = context;
  const { running, first } = await untilRecorded(run);
  const events = new AgUiEventStream(context.send, options);
  if (first === undefined) {
    await running;
    return finish(context, events);
  }
  const result = await relayTurnEvents(host, input.threadId, first, running, {
    deliver: (event) => !events.ended && (events.handle(event), true),
    ended: () => events.ended,
    signal: writer.signal,
    flow: writer,
    pageSize: 500,
  });
  if (!result) return;
  if (!events.outcome && result.status === 'failed') {
    events.outcome = {
      failed: { code: result.error?.code ?? 'internal_error', message: result.error?.message ?? 'The turn failed.' },
    };
  }
  return finish(context, events);
}

/**
 * Ends the run: the state and the messages as snapshots (what a client needs to resume), then RUN_FINISHED
 * with an interrupt per pending action (or the frontend tool calls left to the client), or RUN_ERROR for a failed turn.
 */
async function finish(context: RunContext, events: AgUiEventStream | undefined): Promise<void> {
  const { host, agent, input, send } = context;
  const id = input.threadId;
  events?.closeText();
  const [conversation, actions, stored] = await Promise.all([
    host.store.getConversation(id),
    host.store.listActions(id),
    host.store.listMessages(id),
  ]);
  const children = conversation ? await childPendingRecords(host, conversation, stored) : [];
  const childOf = new Map(children.map((child) => [child.action.id, child]));
  const open = [...actions.filter((action) => action.status === 'pending'), ...children.map((child) => child.action)];
  const messages = snapshotMessages(liveMessages(stored));
  // Every interrupt names a call the client has: one it sent back in its messages, or one streamed in this run.
  // A call it has not seen (an intake's questions, which no `tool.called` announces) is streamed now, and put in
  // the snapshot if the stored messages lack it.
  const sentCalls = new Set(
    input.messages
      .flatMap((message) => (message.role === 'assistant' ? (message.toolCalls ?? []) : []))
      .map((call) => call.id),
  );
  const streamer = events ?? new AgUiEventStream(send, { newMessage: false });
  for (const action of open) {
    // A child's request waits under the parent's `agent_<name>` call, which the thread has already.
    if (childOf.has(action.id)) continue;
    if (sentCalls.has(action.toolCallId) || streamer.streamedCalls.has(action.toolCallId)) continue;
    const stored = storedCall(messages, action.toolCallId);
    const args = stored ? JSON.parse(stored.function.arguments) : ((action.request as { args?: unknown }).args ?? {});
    streamer.streamCall(action.toolCallId, action.toolName, args, action.messageId);
    if (stored) continue;
    const call = {
      id: action.toolCallId,
      type: 'function' as const,
      function: { name: action.toolName, arguments: JSON.stringify(args) },
    };
    const owner = messages.find((message) => message.id === action.messageId && message.role === 'assistant');
    if (owner && owner.role === 'assistant') owner.toolCalls = [...(owner.toolCalls ?? []), call];
    else messages.push({ id: action.messageId, role: 'assistant', toolCalls: [call] });
  }
  const state: JsonObject = {
    conversationId: id,
    status: conversation?.status ?? 'idle',
    pendingActionIds: open.map((action) => action.id),
  };
  send({ type: 'STATE_SNAPSHOT', snapshot: state } as BaseEvent);
  send({ type: 'MESSAGES_SNAPSHOT', messages } as BaseEvent);
  const outcome = events?.outcome;
  if (typeof outcome === 'object') {
    send({ type: 'RUN_ERROR', message: outcome.failed.message, code: outcome.failed.code } as BaseEvent);
    return;
  }
  const offered = new Set(input.tools.map((tool) => tool.name));
  const frontend =
    open.length > 0 && open.every((action) => kindOf(action.kind).agUi.frontendTool && offered.has(action.toolName));
  const run = { threadId: id, runId: input.runId };
  if (frontend) {
    send({
      type: 'RUN_FINISHED',
      ...run,
      outcome: { type: 'success', pendingToolCallIds: open.map((action) => action.toolCallId) },
    } as BaseEvent);
    return;
  }
  const interrupts = open.map((action) => {
    const child = childOf.get(action.id);
    // A child's request is named by the parent's call the client has, and shown as the child's agent asks it.
    return child
      ? interruptOf(
          { ...action, toolCallId: child.callId },
          { ...actionView(host, action, child.agent), via: child.via },
        )
      : interruptOf(action, actionView(host, action, agent));
  });
  send({ type: 'RUN_FINISHED', ...run, outcome: finishedOutcome(interrupts, outcome === 'cancelled') } as BaseEvent);
}

/** The call with this id among the snapshot's assistant messages. */
function storedCall(messages: Message[], toolCallId: string): ToolCall | undefined {
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    const call = message.toolCalls?.find((entry) => entry.id === toolCallId);
    if (call) return call;
  }
  return undefined;
}

/** Every request of the thread's children, pending or settled (what a replay of an answer through it finds). */
async function childrenAnswered(host: HeedHooks, id: string, messages: MessageRecord[]): Promise<ChildPending[]> {
  const conversation = await host.store.getConversation(id);
  return conversation ? childActionRecords(host, conversation, messages) : [];
}

/** The pending requests of the thread's open children, when it waits on them. */
async function childrenWaiting(host: HeedHooks, id: string, messages: MessageRecord[]): Promise<ChildPending[]> {
  const conversation = await host.store.getConversation(id);
  return conversation ? childPendingRecords(host, conversation, messages) : [];
}
