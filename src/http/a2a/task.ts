import type { Caller } from '../../caller.js';
import { HeedError } from '../../errors.js';
import type { Heed } from '../../heed.js';
import type { HeedHooks } from '../../hooks.js';
import { kindOf } from '../../kinds/index.js';
import type { ActionRecord, ConversationRecord, JsonObject, MessageRecord } from '../../types.js';
import { asJsonObject } from '../../protocol/values.js';
import { actionView } from '../../views.js';
import { childPendingRecords, type ChildPending } from '../../engine/child-actions.js';
import { actionResponseSchema } from '../ag-ui/events.js';

/*
 * A2A tasks read from Heed's store (docs/a2a.md): a task is the turn a user message started, with every
 * pause and continuation of it, up to the next user message. Its id is `<conversation id>.<message id>`,
 * so any instance, or one restarted, finds it again; nothing about a task is kept in memory. The objects
 * are A2A 1.0's JSON form (enum values as their names, parts as `{ text }` / `{ data }`).
 */

export type TaskState =
  | 'TASK_STATE_WORKING'
  | 'TASK_STATE_INPUT_REQUIRED'
  | 'TASK_STATE_AUTH_REQUIRED'
  | 'TASK_STATE_COMPLETED'
  | 'TASK_STATE_FAILED'
  | 'TASK_STATE_CANCELED';

