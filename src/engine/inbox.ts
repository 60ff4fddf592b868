import type { Caller } from '../caller.js';
import { currentVote, isVoted, mayVote } from '../kinds/approval-policy.js';
import { conversationTitle } from '../protocol/conversation.js';
import type { ConversationRecord } from '../types.js';
import { actionView, type ActionView } from '../views.js';
import { heldBy } from './delegation.js';
import { mayAccess, type Engine } from './engine.js';

type After = { createdAt: string; id: string };

/**
 * Every pending action waiting on the caller, oldest first: of the conversations they own, the approvals
 * naming them or one of their groups, and the same for each person whose delegation they hold (docs/approvals.md, Delegation;
 * those carry `onBehalfOf`). An anonymous caller's inbox is empty; no caller (the library) sees all.
 */
export async function inboxOf(
  engine: Engine,
  caller: Caller | undefined,
  limit: number,
  after: After | undefined,
): Promise<ActionView[]> {
  // An anonymous caller owns nothing, so its inbox is empty rather than everyone's ownerless requests.
  if (caller && caller.userId === null) return [];
  const conversations = new Map<string, ConversationRecord | undefined>();
  const own = await pendingOf(engine, caller, undefined, limit, after, conversations);
  if (!caller?.userId) return own;
  const held = await heldBy(engine.store, caller.userId, engine.now());
  if (held.length === 0) return own;
  // Each person's first `limit` hold every action of the union's first `limit`: merge, keep one of each.
  const merged = new Map(own.map((view) => [view.id, view]));
  for (const { from } of held) {
    for (const view of await pendingOf(engine, { userId: from }, caller.userId, limit, after, conversations))
      if (!merged.has(view.id)) merged.set(view.id, { ...view, onBehalfOf: from });
  }
  return [...merged.values()]
    .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1))
    .slice(0, limit);
}

/**
 * One person's pending actions, up to `limit`. `delegate`: the caller answering in their place, who may
 * not fill the seat of a four-eyes approval they asked for themselves.
 */
async function pendingOf(
  engine: Engine,
  caller: Caller | undefined,
  delegate: string | undefined,
  limit: number,
  from: After | undefined,
  conversations: Map<string, ConversationRecord | undefined>,
): Promise<ActionView[]> {
  const ownerId = caller ? caller.userId : undefined;
  // A signed-in caller also finds the approvals naming them or one of their groups; an approval they may not
  // (or no longer) vote on is left out.
  const approver = ownerId ?? undefined;
  const groups = approver !== undefined && caller?.groups?.length ? caller.groups : undefined;
  const views: ActionView[] = [];
  let after = from;
  for (;;) {
    const actions = await engine.store.listPendingActions({ ownerId, approver, groups, limit, after });
    for (const action of actions) {
      if (!conversations.has(action.conversationId))
        conversations.set(action.conversationId, await engine.store.getConversation(action.conversationId));
      const record = conversations.get(action.conversationId);
      if (caller && isVoted(action.request)) {
        const userId = caller.userId;
        const owns = record !== undefined && mayAccess(caller, record);
        if (
          userId === null ||
          !mayVote(action.request, caller, record?.ownerId ?? null, owns) ||
          currentVote(action.request, userId) ||
          (delegate !== undefined && action.request.excludeRequester && delegate === record?.ownerId)
        )
          continue;
      }
      const conversation = record
        ? { agent: record.agent, title: conversationTitle(record.metadata), ownerId: record.ownerId }
        : undefined;
      views.push({
        ...actionView(engine, action, record?.agent ?? ''),
        ...(conversation ? { conversation } : {}),
      });
      if (views.length === limit) return views;
    }
    const last = actions.at(-1);
    if (actions.length < limit || !last) return views;
    after = { createdAt: last.createdAt, id: last.id };
  }
}
