// The settle verb's deciding half: pure, from what was read to the writes and the answer. Its running half,
// src/engine/settle.ts, reads the store, commits through the runner and starts what comes next.
import type { Caller, ChannelWrite } from '../../caller.js';
import { earliestDue, type Engine } from '../engine.js';
import { answererOf, answerReach, conversationNotFound, mayAnswer, refuseChannelWrite } from '../access.js';
import { HeedError } from '../../errors.js';
import { newId } from '../../ids.js';
import { newEvent, type EventData } from '../../protocol/events.js';
import type { ActionSettlement, NewEvent } from '../../store/store.js';
import type { ChannelPlatform } from '../../protocol/action-base.js';
import { toolResultWrites } from '../tool-result.js';
import { holdsRequest } from '../../protocol/request-conversation.js';
import type {
  ActionRecord,
  ConversationRecord,
  MessageRecord,
  RememberedTool,
  AnswerSurface,
  StoredResolution,
} from '../../types.js';
import { castVote, currentVote, isVoted, type VoteOutcome } from '../../kinds/approval-policy.js';
import { checkResolution } from '../../kinds/validate-resolution.js';
import { describeResolution, kindOf } from '../../kinds/index.js';
import { actionView } from '../../views.js';
import type { Decision, Snapshot, Write } from '../transact.js';
import { refuseUnanswerable, refuseUntakeable } from '../../agents/handler-turn.js';
import { extended } from '../../objects.js';

/** Who answers and through what (src/engine/settle.ts's SettleOptions, as the decider reads them). */
export interface SettleInput extends ChannelWrite {
  caller?: Caller;
  fromChannel?: {
    name: ChannelPlatform;
    may?: (target: { conversation: ConversationRecord; action: ActionRecord }) => boolean | Promise<boolean>;
  };
  link?: { recipient: string | null };
  /**
   * Whom the caller answers for, as their delegate, at the time of the answer (src/engine/delegation.ts,
   * read by settle.ts): they may answer what waits on those people too.
   */
  standsFor?: string[];
}

/**
 * What the settle decider reads first: the conversation, its actions and its remembered tools, and (settle.ts
 * adds `messagesWhenClosing`) the messages when the answered action is the one still pending, so an answer
 * that closes the pause reads once. A refused or replayed answer never reads a long conversation; an answer
 * that carries a tool's output without closing the pause asks for a snapshot with the messages.
 */
export const settleParts = { actions: true, remembered: true } as const;

/**
 * What an answer did: a vote kept on an approval still undecided, or a settled action; `closes` when it was
 * the pause's last open action, with the claim it took (`leaseOwner`) and what the turn then starts from.
 * `action` is the settled action as the store now holds it, so the answer's response needs no read back.
 */
export type Settled =
  | { type: 'voted'; pending: ActionRecord[] }
  | { type: 'settled'; closes: false; action: ActionRecord; others: ActionRecord[] }
  | {
      type: 'settled';
      closes: true;
      action: ActionRecord;
      leaseOwner: string;
      actions: ActionRecord[];
      messages: MessageRecord[];
      remembered: RememberedTool[];
    };

/**
 * The settle decider: checks in the order of docs/concepts.md (Settling an answer): 404 → 409
 * `action_not_pending` → 410 → 403 → 400 → 402, then writes the answer (or the vote). The answer that
 * closes the pause claims the continuation in the same write, so exactly one continuation runs.
 */
