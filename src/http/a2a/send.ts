import type { Caller } from '../../caller.js';
import { DuplicateMessage } from '../../engine/decide/send.js';
import { checkMessageContent } from '../../engine/send.js';
import type { TurnResult } from '../../engine/turn/run-turn.js';
import { HeedError } from '../../errors.js';
import type { Heed } from '../../heed.js';
import type { HeedHooks } from '../../hooks.js';
import { kindOf } from '../../kinds/index.js';
import { childActionRecords } from '../../engine/child-actions.js';
import type { ActionRecord } from '../../types.js';
import { checkReplay } from '../ag-ui/resume.js';
import { openConversation } from '../ai-sdk-chat.js';
import { untilRecorded } from '../turn-stream.js';
import { badParams } from './json-rpc.js';
import { findLast, openContext, parseTaskId, taskNotFound, type TaskRef } from './task.js';

/*
 * `SendMessage` / `SendStreamingMessage` (docs/a2a.md): a message without `taskId` starts a task (a turn)
 * in the conversation named by `contextId` (a new one when absent); a message on a paused task's `taskId`
 * answers one of its open actions with its data part, settled by the normal order. Refusals are thrown
 * before anything is recorded.
 */

export interface A2aRequestContext {
  heed: Heed;
  host: HeedHooks;
  caller: Caller;
  agent: string;
  countNewConversation: () => void;
}

export interface SentPart {
  text?: string;
  data?: unknown;
  metadata?: Record<string, unknown>;
}

export interface SentMessage {
  messageId: string;
  contextId?: string;
  taskId?: string;
  parts: SentPart[];
  metadata?: Record<string, unknown>;
}

/** What a send started: the task, the first event number it wrote (none for a replay), and the turn's outcome. */
export interface Started {
  ref: TaskRef;
  firstSeq: number | undefined;
  running: Promise<unknown>;
}

const CONVERSATION_ID = /^[A-Za-z0-9_-]{1,128}$/;

export async function startSend(context: A2aRequestContext, message: SentMessage): Promise<Started> {
  return message.taskId ? answer(context, message, message.taskId) : newTask(context, message);
}

async function newTask(context: A2aRequestContext, message: SentMessage): Promise<Started> {
  const { heed, host, caller, agent } = context;
  if (message.parts.some((part) => part.data !== undefined)) {
    throw badParams(
      "A data part answers a paused task: send it with that task's taskId. A new task starts from text parts.",
      'params.message.parts',
    );
  }
  const text = message.parts.flatMap((part) => (typeof part.text === 'string' ? [part.text] : [])).join('\n');
  checkMessageContent(text, 'params.message.parts');
  let conversationId = message.contextId;
  if (conversationId) {
    if (!CONVERSATION_ID.test(conversationId))
      throw badParams(
        'The contextId is a conversation id: 1 to 128 letters, digits, _ or -.',
        'params.message.contextId',
      );
    await openConversation(heed, caller, agent, conversationId, context.countNewConversation);
  } else {
    context.countNewConversation();
    conversationId = (await heed.createConversation({ agent, caller })).id;
  }
  const id = conversationId;
  const mine = (stored: { metadata?: unknown }) =>
    (stored.metadata as { a2aMessageId?: unknown } | null)?.a2aMessageId === message.messageId;
  let recorded: { running: Promise<TurnResult>; first: number | undefined };
  try {
    recorded = await untilRecorded<number>((onRecorded) =>
      heed.conversation(id).send(text, {
        caller,
        busyPolicy: 'reject',
        metadata: { a2aMessageId: message.messageId },
        seen: (messages) => messages.some(mine),
        onRecorded: (info) => onRecorded(info.eventSeq),
      }),
    );
  } catch (thrown) {
    // The same message sent again (a retry): it is the task it started, whatever became of it.
    if (!(thrown instanceof DuplicateMessage)) throw thrown;
    recorded = { running: Promise.resolve(undefined as never), first: undefined };
  }
  const stored = findLast(await host.store.listMessages(id), (entry) => entry.role === 'user' && mine(entry));
  if (!stored) throw new HeedError('internal_error', 'The message was recorded but cannot be read back.');
  return { ref: { conversationId: id, messageId: stored.id }, firstSeq: recorded.first, running: recorded.running };
}

