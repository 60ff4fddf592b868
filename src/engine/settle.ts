import { runTurnUnderLease } from './start.js';
import type { TurnResult } from './turn/run-turn.js';
import { callerId, refuseChannelWrite, type Caller, type ChannelWrite } from '../caller.js';
import { conversationNotFound, defaults, earliestDue, mayAccess, type Engine } from './engine.js';
import { HeedError } from '../errors.js';
import { newId } from '../ids.js';
import { newEvent, type EventData } from '../protocol/events.js';
import type { Change, NewEvent } from '../store/store.js';
import { toolResultWrites } from './tool-result.js';
import type { ActionRecord, ApprovalRequest, ConversationRecord, MessageRecord, ResolutionChannel, StoredResolution } from '../types.js';
import { castVote, currentVote, isVoted, mayVote, namesApprover, type VoteOutcome } from '../kinds/approval-policy.js';
import { actionView } from '../views.js';
import { checkResolution } from '../kinds/validate-resolution.js';
import { kindOf } from '../kinds/index.js';

export interface SettleOptions {
  /** Who answers; omitted = the library acting as the conversation's owner. */
  caller?: Caller;
  /**
   * An answer given in a chat workspace (docs/channels.md): recorded with this channel, after the adapter's
   * own rule of who may answer (`may`, checked in the 403 place of the order).
   */
  fromChannel?: { name: Extract<ResolutionChannel, 'slack'>; may?: (target: { conversation: ConversationRecord; action: ActionRecord }) => boolean | Promise<boolean> };
  /**
   * An answer through a signed answer link: the token already named this action, so the conversation's
   * access rule is not applied (`authorizeResolve` still is, with the recipient as caller); recorded with
   * the recipient as `resolvedBy` and channel `link`.
   */
  link?: { recipient: string | null };
  /** Called once the answer is recorded, before the continuation runs (a stream subscribes here). */
  onRecorded?: (info: { closesPause: boolean; eventSeq: number }) => void;
}

/** While other actions of the pause are still open, the answer's response says what is left. */
export type SettleResult = TurnResult;

/**
 * Settles one action. Checks run in a fixed order: 404 → 409 `action_not_pending` → 410 → 403 →
 * 400 → 402. The answer is recorded with compare-and-set; an answer that meets another one being
 * recorded retries for up to `hitl.resolveWaitMs`. The answer that closes the pause claims the
 * continuation in the same write, so exactly one continuation runs.
 */