export async function decideSettle(
  engine: Engine,
  actionId: string,
  raw: unknown,
  input: SettleInput,
  read: Snapshot<typeof settleParts> & { messages?: MessageRecord[] },
): Promise<Decision<Settled>> {
  const { conversation, actions } = read;
  const conversationId = conversation.id;
  // Someone who may not see the conversation may still answer when the authorizeResolve hook says so;
  // until it has, they learn nothing: not whether the action exists, nor how it was settled.
  const reach = answerReach(input, conversation, actions);
  const { sees } = reach;
  const hook = engine.hitl.authorizeResolve;
  if (!sees && !hook) throw conversationNotFound(conversationId);
  const action = actions.find((entry) => entry.id === actionId);
  if (!action) {
    if (!sees) throw conversationNotFound(conversationId);
    throw new HeedError('not_found', 'There is no action with that id in this conversation.', {
      details: { actionId },
    });
  }
  const closes = actions.every((entry) => entry.status !== 'pending' || entry.id === action.id);
  // Asked before the hooks when the caller sees the conversation, so they are asked once; someone who does
  // not see it reads no message before the authorizeResolve hook has said yes.
  if (!read.messages && sees && action.status === 'pending' && closes)
    return { type: 'read', parts: { messages: true } };
  if (!sees && hook && !(await hook(input.caller ?? null, { conversation, action })))
    throw conversationNotFound(conversationId);
  // An agent whose handler has no resolveAction could not go on from an answer: 404, nothing recorded.
  refuseUnanswerable(engine.agents.get(conversation.agent), action.id);
  if (!read.messages && action.status === 'pending' && closes) return { type: 'read', parts: { messages: true } };
  await checkOpen(engine, conversation, action, { ...input, authorized: !sees });
  const answerer = answererOf(input, conversation);
  const resolvedBy = answerer.userId;
  const voted = isVoted(action.request) ? action.request : undefined;
  const { answeredFor } = mayAnswer(engine, input, conversation, action, reach);
  if (voted && answeredFor === undefined && resolvedBy !== null) {
    const previous = currentVote(voted, resolvedBy);
    if (previous) {
      throw new HeedError('already_voted', `You already voted on this request (${previous.decision}).`, {
        details: { actionId: action.id, vote: previous },
      });
    }
  }

  const agent = engine.agents.get(conversation.agent);
  const checked = checkResolution(agent, action, raw, {
    limits: engine.limits,
    validateApprovedArgs: engine.setting(agent, 'validateApprovedArgs'),
  });
  // A handler agent may refuse what it cannot take (edited arguments its framework cannot run): 400, nothing recorded.
  refuseUntakeable(agent, conversation, action, checked.stored);
  const others = actions.filter((entry) => entry.status === 'pending' && entry.id !== action.id);
  // A tool's output becomes a message at the end of the conversation: its position needs the messages.
  if (checked.toolOutput && !read.messages) return { type: 'read', parts: { messages: true } };

  const at = engine.now();
  const votedEvents: NewEvent[] = [];
  if (voted && checked.stored.type === 'approval') {
    const { decision, comment, approvedArgs } = checked.stored;
    // A vote needs a signed-in voter: checkVoter refused a null one above.
    const outcome = castVote(voted, resolvedBy ?? '', { decision, comment, approvedArgs }, at, answeredFor);
    votedEvents.push(newEvent('action.voted', at, votedEvent(action, outcome, surfaceOf(input))));
    if (!outcome.decided) {
      // Not decided yet: the vote is kept on the pending action, compare-and-set like any answer.
      const pending = actions
        .filter((entry) => entry.status === 'pending')
        .map((entry) => (entry.id === action.id ? { ...entry, request: outcome.request } : entry));
      return {
        type: 'write',
        write: {
          revise: [{ id: action.id, request: outcome.request, reason: 'vote' }],
          events: votedEvents,
          set: { updatedAt: at },
        },
        value: { type: 'voted', pending },
      };
    }
    checked.stored = outcome.decided.resolution;
    checked.eventStatus = outcome.decided.eventStatus;
  }
  if (closes && !engine.budgetLeft(conversation)) throw engine.budgetError(conversation);

  const surface = surfaceOf(input);
  const settlement: ActionSettlement = {
    id: action.id,
    status: 'resolved' as const,
    resolution: checked.stored,
    resolvedBy,
    ...(answeredFor !== undefined ? { answeredFor } : {}),
    channel: surface,
    resolvedAt: at,
    defaulted: checked.defaulted,
  };
  const events = [
    ...votedEvents,
    newEvent(
      'action.resolved',
      at,
      resolvedEvent(action, checked.eventStatus, { resolvedBy, answeredFor, surface }, checked.stored, at),
    ),
  ];
  const settled = withSettlement(action, settlement);
  const write: Write = { settle: [settlement], events, set: { updatedAt: at } };
  const added: MessageRecord[] = [];
  if (checked.toolOutput) {
    // The page's output becomes the tool result now; the record keeps only its size.
    const logged = checked.loggedOutput ?? { output: checked.toolOutput };
    const approvedArgs = kindOf(action.kind).ranWith?.(action);
    const result = toolResultWrites({
      conversationId,
      position: messagesOf(read).length,
      at,
      call: action,
      output: checked.toolOutput,
      logged,
      approvedArgs,
    });
    added.push(result.message);
    write.messages = added;
    events.push(result.event);
  }
  const remember = checked.remember ? [{ toolName: action.toolName, rememberedBy: resolvedBy, rememberedAt: at }] : [];
  if (remember.length > 0) write.remember = remember;
  if (holdsRequest(conversation) && closes) {
    // No agent runs here: the answer is all there is, and the conversation rests.
    write.set = { updatedAt: at, status: 'idle', actionDueAt: null };
    return { type: 'write', write, value: { type: 'settled', closes: false, action: settled, others: [] } };
  }
  if (!closes) {
    write.set = { updatedAt: at, actionDueAt: earliestDue(others) };
    return { type: 'write', write, value: { type: 'settled', closes: false, action: settled, others } };
  }
  const leaseOwner = newId('lease');
  write.set = { updatedAt: at, status: 'running', leaseOwner, leaseExpiresAt: engine.leaseUntil(), actionDueAt: null };
  events.push(newEvent('turn.started', at, { trigger: 'answer' }));
  // The turn starts from what this answer just read and wrote, instead of reading it again.
  return {
    type: 'write',
    write,
    value: {
      type: 'settled',
      closes: true,
      action: settled,
      leaseOwner,
      actions: actions.map((entry) => (entry.id === action.id ? settled : entry)),
      messages: [...messagesOf(read), ...added],
      remembered: [
        ...read.remembered.filter((entry) => !remember.some((one) => one.toolName === entry.toolName)),
        ...remember,
      ],
    },
  };
}

