// The lapse verb's deciding half: pure, from what was read to the writes and the answer. Its running half,
// src/engine/lapse.ts, reads the store, commits through the runner and starts what comes next.
import { earliestDue, type Engine } from '../engine.js';
import { newId } from '../../ids.js';
import { kindOf, lapsedAnswer } from '../../kinds/index.js';
import type { ActionRevision, ActionSettlement, NewEvent } from '../../store/store.js';
import { newEvent } from '../../protocol/events.js';
import { toolResultWrites } from '../tool-result.js';
import { holdsRequest } from '../../protocol/request-conversation.js';
import { escalatedRequest, escalationDue } from '../../kinds/approval-policy.js';
import type { ActionRecord, ConversationRecord, MessageRecord, TimeoutPolicy } from '../../types.js';
import { withdrawalWrites } from '../withdraw.js';
import { openChildCalls } from '../children.js';
import { LAPSE_RESOLVER } from '../../caller.js';
import { resolvedEvent } from './settle.js';
import type { Decision, Snapshot, Write } from '../transact.js';

/** What the lapse decider reads (one snapshot): the actions, and the messages a lapse may add results to. */
export const lapseParts = { actions: true, messages: true } as const;

/**
 * What a lapse did: how many actions lapsed, the actions whose live calls a cancel released, and the
 * claim of the turn it started when nothing was left open.
 */
export interface Lapsed {
  lapsed: number;
  /** Reminders this sweep sent (docs/notifications.md). */
  reminded?: number;
  released: ActionRecord[];
  leaseOwner?: string;
  /** The agent no longer configured, when that is why a deny pause was cancelled (the runner logs a warning). */
  agentGone?: string;
  /** The children a cancelled pause also waited on: cancelled next (src/engine/lapse.ts), as a cancel does. */
  children?: string[];
}

/**
 * The lapse decider (the sweep's): actions past their deadline are answered by their timeout policy, and
 * approvals whose escalation time came without a decision gain approvers. `seenVersion` is the version
 * the sweep listed: a conversation written since is left to the next sweep, as the compare-and-set would.
 */
export function decideLapse(engine: Engine, seenVersion: number, read: Snapshot<typeof lapseParts>): Decision<Lapsed> {
  const { conversation } = read;
  if (conversation.version !== seenVersion) return { type: 'none', value: { lapsed: 0, released: [] } };
  const now = engine.now();
  const pending = read.actions.filter((action) => action.status === 'pending');
  const due = pending.filter((action) => action.expiresAt !== null && action.expiresAt <= now);
  const write: Write = { set: { updatedAt: now } };
  // Approvals whose escalation time came without a decision gain approvers (their lapse time stays).
  const escalated = escalate(
    pending.filter((action) => !due.includes(action)),
    conversation,
    now,
  );
  // Reminders due now go out with the same compare-and-set: once each, whichever instance sweeps.
  const escalation = remind(escalated, now);
  const reminded = escalation.reminded;
  if (due.length === 0) {
    write.set = { ...write.set, actionDueAt: earliestDue(escalation.pending) };
    write.revise = escalation.revise;
    write.events = escalation.events;
    return { type: 'write', write, value: { lapsed: 0, released: [], reminded } };
  }

  // With nothing left to ask and nobody to carry on (no budget left, or the agent gone from the config),
  // a deny pause ends as a cancel (seed 002).
  const nothingLeft = pending.length === due.length;
  const agentGone =
    nothingLeft && !holdsRequest(conversation) && !engine.agents.has(conversation.agent)
      ? conversation.agent
      : undefined;
  if (
    due.some((action) => lapsePolicy(action) === 'cancel') ||
    (nothingLeft && !engine.budgetLeft(conversation)) ||
    agentGone !== undefined
  ) {
    const closing = withdrawalWrites(engine, read.messages, pending, {
      resolvedBy: LAPSE_RESOLVER,
      channel: 'timeout',
      reason: 'expired',
      lapsed: new Set(due.map((action) => action.id)),
    });
    write.settle = closing.settle;
    write.messages = closing.messages;
    write.events = [...closing.events, newEvent('turn.cancelled', now, { reason: 'action_expired' })];
    write.set = { ...write.set, status: 'idle', actionDueAt: null, leaseOwner: null, leaseExpiresAt: null };
    const children = openChildCalls(engine.agents.get(conversation.agent), conversation, read.messages).map(
      (call) => call.conversationId,
    );
    return {
      type: 'write',
      write,
      value: {
        lapsed: due.length,
        released: pending,
        ...(agentGone !== undefined ? { agentGone } : {}),
        ...(children.length ? { children } : {}),
      },
    };
  }

  // deny: answer for the person, then carry on once nothing is open.
  const settle: ActionSettlement[] = [];
  const events: NewEvent[] = [];
  const messages: MessageRecord[] = [];
  let position = read.messages.length;
  for (const action of due) {
    const { resolution, status, defaulted, toolOutput } = lapsedAnswer(action);
    settle.push({
      id: action.id,
      status: 'expired',
      resolution,
      resolvedBy: LAPSE_RESOLVER,
      channel: 'timeout',
      resolvedAt: now,
      defaulted,
    });
    events.push(
      newEvent('action.resolved', now, {
        ...resolvedEvent(action, status, { resolvedBy: LAPSE_RESOLVER, surface: 'timeout' }, resolution, now),
        expired: true,
      }),
    );
    if (toolOutput) {
      const approvedArgs = kindOf(action.kind).ranWith?.({ ...action, resolution } as never);
      const result = toolResultWrites({
        conversationId: conversation.id,
        position: position++,
        at: now,
        call: action,
        output: toolOutput,
        approvedArgs,
      });
      messages.push(result.message);
      events.push(result.event);
    }
  }
  const remaining = escalation.pending.filter((action) => !due.some((entry) => entry.id === action.id));
  write.settle = settle;
  write.messages = messages;
  write.revise = escalation.revise;
  // Escalations first; the deadline's own answers (and the turn it starts, pushed below) after.
  events.unshift(...escalation.events);
  write.events = events;
  if (remaining.length > 0) {
    write.set = { ...write.set, actionDueAt: earliestDue(remaining) };
    return { type: 'write', write, value: { lapsed: due.length, released: [], reminded } };
  }
  if (holdsRequest(conversation)) {
    // No agent runs here: the lapse's answer is all there is, and the conversation rests.
    write.set = { ...write.set, status: 'idle', actionDueAt: null };
    return { type: 'write', write, value: { lapsed: due.length, released: [] } };
  }
  const leaseOwner = newId('lease');
  write.set = { ...write.set, status: 'running', actionDueAt: null, leaseOwner, leaseExpiresAt: engine.leaseUntil() };
  events.push(newEvent('turn.started', now, { trigger: 'timeout' }));
  return { type: 'write', write, value: { lapsed: due.length, released: [], leaseOwner } };
}

