import { callerId, type Caller, type ChannelWrite } from '../caller.js';
import { HeedError } from '../errors.js';
import { byId, type Member } from '../groups.js';
import { currentVote, isVoted, mayVote, namesApprover } from '../kinds/approval-policy.js';
import { holdsRequest } from '../protocol/request-conversation.js';
import type { ActionRecord, ApprovalRequest, ConversationRecord } from '../types.js';
import { waitsOnAny } from './delegation.js';
import type { Engine } from './engine.js';

/**
 * Who may do what (DESIGN.md §18, "One access policy"; the table in docs/http.md#who-may-do-what): one
 * function per verb, asked by every route, stream, protocol, the inbox and the deciders. The stores'
 * pending filter (`listPendingActions`) finds the same actions `mayAnswer` allows without a hook, so the
 * inbox can ask the store first; `src/http/access-table.http.test.ts` drives every cell over HTTP.
 *
 * A call without a caller is the library acting as the owner. An ownerless conversation belongs to whoever
 * holds its id.
 */

/**
 * The one answer for a conversation the caller may not see, whether or not it exists: same status,
 * code, sentence and details, so no route tells the two apart.
 */
export function conversationNotFound(id: string): HeedError {
  return new HeedError('not_found', 'There is no conversation with that id.', { details: { conversationId: id } });
}

/**
 * Write as the owner: send a message, cancel a pause, branch, regenerate, forget a remembered tool, manage
 * A2A push configs. The owner only (anyone holding an ownerless conversation's id); a delegate answers
 * requests, never speaks as the owner. A channel's conversation is further written only from the channel
 * (`refuseChannelWrite`, below).
 */
export function mayWriteAsOwner(caller: Caller | undefined, conversation: ConversationRecord): boolean {
  if (caller === undefined) return true;
  if (conversation.ownerId === null) return true;
  return caller.userId === conversation.ownerId;
}

/**
 * 409 `channel_chat` for a write to a channel's conversation that does not come from the channel (nor from
 * its parent's write, for a child agent's conversation, which lives in its lead's thread).
 */
export function refuseChannelWrite(
  conversation: { channel: string | null },
  via: ChannelWrite['via'],
  sentence: string,
): void {
  if (!conversation.channel || via !== undefined) return;
  throw new HeedError('channel_chat', `This conversation lives in ${conversation.channel}; ${sentence}`, {
    details: { channel: conversation.channel },
  });
}

/**
 * See a conversation in the console's list: its owner's own. The store filter to list with (`ownerId`
 * undefined: every conversation, for the library), or undefined when the list is empty (anonymous).
 */
export function listedOwner(caller: Caller | undefined): { ownerId?: string } | undefined {
  if (caller === undefined) return {};
  return caller.userId === null ? undefined : { ownerId: caller.userId };
}

/**
 * A channel's conversation has no owner; for a signed-in caller it is read by the people its participants
 * map to (`participant`, src/engine/participants.ts; a child agent's, its lead's) and admins, not by whoever
 * holds its id. Without sign-in every caller is anonymous, and holding the id still reads it.
 */
export function readByParticipants(caller: Caller | undefined, conversation: ConversationRecord): boolean {
  return caller?.userId != null && conversation.channel !== null && conversation.ownerId === null;
}

/**
 * Read a conversation and follow its stream, without asking the hook: its owner (and the holders of an
 * ownerless one's id; a channel's, its mapped participants once people sign in), admins (`caller.admin`, set from `auth.admins`), anyone an action in it names among
 * its approvers or assignees (pending or settled), and a delegate while something in it waits on someone
 * they answer for. `mayRead` adds `authorizeResolve`.
 */
export function mayReadWithoutHook(
  caller: Caller | undefined,
  conversation: ConversationRecord,
  actions: readonly ActionRecord[],
  standsFor: readonly string[],
  participant = false,
): boolean {
  if (caller?.admin === true) return true;
  if (readByParticipants(caller, conversation)) {
    if (participant) return true;
  } else if (mayWriteAsOwner(caller, conversation)) return true;
  if (!caller?.userId) return false;
  return actions.some((action) => namesApprover(action, caller) || waitsOnAny(action, conversation, [...standsFor]));
}