/** `action` as the stores hold it once `settlement` is applied (src/store/memory/memory-store.ts applies it the same way). */
function withSettlement(action: ActionRecord, settlement: ActionSettlement): ActionRecord {
  const { answeredFor: _before, ...rest } = action;
  return extended(rest, {
    status: settlement.status,
    resolution: settlement.resolution,
    resolvedBy: settlement.resolvedBy,
    ...(settlement.answeredFor !== undefined ? { answeredFor: settlement.answeredFor } : {}),
    channel: settlement.channel,
    resolvedAt: settlement.resolvedAt,
    defaulted: settlement.defaulted === undefined ? action.defaulted : settlement.defaulted,
  });
}

/**
 * The action `actionId` when the caller may answer it, else the refusal an answer would get, in the same
 * order (404 → 409 → 410 → 403): what an extension of its deadline checks (docs/approvals.md). A named
 * approver of an approval decided by votes may extend it whether or not they have voted.
 */
export async function answerableAction(
  engine: Engine,
  actionId: string,
  input: SettleInput,
  read: Snapshot<{ actions: true }>,
): Promise<{ action: ActionRecord; answeredFor?: string }> {
  const { conversation, actions } = read;
  const reach = answerReach(input, conversation, actions);
  const hook = engine.hitl.authorizeResolve;
  if (!reach.sees && !hook) throw conversationNotFound(conversation.id);
  const action = actions.find((entry) => entry.id === actionId);
  if (!action) {
    if (!reach.sees) throw conversationNotFound(conversation.id);
    throw new HeedError('not_found', 'There is no action with that id in this conversation.', {
      details: { actionId },
    });
  }
  if (!reach.sees && hook && !(await hook(input.caller ?? null, { conversation, action })))
    throw conversationNotFound(conversation.id);
  refuseUnanswerable(engine.agents.get(conversation.agent), action.id);
  await checkOpen(engine, conversation, action, { ...input, authorized: !reach.sees });
  return { action, ...mayAnswer(engine, input, conversation, action, reach, 'extend') };
}

