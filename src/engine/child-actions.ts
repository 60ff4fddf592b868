import type { Engine } from './engine.js';
import { actionView, type ActionView } from '../views.js';
import type { AgentConfig } from '../config.js';
import type { Store } from '../store/store.js';
import type { ActionRecord, ConversationRecord, MessageRecord } from '../types.js';
import { allChildCalls, openChildCalls } from './children.js';

type Via = { conversationId: string; agent: string };

/** What reading a conversation's children takes: the engine, or a surface's hooks. */
export interface ChildReader {
  readonly agents: ReadonlyMap<string, AgentConfig>;
  readonly store: Pick<Store, 'getConversation' | 'listActions' | 'listMessages'>;
}

/** A child's pending action as its parent lists it: the record, the child's agent, and the way down to it. */
export interface ChildPending {
  action: ActionRecord;
  agent: string;
  via: Via[];
  /** The parent's own `agent_<name>` call the action waits under (what a client of the parent has seen). */
  callId: string;
}

/**
 * The pending actions of a conversation's open children, and of theirs: each with the child's agent and `via`,
 * the child conversations it waits in, nearest first. Worked out on read from the parent's open
 * `agent_<name>` calls, so nothing is stored twice.
 */
export function childPendingRecords(
  reader: ChildReader,
  conversation: ConversationRecord,
  messages?: MessageRecord[],
): Promise<ChildPending[]> {
  return walkChildren(reader, conversation, messages, 'pending');
}

/**
 * Every action, pending or settled, of the children `messages` called (and of theirs), each with the child's
 * agent and `via`: what an answer given through the parent finds again once it is settled (a client's retry
 * of it is then a replay, as for the parent's own).
 */
export function childActionRecords(
  reader: ChildReader,
  conversation: ConversationRecord,
  messages: MessageRecord[],
): Promise<ChildPending[]> {
  return walkChildren(reader, conversation, messages, 'all');
}

/**
 * The one walk down a conversation's children: `pending`, only the open calls of a paused conversation, into
 * children that wait, and their pending actions; `all`, every call, child and action.
 */
async function walkChildren(
  reader: ChildReader,
  conversation: ConversationRecord,
  messages: MessageRecord[] | undefined,
  which: 'pending' | 'all',
  via: Via[] = [],
  callId?: string,
): Promise<ChildPending[]> {
  const pending = which === 'pending';
  const agent = reader.agents.get(conversation.agent);
  if (!agent?.agents?.length || (pending && conversation.status !== 'requires_action')) return [];
  const read = messages ?? (await reader.store.listMessages(conversation.id));
  const calls = pending ? openChildCalls(agent, conversation, read) : allChildCalls(agent, conversation, read);
  const found: ChildPending[] = [];
  for (const call of calls) {
    const child = await reader.store.getConversation(call.conversationId);
    if (!child || (pending && child.status !== 'requires_action')) continue;
    const path = [...via, { conversationId: child.id, agent: child.agent }];
    const top = callId ?? call.toolCallId;
    for (const action of await reader.store.listActions(child.id))
      if (!pending || action.status === 'pending') found.push({ action, agent: child.agent, via: path, callId: top });
    found.push(...(await walkChildren(reader, child, undefined, which, path, top)));
  }
  return found;
}

/** The pending actions of a conversation's open children, and of theirs, as the parent lists them (with `via`). */
export async function childPendingActions(
  engine: Engine,
  conversation: ConversationRecord,
  messages?: MessageRecord[],
): Promise<ActionView[]> {
  return (await childPendingRecords(engine, conversation, messages)).map(({ action, agent, via }) => ({
    ...actionView(engine, action, agent),
    via,
  }));
}

/**
 * The child (or deeper) conversation of `conversationId` that holds `actionId`, pending or not (an answer
 * that comes second through the parent gets the child's 409 with the stored resolution), when the
 * conversation's own actions do not.
 */
export async function childHolding(
  engine: Engine,
  conversationId: string,
  actionId: string,
): Promise<string | undefined> {
  const conversation = await engine.store.getConversation(conversationId);
  const agent = conversation && engine.agents.get(conversation.agent);
  if (!conversation || !agent?.agents?.length) return undefined;
  const calls = allChildCalls(agent, conversation, await engine.store.listMessages(conversationId));
  for (const call of calls) {
    if (await engine.store.getAction(call.conversationId, actionId)) return call.conversationId;
    const deeper = await childHolding(engine, call.conversationId, actionId);
    if (deeper) return deeper;
  }
  return undefined;
}

/** A parent's children, answered or not, in the order it called them, with how each stands now. */
export async function childrenOf(
  engine: Engine,
  conversation: ConversationRecord,
  messages: MessageRecord[],
): Promise<{ conversationId: string; agent: string; toolCallId: string; status: ConversationRecord['status'] }[]> {
  const calls = allChildCalls(engine.agents.get(conversation.agent), conversation, messages);
  const children = await Promise.all(calls.map((call) => engine.store.getConversation(call.conversationId)));
  return calls.flatMap((call, index) => {
    const child = children[index];
    return child
      ? [{ conversationId: child.id, agent: child.agent, toolCallId: call.toolCallId, status: child.status }]
      : [];
  });
}
