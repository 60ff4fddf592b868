import type { Caller } from '../caller.js';
import { conversationTitle } from '../protocol/conversation.js';
import type { ActionRecord, ConversationRecord } from '../types.js';
import { actionView, type ActionView } from '../views.js';
import { mayAnswerFromInbox } from './access.js';
import { heldBy } from './delegation.js';
import type { Engine } from './engine.js';
import { parentOf } from './children.js';

type After = { createdAt: string; id: string };

/**
 * With `hitl.authorizeResolve` set, how many pending actions (the oldest after the cursor, of the whole
 * server) one inbox read asks the hook about, beside what the store finds for the caller: the hook runs in
 * code, not in SQL, so this bounds its calls. An action only the hook allows, beyond them, shows once older
 * ones are answered.
 */
export const HOOK_SCAN = 200;

/**
 * Every pending action the caller may answer (src/engine/access.ts), oldest first: of the conversations
 * they own, the approvals and requests naming them or one of their groups, and the same for each person
 * whose delegation they hold (docs/approvals.md, Delegation; those carry `onBehalfOf`). With
 * `hitl.authorizeResolve` set, the hook decides each one, and adds those it allows among the `HOOK_SCAN`
 * oldest pending. An anonymous caller's inbox is empty; no caller (the library) sees all.
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
  const hook = caller ? engine.hitl.authorizeResolve : undefined;
  const allowed = hook
    ? async (action: ActionRecord, conversation: ConversationRecord | undefined) =>
        conversation !== undefined && (await hook(caller ?? null, { conversation, action }))
    : undefined;
  const own = await pendingOf(engine, caller, undefined, limit, after, conversations, allowed);
  if (!caller?.userId) return own;
  const merged = new Map(own.map((view) => [view.id, view]));
  // Each person's first `limit` hold every action of the union's first `limit`: merge, keep one of each.
  for (const { from } of await heldBy(engine.store, caller.userId, engine.now())) {
    for (const view of await pendingOf(engine, { userId: from }, caller.userId, limit, after, conversations, allowed))
      if (!merged.has(view.id)) merged.set(view.id, { ...view, onBehalfOf: from });
  }
  if (allowed) {
    for (const action of await engine.store.listPendingActions({ limit: HOOK_SCAN, after })) {
      if (merged.has(action.id)) continue;
      const record = await conversationOf(engine, action, conversations);
      if (!(await allowed(action, record)) || !mayAnswerFromInbox(caller, record, action, undefined, true)) continue;
      merged.set(action.id, await inboxView(engine, action, record, conversations));
    }
  }
  return [...merged.values()]
    .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1))
    .slice(0, limit);
}

/**
 * One person's pending actions, up to `limit`, as the store's filter finds them (owned, or naming them) and
 * `mayAnswerFromInbox` keeps them. `delegate`: the caller answering in their place. `allowed`: the hook.
 */
async function pendingOf(
  engine: Engine,
  caller: Caller | undefined,
  delegate: string | undefined,
  limit: number,
  from: After | undefined,
  conversations: Map<string, ConversationRecord | undefined>,
  allowed: ((action: ActionRecord, conversation: ConversationRecord | undefined) => Promise<boolean>) | undefined,
): Promise<ActionView[]> {
  const ownerId = caller ? caller.userId : undefined;
  const approver = ownerId ?? undefined;
  const groups = approver !== undefined && caller?.groups?.length ? caller.groups : undefined;
  const views: ActionView[] = [];
  let after = from;
  for (;;) {
    const actions = await engine.store.listPendingActions({ ownerId, approver, groups, limit, after });
    for (const action of actions) {
      const record = await conversationOf(engine, action, conversations);
      if (caller) {
        const hookAllowed = allowed !== undefined && (await allowed(action, record));
        if (allowed && !hookAllowed) continue;
        if (!mayAnswerFromInbox(caller, record, action, delegate, hookAllowed)) continue;
      }
      views.push(await inboxView(engine, action, record, conversations));
      if (views.length === limit) return views;
    }
    const last = actions.at(-1);
    if (actions.length < limit || !last) return views;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

async function conversationOf(
  engine: Engine,
  action: ActionRecord,
  conversations: Map<string, ConversationRecord | undefined>,
): Promise<ConversationRecord | undefined> {
  if (!conversations.has(action.conversationId))
    conversations.set(action.conversationId, await engine.store.getConversation(action.conversationId));
  return conversations.get(action.conversationId);
}

/**
 * An action as the inbox lists it. A child conversation's (an agent called by another, docs/concepts.md) is
 * shown as its first ancestor's: that conversation's agent, title and owner, with `via` naming the child
 * conversations it waits in; its `conversationId` stays the child's (either route answers it).
 */
async function inboxView(
  engine: Engine,
  action: ActionRecord,
  record: ConversationRecord | undefined,
  conversations: Map<string, ConversationRecord | undefined>,
): Promise<ActionView> {
  const via: Array<{ conversationId: string; agent: string }> = [];
  let shown = record;
  for (let link = shown && parentOf(shown); shown && link; link = parentOf(shown)) {
    via.unshift({ conversationId: shown.id, agent: shown.agent });
    if (!conversations.has(link.conversationId))
      conversations.set(link.conversationId, await engine.store.getConversation(link.conversationId));
    const parent = conversations.get(link.conversationId);
    if (!parent) break;
    shown = parent;
  }
  const conversation = shown
    ? { agent: shown.agent, title: conversationTitle(shown.metadata), ownerId: shown.ownerId }
    : undefined;
  return {
    ...actionView(engine, action, record?.agent ?? ''),
    ...(conversation ? { conversation } : {}),
    ...(via.length ? { via } : {}),
  };
}
