// The lapse verb's running half: reads the store, commits through the runner, starts what comes next.
// What it writes is decided in src/engine/decide/lapse.ts (pure).
import { transact } from './transact.js';
import { claimRunning, runTurnUnderLease } from './start.js';
import type { TurnResult } from './turn/run-turn.js';
import { systemCaller } from '../caller.js';
import type { Engine } from './engine.js';
import type { ConversationRecord } from '../types.js';
import { releaseLiveCalls } from './withdraw.js';
import { decideLapse, lapseParts } from './decide/lapse.js';
import { sweepParent } from './child-continue.js';
import { cancelConversation } from './cancel.js';
import { parentOf } from './children.js';

export interface SweepReport {
  /** Actions that lapsed in this sweep. */
  lapsed: number;
  /** Reminders this sweep sent (`hitl.remind`, docs/notifications.md). */
  reminded: number;
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
  const report: SweepReport = { lapsed: 0, reminded: 0, recovered: 0, turns: [] };
  const runs: Promise<TurnResult | undefined>[] = [];
  const sweep = async (conversation: ConversationRecord) => {
    if (conversation.status === 'running') {
      const recovery = await recover(engine, conversation);
      if (recovery) {
        report.recovered++;
        runs.push(recovery.run);
      }
    } else if (conversation.status === 'requires_action') {
      // Its own requests lapse by their own rules, whether or not it also waits on children: a turn that runs on
      // because of it pauses again on a child still open.
      const outcome = await lapse(engine, conversation);
      report.lapsed += outcome.lapsed;
      report.reminded += outcome.reminded;
      if (outcome.run) return void runs.push(outcome.run);
      // A parent paused on its children goes on when they have ended (src/engine/child-continue.ts).
      const now = outcome.conversation ?? (await engine.store.getConversation(conversation.id));
      if (now?.status !== 'requires_action') return;
      const parent = await sweepParent(engine, now);
      if (parent?.run) runs.push(parent.run);
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
  for (const run of await Promise.allSettled(runs))
    if (run.status === 'fulfilled' && run.value) report.turns.push(run.value);
  return report;
}

async function recover(
  engine: Engine,
  conversation: ConversationRecord,
): Promise<{ run: Promise<TurnResult> } | undefined> {
  if (!conversation.leaseExpiresAt || conversation.leaseExpiresAt > engine.now()) return undefined;
  if (conversation.leaseOwner && engine.running.has(conversation.id)) return undefined;
  const claimed = await claimRunning(engine, conversation);
  if (!claimed) return undefined;
  // A turn that died before it wrote anything after the user's message had not yet asked the intake
  // questions either: the taken-over turn asks them, as the message's own turn would have.
  const messages = await engine.store.listMessages(conversation.id);
  const atStart = messages.at(-1)?.role === 'user';
  return {
    run: runTurnUnderLease(engine, claimed.conversation, claimed.leaseOwner, {
      trigger: 'recovery',
      caller: null,
      interactive: true,
      askIntake: atStart,
      messages,
    }),
  };
}

/** The lapse decider (src/engine/decide/lapse.ts) once, under the runner: a lost race is the next sweep's. */
async function lapse(
  engine: Engine,
  conversation: ConversationRecord,
): Promise<{ lapsed: number; reminded: number; run?: Promise<TurnResult>; conversation?: ConversationRecord }> {
  const done = await transact(engine, conversation.id, lapseParts, (read) =>
    decideLapse(engine, conversation.version, read),
  );
  // Nothing due after all: the conversation as just read, so the sweep does not read it again.
  if (!done.committed)
    return { lapsed: 0, reminded: 0, ...('lost' in done ? {} : { conversation: done.conversation }) };
  releaseLiveCalls(engine, done.value.released);
  if (done.value.agentGone !== undefined) {
    engine.logger.warn(
      { conversationId: conversation.id, agent: done.value.agentGone },
      `Heed: the agent "${done.value.agentGone}" is no longer configured, so the lapsed pause of conversation ${conversation.id} was cancelled instead of carrying on`,
    );
  }
  const { lapsed, leaseOwner } = done.value;
  // A pause that lapsed into a cancel stops what it called too, as a cancel does (src/engine/cancel.ts).
  for (const child of done.value.children ?? []) await cancelConversation(engine, child, { via: 'parent' });
  const reminded = done.value.reminded ?? 0;
  if (lapsed > 0)
    engine.logger.info(
      { conversationId: conversation.id, lapsed },
      `Heed: ${lapsed === 1 ? 'a request' : `${lapsed} requests`} of conversation ${conversation.id} lapsed: nobody answered in time`,
    );
  // A child whose pause lapsed into a cancel has ended: its parent goes on now, not at the sweep's next look
  // (compare-and-set: whichever look comes first claims the parent's continuation, once).
  if (leaseOwner === undefined && lapsed > 0 && done.conversation.status === 'idle' && parentOf(done.conversation))
    await engine.children
      ?.afterChildTurn(done.conversation, 'cancelled')
      .catch((thrown: unknown) =>
        engine.logger.error(
          { conversationId: conversation.id, error: String(thrown) },
          'Heed: a child could not tell its parent',
        ),
      );
  if (leaseOwner === undefined) return { lapsed, reminded, conversation: done.conversation };
  return {
    lapsed,
    reminded,
    run: runTurnUnderLease(engine, done.conversation, leaseOwner, {
      trigger: 'timeout',
      caller: systemCaller,
      interactive: true,
    }),
  };
}
