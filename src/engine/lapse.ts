import { commitWrite } from './transact.js';
import { claimRunning, runTurnUnderLease } from './start.js';
import type { TurnResult } from './turn/run-turn.js';
import { systemCaller } from '../caller.js';
import { earliestDue, type Engine } from './engine.js';
import { newId } from '../ids.js';
import { kindOf, lapsedAnswer } from '../kinds/index.js';
import type { ActionRevision, ActionSettlement, Change, NewEvent } from '../store/store.js';
import { newEvent } from '../protocol/events.js';
import { toolResultWrites } from './tool-result.js';
import { escalatedRequest, escalationDue } from '../kinds/approval-policy.js';
import type { ActionRecord, ConversationRecord, TimeoutPolicy } from '../types.js';
import { withdrawalWrites, releaseLiveCalls } from './withdraw.js';
import { resolvedEvent } from './settle.js';

export interface SweepReport {
  /** Actions that lapsed in this sweep. */
  lapsed: number;
  /** Continuations whose lease had lapsed and were taken over. */
  recovered: number;
  /** The turns that went on because of this sweep, finished. */
  turns: TurnResult[];
}

const BATCH = 200;

/**
 * Lapses the actions that are due and takes over continuations whose claim lapsed (their process
 * died). Each due action lapses once, whichever instance sweeps: every write is compare-and-set.
 */
export async function expireDue(engine: Engine, options: { conversationId?: string } = {}): Promise<SweepReport> {
  const report: SweepReport = { lapsed: 0, recovered: 0, turns: [] };
  const runs: Promise<TurnResult>[] = [];
  const sweep = async (conversation: ConversationRecord) => {
    if (conversation.status === 'running') {
      const recovery = await recover(engine, conversation);
      if (recovery) {
        report.recovered++;
        runs.push(recovery.run);
      }
    } else if (conversation.status === 'requires_action') {
      const outcome = await lapse(engine, conversation);
      report.lapsed += outcome.lapsed;
      if (outcome.run) runs.push(outcome.run);
    }
  };
  if (options.conversationId !== undefined) {
    // One conversation, by name (seed 002's `expirePendingActions({ conversationId })`): the same writes, the same compare-and-set.
    const conversation = await engine.store.getConversation(options.conversationId);
    if (conversation?.actionDueAt && conversation.actionDueAt <= engine.now()) await sweep(conversation);
    else if (conversation?.status === 'running') await sweep(conversation);
  } else {
    const seen = new Set<string>();
    for (;;) {
      const now = engine.now();
      const due = (await engine.store.listDue(now, BATCH)).filter((conversation) => !seen.has(conversation.id));
      if (due.length === 0) break;
      for (const conversation of due) {
        seen.add(conversation.id);
        await sweep(conversation);
      }
    }
  }
  // A turn the store cut off again is carried on later (start.ts); the report lists the turns that ended.
  for (const run of await Promise.allSettled(runs)) if (run.status === 'fulfilled') report.turns.push(run.value);
  return report;
}

async function recover(engine: Engine, conversation: ConversationRecord): Promise<{ run: Promise<TurnResult> } | undefined> {
  if (!conversation.leaseExpiresAt || conversation.leaseExpiresAt > engine.now()) return undefined;
  if (conversation.leaseOwner && engine.running.has(conversation.id)) return undefined;
  const claimed = await claimRunning(engine, conversation);
  if (!claimed) return undefined;
  return { run: runTurnUnderLease(engine, claimed.conversation, claimed.leaseOwner, { caller: null, interactive: true }) };
}

async function lapse(engine: Engine, conversation: ConversationRecord): Promise<{ lapsed: number; run?: Promise<TurnResult> }> {
  const now = engine.now();
  const pending = (await engine.store.listActions(conversation.id)).filter((action) => action.status === 'pending');
  const due = pending.filter((action) => action.expiresAt !== null && action.expiresAt <= now);
  const change: Change = { conversationId: conversation.id, expectVersion: conversation.version, set: { updatedAt: now } };
  // Approvals whose escalation time came without a decision gain approvers (their lapse time stays).
  const escalation = escalate(
    pending.filter((action) => !due.includes(action)),
    conversation,
    now,
  );
  if (due.length === 0) {
    change.set = { ...change.set, actionDueAt: earliestDue(escalation.pending) };
    change.revise = escalation.revise;
    change.events = escalation.events;
    await commitWrite(engine, change);
    return { lapsed: 0 };
  }

  // With nothing left to ask and no budget left to carry on, a deny pause ends as a cancel.
  const nothingLeft = pending.length === due.length;
  if (due.some((action) => lapsePolicy(action) === 'cancel') || (nothingLeft && !engine.budgetLeft(conversation))) {
    const messages = await engine.store.listMessages(conversation.id);
    const closing = withdrawalWrites(engine, messages, pending, {
      resolvedBy: null,
      channel: 'timeout',
      reason: 'expired',
      lapsed: new Set(due.map((action) => action.id)),
    });
    change.settle = closing.settle;
    change.messages = closing.messages;
    change.events = [...closing.events, newEvent('turn.cancelled', now, { reason: 'action_expired' })];
    change.set = { ...change.set, status: 'idle', actionDueAt: null, leaseOwner: null, leaseExpiresAt: null };
    const result = await commitWrite(engine, change);
    if (result.ok) releaseLiveCalls(engine, pending);
    return { lapsed: result.ok ? due.length : 0 };
  }

  // deny: answer for the person, then carry on once nothing is open.
  const settle: ActionSettlement[] = [];
  const events: NewEvent[] = [];
  const messages: Change['messages'] = [];
  let position: number | undefined;
  for (const action of due) {
    const { resolution, status, defaulted, toolOutput } = lapsedAnswer(action);
    settle.push({ id: action.id, status: 'expired', resolution, resolvedBy: null, channel: 'timeout', resolvedAt: now, defaulted });
    events.push(newEvent('action.resolved', now, { ...resolvedEvent(action, status, { resolvedBy: null, channel: 'timeout' }, resolution, now), expired: true }));
    if (toolOutput) {
      position ??= (await engine.store.listMessages(conversation.id)).length;
      const approvedArgs = kindOf(action.kind).ranWith?.({ ...action, resolution } as never);
      const result = toolResultWrites({ conversationId: conversation.id, position: position++, at: now, call: action, output: toolOutput, approvedArgs });
      messages.push(result.message);
      events.push(result.event);
    }
  }
  const remaining = escalation.pending.filter((action) => !due.some((entry) => entry.id === action.id));
  change.settle = settle;
  change.messages = messages;
  change.revise = escalation.revise;
  // Escalations first; the deadline's own answers (and the turn it starts, pushed below) after.
  events.unshift(...escalation.events);
  change.events = events;
  const leaseOwner = newId('lease');
  if (remaining.length > 0) {
    change.set = { ...change.set, actionDueAt: earliestDue(remaining) };
  } else {
    change.set = { ...change.set, status: 'running', actionDueAt: null, leaseOwner, leaseExpiresAt: engine.leaseUntil() };
    events.push(newEvent('turn.started', now, { trigger: 'timeout' }));
  }
  const result = await commitWrite(engine, change);
  if (!result.ok) return { lapsed: 0 };
  if (remaining.length > 0) return { lapsed: due.length };
  return { lapsed: due.length, run: runTurnUnderLease(engine, result.conversation, leaseOwner, { caller: systemCaller, interactive: true }) };
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
function escalate(candidates: ActionRecord[], conversation: ConversationRecord, now: string): { revise: ActionRevision[]; events: NewEvent[]; pending: ActionRecord[] } {
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