/**
 * Read a conversation and follow its stream: `mayReadWithoutHook`, or, when `hitl.authorizeResolve` is set,
 * anyone signed in whom it allows to answer one of the conversation's actions, pending or settled (asked
 * action by action, newest first, until one says yes).
 */
export async function mayRead(
  engine: Engine,
  caller: Caller | undefined,
  conversation: ConversationRecord,
  actions: readonly ActionRecord[],
  standsFor: readonly string[],
  participant = false,
): Promise<boolean> {
  if (mayReadWithoutHook(caller, conversation, actions, standsFor, participant)) return true;
  const hook = engine.hitl.authorizeResolve;
  if (!hook || !caller?.userId) return false;
  for (const action of [...actions].reverse()) if (await hook(caller, { conversation, action })) return true;
  return false;
}

/** Who answers (or extends): the caller, or a link's recipient, and whom they stand for as a delegate now. */
export interface Answerer {
  caller?: Caller;
  /** Through a signed answer link: the token already named the action, so it reaches it as the owner would. */
  link?: { recipient: string | null };
  /** Whom the caller answers for, as their delegate (src/engine/delegation.ts `heldBy`). */
  standsFor?: string[];
}

/**
 * How far an answerer reaches a conversation before the hook is asked. `owns`: may answer as the owner
 * does (the owner, a link's recipient). `sees`: may read it (so a refusal is 403, not the 404 of
 * `conversationNotFound`).
 */
export interface Reach {
  owns: boolean;
  sees: boolean;
}

export function answerReach(who: Answerer, conversation: ConversationRecord, actions: readonly ActionRecord[]): Reach {
  const owns = who.link !== undefined || mayWriteAsOwner(who.caller, conversation);
  return { owns, sees: owns || mayReadWithoutHook(who.caller, conversation, actions, who.standsFor ?? []) };
}

/**
 * Who answers, as the approvers are matched against: a link's recipient (a user id, in no group), else the
 * caller with their groups, else (the library) the owner.
 */
export function answererOf(who: Answerer, conversation: ConversationRecord): Member {
  if (who.link) return byId(who.link.recipient);
  const caller = who.caller ?? { userId: conversation.ownerId };
  return { userId: callerId(caller), ...(caller.groups ? { groups: caller.groups } : {}) };
}

/**
 * Answer or vote on an action, once the conversation is reached (`answerReach`, and the hook asked for
 * whoever does not see it) and the action is open: the policy's approvers (user ids and group members) where
 * a policy names them, else the owner; a request's assignees; a link's recipient as the owner; the
 * delegates of any of these; with `hitl.authorizeResolve` set, whoever it allows (asked by the caller, in
 * the order of docs/concepts.md). Returns whom a delegate's answer is given for, or throws 403
 * `action_forbidden`. `extend`: whoever may answer may extend, voted already or not.
 */
export function mayAnswer(
  engine: Engine,
  who: Answerer,
  conversation: ConversationRecord,
  action: ActionRecord,
  reach: Reach,
  purpose: 'answer' | 'extend' = 'answer',
): { answeredFor?: string } {
  const hook = engine.hitl.authorizeResolve;
  const answerer = answererOf(who, conversation);
  // With an authorizeResolve hook, the hook (asked before) stands for "may answer the conversation".
  const mayAnswerAll = reach.owns || hook !== undefined;
  const voted = isVoted(action.request) ? action.request : undefined;
  if (voted) {
    const ownerId = conversation.ownerId;
    if (purpose === 'extend') {
      if (mayVote(voted, answerer, ownerId, mayAnswerAll)) return {};
      const seat = (who.standsFor ?? []).find(
        (from) => from !== answerer.userId && mayVote(voted, byId(from), ownerId, from === ownerId),
      );
      if (seat !== undefined && !(voted.excludeRequester && answerer.userId === ownerId)) return { answeredFor: seat };
      throw new HeedError('action_forbidden', 'You may not answer this request.', { details: { actionId: action.id } });
    }
    const seat = delegatedSeat(voted, answerer, ownerId, mayAnswerAll, who.standsFor);
    if (seat !== undefined) return { answeredFor: seat };
    const refusal = voteRefusal(voted, action, answerer, ownerId, mayAnswerAll);
    if (refusal) throw refusal;
    return {};
  }
  // A request made with POST /api/requests is answered by its assignees too.
  if (reach.owns || hook || (holdsRequest(conversation) && namesApprover(action, who.caller))) return {};
  // A delegate answers what waits on someone they answer for (docs/approvals.md, Delegation).
  const answeredFor = (who.standsFor ?? []).find(
    (id) => id === conversation.ownerId || (holdsRequest(conversation) && namesApprover(action, byId(id))),
  );
  if (answeredFor === undefined) throw new HeedError('action_forbidden', 'You may not answer this request.');
  return { answeredFor };
}

