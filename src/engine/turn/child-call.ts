import { newConversationRecord } from '../engine.js';
import { allChildCalls, childConversationId, depthOf } from '../children.js';
import { createConversation } from '../transact.js';
import { newEvent } from '../../protocol/events.js';
import { messageContentProblem, titleFromMessage } from '../../protocol/conversation.js';
import { newId } from '../../ids.js';
import type { ConversationRecord, JsonValue, MessageRecord, ToolOutput, TurnWarning } from '../../types.js';
import type { Turn } from './turn.js';

/**
 * How a call of another agent stands: its result (the child's reply, or an error the model reads, with the
 * warning a refusal keeps on its message), or still waiting on the child.
 */
export type ChildCallOutcome =
  | { result: ToolOutput; isError?: true; warnings?: TurnWarning[] }
  | { waiting: { toolCallId: string; child: ConversationRecord } };

/** The children a turn may still start (`limits.childrenPerTurn`): `take` counts one off, false when none are left. */
export interface ChildBudget {
  take(): Promise<boolean>;
}

/**
 * The budget of the step `assistant` ends: the limit less the children the turn's calls (since the message it
 * answers) started already, counted from the store on first need, so a step settled again after a crash or a
 * pause counts the same children.
 */
export function childBudget(turn: Turn, assistant: MessageRecord): ChildBudget {
  let left: Promise<number> | undefined;
  const count = async () => {
    const from = turn.messages
      .filter((message) => message.role === 'user' && message.position < assistant.position)
      .at(-1);
    const messages = turn.messages.filter(
      (message) => message.position > (from?.position ?? -1) && message.position <= assistant.position,
    );
    const calls = allChildCalls(turn.agent, turn.conversation, messages);
    const started = await Promise.all(calls.map((call) => turn.engine.store.getConversation(call.conversationId)));
    return turn.engine.limits.childrenPerTurn - started.filter(Boolean).length;
  };
  return {
    take: async () => {
      left ??= count();
      const now = await left;
      if (now <= 0) return false;
      left = Promise.resolve(now - 1);
      return true;
    },
  };
}

type Call = { toolCallId: string; toolName: string; input: JsonValue };

/**
 * Settles a parent's `agent_<name>` call. The first time, the child conversation is created (the task as its
 * first message, its turn claimed in the same write) and its turn runs here; after that, the stored child
 * says how the call stands: still open (the parent waits), or ended, its reply being the call's result.
 * The child's id comes from the call's, so a parent taken over after a crash finds the child it started.
 */
export async function settleChildCall(
  turn: Turn,
  call: Call,
  agentName: string,
  budget: ChildBudget,
): Promise<ChildCallOutcome> {
  const engine = turn.engine;
  const childId = childConversationId(turn.conversation.id, call.toolCallId);
  let child = await engine.store.getConversation(childId);
  if (!child) {
    const task = (call.input as { task?: unknown } | null)?.task;
    if (typeof task !== 'string' || task.trim() === '')
      return error(`${call.toolName} needs a task: call it with { "task": "what to do" }.`);
    // The task is the child's first message: the rule for a person's message is its rule too (send.ts).
    const problem = messageContentProblem(task, 'task');
    if (problem)
      return refused('task_too_long', `${call.toolName} was not started: ${problem} Give it a shorter task.`, {
        characters: task.length,
      });
    const depth = depthOf(turn.conversation) + 1;
    const limit = engine.limits.agentDepth;
    if (depth > limit)
      return error(
        `${call.toolName} was not started: it would run ${depth} agents deep, deeper than limits.agentDepth (${limit}). Do the task without it.`,
      );
    if (!(await budget.take())) {
      const most = engine.limits.childrenPerTurn;
      return refused(
        'child_limit_reached',
        `${call.toolName} was not started: this turn has started as many agents as one may, limits.childrenPerTurn (${most}). Do the rest without them.`,
        { limit: most },
      );
    }
    // The call is stored before its child exists, so a takeover after a crash finds the call and then the child.
    await turn.flush();
    const started = await startChild(turn, call, agentName, childId, task, depth);
    turn.event('child.started', { toolCallId: call.toolCallId, conversationId: childId, agent: agentName });
    await turn.flush();
    if (started) {
      // The child's first turn runs inside the parent's: a child that needs nobody answers at once.
      await engine.children
        ?.runChild(started.conversation, started.leaseOwner, started.messages)
        .catch((thrown: unknown) =>
          engine.logger.warn({ conversationId: childId, error: String(thrown) }, 'Heed: a child turn stopped'),
        );
    }
    child = await engine.store.getConversation(childId);
    if (!child) return error(`${call.toolName} could not start its conversation.`);
  }
  if (child.status !== 'idle') return { waiting: { toolCallId: call.toolCallId, child } };
  const ended = await childReply(turn, child);
  turn.event('child.completed', {
    toolCallId: call.toolCallId,
    conversationId: child.id,
    agent: child.agent,
    status: ended.status,
  });
  return ended.status === 'completed' ? { result: ended.result } : { result: ended.result, isError: true };
}