/** The messages of a snapshot that was read with them (asked for above whenever they are used). */
function messagesOf(read: { messages?: MessageRecord[] }): MessageRecord[] {
  if (!read.messages)
    throw new HeedError('internal_error', "The answer needs the conversation's messages, which were not read.");
  return read.messages;
}

/** The order of docs/concepts.md (Settling an answer) after the 404: 409, 410, 403 (`authorized`: the hook has already said yes), then the kind's own access. */
async function checkOpen(
  engine: Engine,
  conversation: ConversationRecord,
  action: ActionRecord,
  input: SettleInput & { authorized: boolean },
): Promise<void> {
  if (action.status === 'expired') throw expired(action);
  if (action.status !== 'pending') {
    throw new HeedError('action_not_pending', 'This action was already settled.', {
      // As the action's view shows it: `resolvedBy` only when a user answered, or `system:timeout` for a lapse.
      details: {
        actionId: action.id,
        status: action.status,
        resolution: action.resolution,
        ...(action.resolvedBy !== null ? { resolvedBy: action.resolvedBy } : {}),
        ...(action.answeredFor !== undefined ? { answeredFor: action.answeredFor } : {}),
        channel: action.channel,
        resolvedAt: action.resolvedAt,
      },
    });
  }
  if (action.expiresAt && action.expiresAt <= engine.now()) throw expired(action);
  refuseChannelWrite(conversation, input.via, 'answer it there.');
  const may = input.fromChannel?.may;
  if (may && !(await may({ conversation, action })))
    throw new HeedError('action_forbidden', 'You may not answer this request.');
  const hook = engine.hitl.authorizeResolve;
  if (hook && !input.authorized && !(await hook(input.caller ?? null, { conversation, action }))) {
    throw new HeedError('action_forbidden', 'You may not answer this request.');
  }
  await kindOf(action.kind).checkAccess?.(action, {
    caller: input.caller ?? null,
    agent: engine.agents.get(conversation.agent),
    agentName: conversation.agent,
  });
}

/** Where an answer or a vote comes from: a link, a chat platform, else the API. */
function surfaceOf(input: SettleInput): AnswerSurface {
  return input.link ? 'link' : input.fromChannel ? input.fromChannel.name : 'api';
}

function votedEvent(action: ActionRecord, outcome: VoteOutcome, surface: AnswerSurface): EventData<'action.voted'> {
  const votes = outcome.request.votes ?? [];
  return {
    actionId: action.id,
    kind: 'approval',
    toolCallId: action.toolCallId,
    toolName: action.toolName,
    by: outcome.vote.by,
    ...(outcome.vote.for !== undefined ? { for: outcome.vote.for } : {}),
    channel: surface,
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
  by: { resolvedBy: string | null; answeredFor?: string; surface: AnswerSurface },
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
    ...(by.answeredFor !== undefined ? { answeredFor: by.answeredFor } : {}),
    channel: by.surface,
    // The settled line every surface shows (docs/concepts.md): a lapse reads as one, never as a person's denial.
    summary: describeResolution(
      actionView(
        undefined,
        extended(action, {
          status: by.surface === 'timeout' ? ('expired' as const) : ('resolved' as const),
          resolution,
          ...by,
        }),
      ),
    ),
  };
  // The resolution is of the action's own kind (checked when it was answered, or the kind's own lapse).
  return resolution.type === 'cancelled'
    ? data
    : extended(data, kindOf(resolution.type).resolvedDetails?.(resolution, action as never, at) ?? {});
}