/**
 * What a lapse of this action does: its kind's own policy where it has one (a client tool is always
 * answered, seed 002; also for pauses stored before that rule), else the one frozen when the pause was taken.
 */
function lapsePolicy(action: ActionRecord): TimeoutPolicy {
  return kindOf(action.kind).onTimeout ?? action.onTimeout;
}

/**
 * The escalations due now: each adds its people to the approvers, as one revision and one
 * `action.escalated` event. The sweep's compare-and-set makes each happen once across instances.
 */
function escalate(
  candidates: ActionRecord[],
  conversation: ConversationRecord,
  now: string,
): { revise: ActionRevision[]; events: NewEvent[]; pending: ActionRecord[] } {
  const revise: ActionRevision[] = [];
  const events: NewEvent[] = [];
  const byId = new Map<string, ActionRecord>();
  for (const action of candidates) {
    const at = escalationDue(action);
    if (!at || at > now || action.request.kind !== 'approval') continue;
    const { request, added } = escalatedRequest(action.request, conversation.ownerId, now);
    revise.push({ id: action.id, request, reason: 'escalation' });
    byId.set(action.id, { ...action, request });
    events.push(
      newEvent('action.escalated', now, {
        actionId: action.id,
        kind: 'approval',
        toolCallId: action.toolCallId,
        toolName: action.toolName,
        added,
        approvers: request.approvers ?? [],
      }),
    );
  }
  return { revise, events, pending: candidates.map((action) => byId.get(action.id) ?? action) };
}

/**
 * The reminders due now (`remindAt`, planned from `hitl.remind` when the deadline was set): each action
 * whose next reminder time came gets one reminder (several passed at once, after a pause of the sweep,
 * make one) and loses those times, as one revision (`reason: 'reminder'`, which the outbox sends to the
 * request's own targets) and one `action.reminded` event. An action escalated in the same sweep is
 * announced again anyway: its times are taken off with the escalation, and no separate reminder is sent.
 */
function remind(
  escalation: { revise: ActionRevision[]; events: NewEvent[]; pending: ActionRecord[] },
  now: string,
): { revise: ActionRevision[]; events: NewEvent[]; pending: ActionRecord[]; reminded: number } {
  const revise = [...escalation.revise];
  const events = [...escalation.events];
  let reminded = 0;
  const pending = escalation.pending.map((action) => {
    const times = action.remindAt ?? [];
    if (times.length === 0 || times[0] > now || action.expiresAt === null || action.expiresAt <= now) return action;
    const rest = times.filter((time) => time > now);
    const escalated = revise.findIndex((x) => x.id === action.id);
    if (escalated >= 0) {
      revise[escalated] = { ...revise[escalated], remindAt: rest };
      return { ...action, remindAt: rest };
    }
    revise.push({ id: action.id, request: action.request, reason: 'reminder', remindAt: rest });
    events.push(
      newEvent('action.reminded', now, {
        actionId: action.id,
        kind: action.kind,
        toolCallId: action.toolCallId,
        toolName: action.toolName,
        expiresAt: action.expiresAt,
        minutesLeft: Math.round((Date.parse(action.expiresAt) - Date.parse(now)) / 60_000),
      }),
    );
    reminded++;
    return { ...action, remindAt: rest };
  });
  return { revise, events, pending, reminded };
}