export async function settleAction(engine: Engine, conversationId: string, actionId: string, raw: unknown, options: SettleOptions & ChannelWrite = {}): Promise<SettleResult> {
  const waitUntil = Date.now() + (engine.hitl.resolveWaitMs ?? defaults.resolveWaitMs);
  for (let attempt = 0; ; attempt++) {
    // One snapshot: the actions agree with the version the compare-and-set below expects, so an answer
    // computed from stale actions is refused. The messages are read only by an answer that needs them (a
    // refused or non-closing one never does); any write between the two reads bumps that version too.
    const read = await engine.store.readConversation(conversationId, { actions: true, remembered: true });
    if (!read) throw conversationNotFound(conversationId);
    const conversation = read.conversation;
    const actions = read.actions!;
    // Someone who may not see the conversation may still answer when the authorizeResolve hook says so;
    // until it has, they learn nothing: not whether the action exists, nor how it was settled.
    const owns = options.link !== undefined || mayAccess(options.caller, conversation);
    const hook = engine.hitl.authorizeResolve;
    // A named approver sees the conversation, and may answer only the approvals that name them (docs/approvals.md).
    const approver = !owns && actions.some((entry) => namesApprover(entry, options.caller?.userId));
    const sees = owns || approver;
    if (!sees && !hook) throw conversationNotFound(conversationId);
    const action = actions.find((entry) => entry.id === actionId);
    if (!action) {
      if (!sees) throw conversationNotFound(conversationId);
      throw new HeedError('not_found', 'There is no action with that id in this conversation.', { details: { actionId } });
    }
    if (!sees && !(await hook!(options.caller ?? null, { conversation, action }))) throw conversationNotFound(conversationId);
    await checkOpen(engine, conversation, action, { ...options, authorized: !sees });
    const resolvedBy = options.link ? options.link.recipient : callerId(options.caller ?? { userId: conversation.ownerId });
    const voted = isVoted(action.request) ? action.request : undefined;
    // With an authorizeResolve hook, the hook (asked above) stands for "may answer the conversation".
    if (voted) checkVoter(voted, action, resolvedBy, conversation.ownerId, owns || hook !== undefined);
    else if (!owns && !hook) throw new HeedError('action_forbidden', 'You may not answer this request.');

    const agent = engine.agents.get(conversation.agent);
    const checked = checkResolution(agent, action, raw, { limits: engine.limits, validateApprovedArgs: engine.validateApprovedArgs(agent) });
    const others = actions.filter((entry) => entry.status === 'pending' && entry.id !== action.id);
    const closes = others.length === 0;

    const at = engine.now();
    const votedEvents: NewEvent[] = [];
    if (voted && checked.stored.type === 'approval') {
      const { decision, comment, approvedArgs } = checked.stored;
      const outcome = castVote(voted, resolvedBy!, { decision, comment, approvedArgs }, at);
      votedEvents.push(newEvent('action.voted', at, votedEvent(action, outcome)));
      if (!outcome.decided) {
        // Not decided yet: the vote is kept on the pending action, compare-and-set like any answer.
        const result = await engine.commit({
          conversationId,
          expectVersion: conversation.version,
          revise: [{ id: action.id, request: outcome.request, reason: 'vote' }],
          events: votedEvents,
          set: { updatedAt: at },
        });
        if (!result.ok) {
          if (Date.now() < waitUntil) {
            await new Promise((resolve) => setTimeout(resolve, Math.min(50, 2 + attempt * 3 + Math.random() * 5)));
            continue;
          }
          throw new HeedError('conversation_busy', 'The conversation kept changing while the vote was being recorded; send it again.');
        }
        options.onRecorded?.({ closesPause: false, eventSeq: result.events[0].seq });
        const pending = actions.filter((entry) => entry.status === 'pending').map((entry) => (entry.id === action.id ? { ...entry, request: outcome.request } : entry));
        return { status: 'requires_action', conversationId, messages: [], pendingActions: pending.map((entry) => actionView(engine, entry, conversation.agent)) };
      }
      checked.stored = outcome.decided.resolution;
      checked.eventStatus = outcome.decided.eventStatus;
    }
    if (closes && !engine.budgetLeft(conversation)) throw engine.budgetError(conversation);

    const channel: ResolutionChannel = options.link ? 'link' : options.fromChannel ? options.fromChannel.name : 'api';
    const change: Change = {
      conversationId,
      expectVersion: conversation.version,
      settle: [{ id: action.id, status: 'resolved', resolution: checked.stored, resolvedBy, channel, resolvedAt: at, defaulted: checked.defaulted }],
      events: [...votedEvents, newEvent('action.resolved', at, resolvedEvent(action, checked.eventStatus, { resolvedBy, channel }, checked.stored, at))],
      set: { updatedAt: at },
    };
    let messages: MessageRecord[] | undefined;
    if (checked.toolOutput) {
      // The page's output becomes the tool result now; the record keeps only its size.
      messages = await engine.store.listMessages(conversationId);
      const position = messages.length;
      const logged = checked.loggedOutput ?? { output: checked.toolOutput };
      const result = toolResultWrites({ conversationId, position, at, call: action, output: checked.toolOutput, logged, approvedArgs: kindOf(action.kind).ranWith?.(action) });
      change.messages = [result.message];
      change.events!.push(result.event);
    }
    if (checked.remember) change.remember = [{ toolName: action.toolName, rememberedBy: resolvedBy, rememberedAt: at }];
    const leaseOwner = newId('lease');
    if (closes) {
      change.set = { ...change.set, status: 'running', leaseOwner, leaseExpiresAt: engine.leaseUntil(), actionDueAt: null };
      change.events!.push(newEvent('turn.started', at, { trigger: 'answer' }));
    } else {
      change.set = { ...change.set, actionDueAt: earliestDue(others) };
    }

    const result = await engine.commit(change);
    if (!result.ok) {
      if (Date.now() < waitUntil) {
        // Another answer was being recorded; look again (it may have settled this very action).
        await new Promise((resolve) => setTimeout(resolve, Math.min(50, 2 + attempt * 3 + Math.random() * 5)));
        continue;
      }
      throw new HeedError('conversation_busy', 'The conversation kept changing while the answer was being recorded; send it again.');
    }
    options.onRecorded?.({ closesPause: closes, eventSeq: result.events[0].seq });
    if (!closes) {
      return {
        status: 'requires_action',
        conversationId,
        messages: [],
        pendingActions: others.map((entry) => actionView(engine, entry, conversation.agent)),
      };
    }
    // The turn starts from what this answer just read and wrote, instead of reading it again.
    const settled = actions.map((entry) => (entry.id === action.id ? { ...entry, ...change.settle![0] } : entry));
    const remembered = [...read.remembered!.filter((entry) => !change.remember?.some((added) => added.toolName === entry.toolName)), ...(change.remember ?? [])];
    return runTurnUnderLease(engine, result.conversation, leaseOwner, {
      caller: options.caller ?? null,
      interactive: true,
      actions: settled,
      messages: messages && [...messages, ...(change.messages ?? [])],
      remembered,
    });
  }
}