/** The action a data part answers: the one its metadata names, else the task's one open action the caller answers. */
function pickAction(
  actions: ActionRecord[],
  taskMessages: Set<string>,
  named: unknown,
  id: string,
  children: ActionRecord[],
): ActionRecord {
  const own = [...actions.filter((action) => taskMessages.has(action.messageId)), ...children];
  if (named !== undefined) {
    const action = own.find((entry) => entry.id === named);
    if (!action) throw badParams(`The task ${id} has no action "${String(named).slice(0, 100)}".`, 'actionId');
    return action;
  }
  const open = own.filter(
    (action) => action.status === 'pending' && (kindOf(action.kind).a2aPause ?? 'input_required') === 'input_required',
  );
  if (open.length > 1) {
    throw badParams(
      `The task waits on ${open.length} answers: name the one this data part answers in the part's metadata.actionId (${open.map((action) => action.id).join(', ')}).`,
      'actionId',
    );
  }
  if (open.length === 1) return open[0];
  // Nothing open: the latest answered one (the task's own or a child's), so that a replay of its answer finds it.
  const settled = own
    .filter((action) => (kindOf(action.kind).a2aPause ?? 'input_required') === 'input_required')
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .at(-1);
  if (!settled) {
    throw new HeedError('action_not_pending', `The task ${id} does not wait on an answer from you.`, {
      details: { taskId: id },
    });
  }
  return settled;
}

async function answer(context: A2aRequestContext, message: SentMessage, id: string): Promise<Started> {
  const { heed, host, caller, agent } = context;
  const ref = parseTaskId(id);
  if (!ref) throw taskNotFound(id);
  await openContext(heed, caller, agent, ref.conversationId, () => taskNotFound(id));
  if (message.contextId && message.contextId !== ref.conversationId)
    throw badParams('The contextId is not the context of that task.', 'params.message.contextId');
  const [conversation, messages, actions] = await Promise.all([
    host.store.getConversation(ref.conversationId),
    host.store.listMessages(ref.conversationId),
    host.store.listActions(ref.conversationId),
  ]);
  const start = messages.findIndex((entry) => entry.id === ref.messageId && entry.role === 'user');
  if (start < 0 || !conversation) throw taskNotFound(id);
  const next = messages.findIndex((entry, index) => index > start && entry.role === 'user');
  const inTask = messages.slice(start + 1, next < 0 ? undefined : next);
  // A parent's task also waits on its children's requests (answered in the child, src/engine/settle.ts); once
  // settled, the same answer again is a replay, as for the task's own.
  const children = await childActionRecords(host, conversation, inTask);
  const agentOf = new Map(children.map((child) => [child.action.id, child.agent]));
  const taskMessages = new Set(inTask.map((entry) => entry.id));
  const data = message.parts.filter((part) => part.data !== undefined);
  if (data.length !== 1) {
    throw new HeedError(
      'invalid_resolution',
      'Answer a paused task with exactly one data part holding the resolution (its JSON Schema is in the status message and the card).',
      { details: { field: 'params.message.parts' } },
    );
  }
  const [part] = data;
  const action = pickAction(
    actions,
    taskMessages,
    part.metadata?.actionId ?? message.metadata?.actionId,
    id,
    children.map((child) => child.action),
  );
  const answering = agentOf.get(action.id) ?? agent;
  const resolution = kindOf(action.kind).agUi.answerFromResume('resolved', part.data);
  if (action.status !== 'pending') return replay(context, ref, action, resolution, answering);
  try {
    const recorded = await untilRecorded<number>((onRecorded) =>
      heed.conversation(ref.conversationId).resolve(action.id, resolution, {
        caller,
        onRecorded: (info) => onRecorded(info.eventSeq),
      }),
    );
    return { ref, firstSeq: recorded.first, running: recorded.running };
  } catch (thrown) {
    // Settled meanwhile elsewhere (another surface, a retry of this very message): the same answer is a replay.
    if (!HeedError.isInstance(thrown) || thrown.code !== 'action_not_pending') throw thrown;
    const now = await host.store.getAction(action.conversationId, action.id);
    return replay(context, ref, now ?? action, resolution, answering);
  }
}

/**
 * An answer to an action settled already: the same answer changes nothing and follows the task; another one is
 * refused. `agent`: the agent whose action it is (a child's, for a request the task lists from its child).
 */
async function replay(
  context: A2aRequestContext,
  ref: TaskRef,
  action: ActionRecord,
  resolution: Record<string, unknown>,
  agent: string,
): Promise<Started> {
  await checkReplay(context.host, context.caller, agent, action, resolution);
  return { ref, firstSeq: undefined, running: Promise.resolve(undefined) };
}