/**
 * What a batch of answers (`POST /api/inbox/decisions`) may find by action id, before the answer itself asks
 * `mayAnswer`: an action of a conversation someone owns, or one naming the caller among its approvers. An
 * ownerless conversation is guarded by its id alone, which a batch is not given: its actions are not found.
 */
export function mayFindForBatch(caller: Caller, conversation: ConversationRecord, action: ActionRecord): boolean {
  if (caller.userId === null) return false;
  return conversation.ownerId !== null || namesApprover(action, caller);
}

/**
 * See an action in the inbox: whoever may answer it, while it is pending (and, for a vote, has not voted).
 * `reach` as `answerReach` says for the person whose inbox it is (`delegate`: the caller answering in
 * their place, who may not fill the seat of a four-eyes approval they asked for themselves).
 */
export function mayAnswerFromInbox(
  who: Caller,
  conversation: ConversationRecord | undefined,
  action: ActionRecord,
  delegate: string | undefined,
  hookAllowed: boolean,
): boolean {
  if (action.status !== 'pending') return false;
  if (!isVoted(action.request)) return true;
  const userId = who.userId;
  const owns = hookAllowed || (conversation !== undefined && mayWriteAsOwner(who, conversation));
  return (
    userId !== null &&
    mayVote(action.request, who, conversation?.ownerId ?? null, owns) &&
    currentVote(action.request, userId) === undefined &&
    !(delegate !== undefined && action.request.excludeRequester && delegate === conversation?.ownerId)
  );
}

/**
 * Whose vote a delegate's answer is (docs/approvals.md, Delegation): none while the caller may still vote
 * themselves (their own vote comes first); else the first person they answer for who may vote and has not.
 * Never for the requester's own approval under four eyes, nor the requester voting in someone's place.
 */
function delegatedSeat(
  request: ApprovalRequest,
  voter: Member,
  ownerId: string | null,
  mayAnswerAll: boolean,
  standsFor: string[] | undefined,
): string | undefined {
  const id = voter.userId;
  if (id === null || !standsFor?.length) return undefined;
  if (mayVote(request, voter, ownerId, mayAnswerAll) && !currentVote(request, id)) return undefined;
  if (request.excludeRequester && id === ownerId) return undefined;
  // Whom a delegate stands for is known by user id alone: their groups are not (docs/approvals.md, Delegation).
  return standsFor.find(
    (from) => from !== id && mayVote(request, byId(from), ownerId, from === ownerId) && !currentVote(request, from),
  );
}

/** 403 for someone who may not vote on this approval (undefined: they may). */
function voteRefusal(
  request: ApprovalRequest,
  action: ActionRecord,
  who: Member,
  ownerId: string | null,
  owns: boolean,
): HeedError | undefined {
  const voter = who.userId;
  if (voter !== null && mayVote(request, who, ownerId, owns)) return undefined;
  const why =
    voter === null
      ? 'This approval is decided by votes, and a vote needs a signed-in caller.'
      : request.excludeRequester && voter === ownerId
        ? 'You asked for this, so someone else must approve it (four eyes).'
        : 'You are not among the approvers of this request.';
  return new HeedError('action_forbidden', why, { details: { actionId: action.id } });
}

/**
 * The routes that act on every person's records (erasing a person, reading the audit log): admins only
 * (`caller.admin`, from `auth.admins`), not the operators of `notify.operators`. 403 `forbidden` otherwise.
 */
export function mustBeAdmin(caller: Caller | undefined, what: string): void {
  if (caller?.admin === true) return;
  throw new HeedError('forbidden', `Only the admins named in auth.admins may ${what}.`);
}