/** The order of docs/concepts.md (Settling an answer) after the 404: 409, 410, 403 (`authorized`: the hook has already said yes), then the kind's own access. */
async function checkOpen(engine: Engine, conversation: ConversationRecord, action: ActionRecord, options: SettleOptions & ChannelWrite & { authorized: boolean }): Promise<void> {
  if (action.status === 'expired') throw expired(action);
  if (action.status !== 'pending') {
    throw new HeedError('action_not_pending', 'This action was already settled.', {
      // As the action's view shows it: `resolvedBy` only when a user answered.
      details: {
        actionId: action.id,
        status: action.status,
        resolution: action.resolution,
        ...(action.resolvedBy !== null ? { resolvedBy: action.resolvedBy } : {}),
        channel: action.channel,
        resolvedAt: action.resolvedAt,
      },
    });
  }
  if (action.expiresAt && action.expiresAt <= engine.now()) throw expired(action);
  refuseChannelWrite(conversation, options.via, 'answer it there.');
  const may = options.fromChannel?.may;
  if (may && !(await may({ conversation, action }))) throw new HeedError('action_forbidden', 'You may not answer this request.');
  const hook = engine.hitl.authorizeResolve;
  if (hook && !options.authorized && !(await hook(options.caller ?? null, { conversation, action }))) {
    throw new HeedError('action_forbidden', 'You may not answer this request.');
  }
  await kindOf(action.kind).checkAccess?.(action, { caller: options.caller ?? null, agent: engine.agents.get(conversation.agent) });
}

/** 403 for someone who may not vote on this approval; 409 `already_voted` for a second vote on the same arguments. */
function checkVoter(request: ApprovalRequest, action: ActionRecord, voter: string | null, ownerId: string | null, owns: boolean): void {
  if (!mayVote(request, voter, ownerId, owns)) {
    const why =
      voter === null
        ? 'This approval is decided by votes, and a vote needs a signed-in caller.'
        : request.excludeRequester && voter === ownerId
          ? 'You asked for this, so someone else must approve it (four eyes).'
          : 'You are not among the approvers of this request.';
    throw new HeedError('action_forbidden', why, { details: { actionId: action.id } });
  }
  const previous = currentVote(request, voter!);
  if (previous) {
    throw new HeedError('already_voted', `You already voted on this request (${previous.decision}).`, {
      details: { actionId: action.id, vote: previous },
    });
  }
}

function votedEvent(action: ActionRecord, outcome: VoteOutcome): EventData<'action.voted'> {
  const votes = outcome.request.votes ?? [];
  return {
    actionId: action.id,
    kind: 'approval',
    toolCallId: action.toolCallId,
    toolName: action.toolName,
    by: outcome.vote.by,
    decision: outcome.vote.decision,
    ...(outcome.vote.comment ? { comment: outcome.vote.comment } : {}),
    ...(outcome.vote.args !== undefined ? { editedArgs: true } : {}),
    allows: votes.filter((vote) => vote.decision === 'allow' && !vote.outdated).length,
    denies: votes.filter((vote) => vote.decision === 'deny').length,
    required: outcome.request.required ?? 1,
    decides: outcome.decided !== undefined,
  };
}

function expired(action: ActionRecord): HeedError {
  return new HeedError('action_expired', 'This request lapsed before it was answered.', {
    details: { actionId: action.id, expiresAt: action.expiresAt, status: action.status, resolution: action.resolution },
  });
}

/** `by`: the user id (null: anonymous, system, lapse) and how the action was settled, as two fields. */
export function resolvedEvent(
  action: ActionRecord,
  status: string,
  by: { resolvedBy: string | null; channel: ResolutionChannel },
  resolution: StoredResolution,
  at: string,
): EventData<'action.resolved'> {
  const data: EventData<'action.resolved'> = {
    actionId: action.id,
    kind: action.kind,
    toolCallId: action.toolCallId,
    toolName: action.toolName,
    status,
    resolvedBy: by.resolvedBy,
    channel: by.channel,
  };
  // The resolution is of the action's own kind (checked when it was answered, or the kind's own lapse).
  return resolution.type === 'cancelled' ? data : { ...data, ...kindOf(resolution.type).resolvedDetails?.(resolution, action as never, at) };
}