/** Writes the child conversation with the task as its first message and its turn claimed; undefined when it already existed. */
async function startChild(
  turn: Turn,
  call: Call,
  agentName: string,
  childId: string,
  task: string,
  depth: number,
): Promise<{ conversation: ConversationRecord; leaseOwner: string; messages: MessageRecord[] } | undefined> {
  const engine = turn.engine;
  const at = engine.now();
  const leaseOwner = newId('lease');
  const record: ConversationRecord = {
    ...newConversationRecord({
      id: childId,
      agent: agentName,
      ownerId: turn.conversation.ownerId,
      // A child of a chat thread's conversation lives in that thread too: its requests are posted and answered
      // there, and it is written and read by the thread's rules (src/engine/access.ts), as its lead is.
      channel: turn.conversation.channel,
      metadata: {
        title: titleFromMessage(task),
        parent: { conversationId: turn.conversation.id, toolCallId: call.toolCallId, depth },
      },
      createdAt: at,
    }),
    status: 'running',
    leaseOwner,
    leaseExpiresAt: engine.leaseUntil(),
  };
  const message: MessageRecord = {
    id: newId('m'),
    conversationId: childId,
    position: 0,
    role: 'user',
    parts: [{ type: 'text', text: task }],
    metadata: null,
    createdAt: at,
  };
  const written = await createConversation(engine, {
    conversationId: childId,
    create: record,
    messages: [message],
    events: [
      newEvent('message.created', at, {
        messageId: message.id,
        role: 'user',
        parts: message.parts,
        by: turn.conversation.ownerId,
      }),
      newEvent('turn.started', at, { trigger: 'message' }),
    ],
  });
  // Taken already: a run of this call before a crash started it, and the child carries on by itself.
  if (!written.ok) return undefined;
  return { conversation: written.conversation, leaseOwner, messages: [message] };
}

/**
 * What the parent's model reads for an ended child: the text of its last reply; an error when its turn
 * failed, or when it was cancelled (its last message is not a reply).
 */
async function childReply(
  turn: Turn,
  child: ConversationRecord,
): Promise<{ status: 'completed' | 'failed' | 'cancelled'; result: ToolOutput }> {
  const messages = await turn.engine.store.listMessages(child.id);
  const last = messages.at(-1);
  const failed = last?.metadata?.failed as { message?: string } | undefined;
  if (failed)
    return {
      status: 'failed',
      result: {
        type: 'error-text',
        value: `The agent "${child.agent}" failed: ${failed.message ?? 'no reason given'}`,
      },
    };
  if (!last || last.role !== 'assistant')
    return {
      status: 'cancelled',
      result: { type: 'error-text', value: `The agent "${child.agent}" was cancelled before it answered.` },
    };
  const text = last.parts
    .flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join('\n')
    .trim();
  return { status: 'completed', result: { type: 'text', value: text || `The agent "${child.agent}" gave no reply.` } };
}

function error(value: string): ChildCallOutcome {
  return { result: { type: 'error-text', value }, isError: true };
}

/** A call refused by a limit: an error the model reads, and a warning with a stable code kept on its message. */
function refused(code: string, message: string, details: Record<string, number>): ChildCallOutcome {
  return { result: { type: 'error-text', value: message }, isError: true, warnings: [{ code, message, details }] };
}