/** Terminal states: nothing more happens to the task. */
export const TERMINAL = new Set<TaskState>(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED']);

export type A2aPart = { text: string } | { data: unknown; mediaType?: string };

export interface A2aMessage {
  messageId: string;
  contextId: string;
  taskId: string;
  role: 'ROLE_USER' | 'ROLE_AGENT';
  parts: A2aPart[];
  metadata?: JsonObject;
}

export interface A2aTask {
  id: string;
  contextId: string;
  status: { state: TaskState; message?: A2aMessage; timestamp: string };
  artifacts: Array<{ artifactId: string; name: string; parts: A2aPart[] }>;
  history: A2aMessage[];
  metadata: JsonObject;
}

/** Where a task lives: its conversation and the user message that started it. */
export interface TaskRef {
  conversationId: string;
  messageId: string;
}

/** The last entry that passes the test (Node 20's lib has no Array#findLast in this project's target). */
export function findLast<T>(list: readonly T[], test: (entry: T) => unknown): T | undefined {
  for (let index = list.length - 1; index >= 0; index--) if (test(list[index])) return list[index];
  return undefined;
}

export const taskId = (ref: TaskRef) => `${ref.conversationId}.${ref.messageId}`;

/** The same refusal for a task that does not exist, is another agent's, or is another user's: no id probing. */
export function taskNotFound(id: string): HeedError {
  return new HeedError('not_found', `There is no task "${id.slice(0, 200)}" you can see.`, {
    details: { taskId: id.slice(0, 200) },
  });
}

/** Parses a task id; undefined when it cannot be one. */
export function parseTaskId(id: string): TaskRef | undefined {
  const match = /^([A-Za-z0-9_-]{1,128})\.([A-Za-z0-9_-]{1,128})$/.exec(id);
  return match ? { conversationId: match[1], messageId: match[2] } : undefined;
}

/** Checks that the caller may read the conversation and that it is this agent's; the same not-found otherwise. */
export async function openContext(
  heed: Heed,
  caller: Caller,
  agent: string,
  conversationId: string,
  notFound: () => HeedError,
): Promise<void> {
  let owner: string;
  try {
    owner = (await heed.conversation(conversationId).get({ caller, messages: { limit: 1 } })).conversation.agent;
  } catch (thrown) {
    if (HeedError.isInstance(thrown) && (thrown.status === 404 || thrown.status === 403)) throw notFound();
    throw thrown;
  }
  if (owner !== agent) throw notFound();
}

/** Reads a task as the caller may see it, or throws the one not-found. */
export async function readTask(
  heed: Heed,
  host: HeedHooks,
  caller: Caller,
  agent: string,
  id: string,
): Promise<A2aTask> {
  const ref = parseTaskId(id);
  if (!ref) throw taskNotFound(id);
  await openContext(heed, caller, agent, ref.conversationId, () => taskNotFound(id));
  const task = await buildTask(host, agent, ref);
  if (!task) throw taskNotFound(id);
  return task;
}

const textOf = (message: MessageRecord) =>
  message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');

/** The task as the store holds it now; undefined when its message is not (or no longer) there. */
export async function buildTask(host: HeedHooks, agent: string, ref: TaskRef): Promise<A2aTask | undefined> {
  const [conversation, messages, actions] = await Promise.all([
    host.store.getConversation(ref.conversationId),
    host.store.listMessages(ref.conversationId),
    host.store.listActions(ref.conversationId),
  ]);
  if (!conversation) return undefined;
  const start = messages.findIndex((message) => message.id === ref.messageId && message.role === 'user');
  if (start < 0) return undefined;
  const next = messages.findIndex((message, index) => index > start && message.role === 'user');
  const own = messages.slice(start + 1, next < 0 ? undefined : next);
  const ownIds = new Set(own.map((message) => message.id));
  const ownActions = actions.filter((action) => ownIds.has(action.messageId));
  const latest = next < 0;
  const id = taskId(ref);
  const contextId = ref.conversationId;
  // A parent waiting on its children waits on their requests: the task shows them as its own (with `via`).
  const children =
    latest && conversation.status === 'requires_action' ? await childPendingRecords(host, conversation, messages) : [];
  const open = [
    ...ownActions.filter((action) => action.status === 'pending'),
    ...children.map((child) => child.action),
  ];
  const childOf = new Map(children.map((child) => [child.action.id, child]));

  let state: TaskState;
  if (latest && conversation.status === 'running') state = 'TASK_STATE_WORKING';
  else if (latest && open.length > 0) {
    state = open.some((action) => (kindOf(action.kind).a2aPause ?? 'input_required') === 'input_required')
      ? 'TASK_STATE_INPUT_REQUIRED'
      : 'TASK_STATE_AUTH_REQUIRED';
  } else state = await endedState(host, conversation, own, ownActions, latest);

  const replies = own.filter((message) => message.role === 'assistant' && textOf(message) !== '');
  const reply = replies.map(textOf).join('\n');
  const agentMessage = (messageId: string, parts: A2aPart[]): A2aMessage => ({
    messageId,
    contextId,
    taskId: id,
    role: 'ROLE_AGENT',
    parts,
  });
  let statusMessage: A2aMessage | undefined;
  if (open.length > 0 && (state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED')) {
    statusMessage = agentMessage(
      `status-${open.map((action) => action.id).join('-')}`,
      open.map((action) => pendingPart(host, agent, action, childOf.get(action.id))),
    );
  } else if (state === 'TASK_STATE_FAILED') {
    const failed = findLast(own, (message) => message.metadata?.failed)?.metadata?.failed;
    statusMessage = agentMessage(`status-failed-${ref.messageId}`, [
      { text: failed?.message ?? 'The turn failed.' },
      { data: { code: failed?.code ?? 'internal_error' } },
    ]);
  } else if (reply && state === 'TASK_STATE_COMPLETED') {
    statusMessage = agentMessage(replies.at(-1)!.id, [{ text: reply }]);
  }
  const user = messages[start];
  return {
    id,
    contextId,
    status: {
      state,
      ...(statusMessage ? { message: statusMessage } : {}),
      timestamp: (latest ? conversation.updatedAt : (own.at(-1) ?? user).createdAt) as string,
    },
    artifacts:
      state === 'TASK_STATE_COMPLETED' && reply
        ? [{ artifactId: `reply-${ref.messageId}`, name: 'reply', parts: [{ text: reply }] }]
        : [],
    history: [
      { messageId: user.id, contextId, taskId: id, role: 'ROLE_USER', parts: [{ text: textOf(user) }] },
      ...replies.map((message) => agentMessage(message.id, [{ text: textOf(message) }])),
    ],
    metadata: { heed: { conversationId: contextId, agent, pendingActionIds: open.map((action) => action.id) } },
  };
}

/** One open action as a data part: what it asks, and the JSON Schema of the answer a data part gives it. */
function pendingPart(host: HeedHooks, agent: string, action: ActionRecord, child?: ChildPending): A2aPart {
  const kind = kindOf(action.kind);
  const view = child ? { ...actionView(host, action, child.agent), via: child.via } : actionView(host, action, agent);
  return {
    data: {
      actionId: action.id,
      kind: action.kind,
      toolName: action.toolName,
      message: kind.presentation.headline?.(view) ?? kind.presentation.summary(view),
      answeredHere: (kind.a2aPause ?? 'input_required') === 'input_required',
      action: asJsonObject(view),
      answerSchema: actionResponseSchema(kind, view),
      ...(action.expiresAt ? { expiresAt: action.expiresAt } : {}),
    },
    mediaType: 'application/json',
  };
}

/**
 * How a task that is no longer running or paused ended: from the latest turn's last `turn.*` event when it is
 * the conversation's latest task, else from its messages (a failed turn leaves a marked message).
 */
async function endedState(
  host: HeedHooks,
  conversation: ConversationRecord,
  own: MessageRecord[],
  actions: ActionRecord[],
  latest: boolean,
): Promise<TaskState> {
  if (latest) {
    const tail = await host.events(conversation.id, {
      after: Math.max(0, conversation.lastEventSeq - 50),
      limit: 50,
    });
    const last = findLast(tail, (event) => event.type.startsWith('turn.') && event.type !== 'turn.started');
    if (last?.type === 'turn.failed') return 'TASK_STATE_FAILED';
    if (last?.type === 'turn.cancelled') return 'TASK_STATE_CANCELED';
    if (last?.type === 'turn.completed') return 'TASK_STATE_COMPLETED';
  }
  if (own.some((message) => message.metadata?.failed)) return 'TASK_STATE_FAILED';
  const lastAction = actions.at(-1);
  const answered = findLast(own, (message) => message.role === 'assistant' && textOf(message) !== '');
  if (lastAction?.status === 'cancelled' && (!answered || answered.position < positionOf(own, lastAction)))
    return 'TASK_STATE_CANCELED';
  return 'TASK_STATE_COMPLETED';
}

const positionOf = (own: MessageRecord[], action: ActionRecord) =>
  own.find((message) => message.id === action.messageId)?.position ?? 0;
