import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentConfig } from '../src/config.js';
import { HeedError } from '../src/errors.js';
import { createHeed, type Heed, engineOf } from '../src/heed.js';
import { memoryStore } from '../src/store/memory/memory-store.js';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';
import { scriptedModel } from '../src/testing/scripted-model.js';
import { tool } from '../src/tool.js';
import type { TimeoutPolicy } from '../src/types.js';
import { conversationProblems } from './invariants.js';
import { sizeQuestions } from './fixtures/size-questions.js';
import { sizes } from './sizes.js';

/**
 * Random interleavings of answers, cancels, new messages, lapses and sweeps, across several
 * conversations and several `createHeed` instances on one store. fast-check's scheduler decides the
 * order in which every store call, model call and tool run goes ahead, so each run explores another
 * interleaving, and a failure shrinks to a small plan and a replayable order. Whatever the order:
 * each action is settled at most once, one pause gets one continuation, event numbers are contiguous,
 * records match events, every answer that was accepted is kept, and no turn is left running.
 */

const dir = mkdtempSync(join(tmpdir(), 'heed-interleave-'));
/** What the runs did, printed at the end: proof that they raced rather than idled. */
const stats = {
  runs: 0,
  operations: 0,
  accepted: 0,
  refused: new Map<string, number>(),
  events: new Map<string, number>(),
};
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  const list = (map: Map<string, number>) => [...map].map(([key, count]) => `${key}×${count}`).join(' ');
  console.log(
    `interleavings: ${stats.runs} runs, ${stats.operations} operations, ${stats.accepted} answers accepted; refused ${list(stats.refused)}; events ${list(stats.events)}`,
  );
});

type Text = 'refund' | 'refund twice' | 'ask' | 'page' | 'link' | 'hello' | 'quorum';
type Op =
  | { kind: 'send'; conversation: number; instance: number; text: Text }
  | { kind: 'answer'; conversation: number; instance: number; pick: number; variant: number }
  | { kind: 'cancel'; conversation: number; instance: number }
  | { kind: 'lapse'; instance: number; minutes: number }
  | { kind: 'sweep'; instance: number };

interface Plan {
  instances: number;
  conversations: number;
  policy: 'reject' | 'cancel';
  onTimeout: TimeoutPolicy;
  rounds: Op[][];
}

const CONVERSATIONS = 3;
const INSTANCES = 3;
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      conversation: fc.nat(CONVERSATIONS - 1),
      instance: fc.nat(INSTANCES - 1),
      text: fc.constantFrom<Text>('refund', 'refund twice', 'ask', 'page', 'link', 'hello', 'quorum'),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('answer' as const),
      conversation: fc.nat(CONVERSATIONS - 1),
      instance: fc.nat(INSTANCES - 1),
      pick: fc.nat(3),
      variant: fc.nat(2),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('cancel' as const),
      conversation: fc.nat(CONVERSATIONS - 1),
      instance: fc.nat(INSTANCES - 1),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('lapse' as const),
      instance: fc.nat(INSTANCES - 1),
      minutes: fc.constantFrom(1, 11, 61),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sweep' as const), instance: fc.nat(INSTANCES - 1) }) },
);
const plan: fc.Arbitrary<Plan> = fc.record({
  instances: fc.integer({ min: 1, max: INSTANCES }),
  conversations: fc.integer({ min: 1, max: CONVERSATIONS }),
  policy: fc.constantFrom<'reject' | 'cancel'>('reject', 'cancel'),
  onTimeout: fc.constantFrom<TimeoutPolicy>('deny', 'cancel'),
  rounds: fc.array(fc.array(op, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 7 }),
});

/** Every store call waits for the scheduler's go, so calls of different operations interleave at random. */
function scheduled(store: Store, s: fc.Scheduler, name: string): Store {
  const wrapped: Record<string, unknown> = { ...store };
  for (const [key, value] of Object.entries(store)) {
    if (typeof value !== 'function' || key === 'migrate' || key === 'close' || key === 'listen') continue;
    wrapped[key] = async (...args: unknown[]) => {
      await s.schedule(Promise.resolve(), `${name}.${key}`);
      return (value as (...a: unknown[]) => unknown)(...args);
    };
  }
  return wrapped as unknown as Store;
}

/** Whoever answers or lapses what: the codes an operation may be refused with when it loses a race. */
const raceCodes = new Set([
  'action_not_pending',
  'action_expired',
  'conversation_busy',
  'action_pending',
  'already_voted',
]);
/** Who votes on the `quorum` approval (2 of 3, majority deny, escalating to dan). */
const voters = ['ann', 'ben', 'cy', 'dan'];

interface Ledger {
  /** Runs of each refund call, by idempotency key. */
  runs: Map<string, number>;
  /** Its side effect, once per key (a payment API keyed by it). */
  effects: Set<string>;
}

function agent(s: fc.Scheduler, ledger: Ledger): AgentConfig {
  const model = scriptedModel(async ({ messages }) => {
    await s.schedule(Promise.resolve(), 'model');
    const last = messages.at(-1)!;
    if (last.role === 'tool') return { text: 'Done.' };
    const text =
      last.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
    if (text === 'refund twice') {
      return {
        toolCalls: [
          { toolName: 'issue_refund', input: { orderId: 1, amount: 1 } },
          { toolName: 'issue_refund', input: { orderId: 2, amount: 2 } },
        ],
      };
    }
    if (text === 'refund') return { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42, amount: 5 } }] };
    if (text === 'ask') {
      return {
        toolCalls: [
          {
            toolName: 'ask',
            input: {
              questions: sizeQuestions,
            },
          },
        ],
      };
    }
    if (text === 'page')
      return {
        toolCalls: [
          { toolName: 'get_selection', input: {} },
          { toolName: 'issue_refund', input: { orderId: 7, amount: 1 } },
        ],
      };
    if (text === 'link') return { toolCalls: [{ toolName: 'connect', input: {} }] };
    if (text === 'quorum') return { toolCalls: [{ toolName: 'pay', input: { orderId: 9, amount: 9 } }] };
    return { text: 'Hello.' };
  });
  return {
    name: 'support',
    model,
    ask: true,
    tools: {
      issue_refund: tool({
        inputSchema: z.object({ orderId: z.number(), amount: z.number() }),
        needsApproval: true,
        execute: async (input, ctx) => {
          ledger.runs.set(ctx.idempotencyKey, (ledger.runs.get(ctx.idempotencyKey) ?? 0) + 1);
          await s.schedule(Promise.resolve(), 'tool');
          ledger.effects.add(ctx.idempotencyKey);
          return { refunded: input.amount };
        },
      }),
      pay: tool({
        inputSchema: z.object({ orderId: z.number(), amount: z.number() }),
        needsApproval: true,
        approval: {
          approvers: voters.slice(0, 3),
          required: 2,
          deny: 'majority',
          escalate: { afterMinutes: 1, to: ['dan'] },
        },
        execute: async (input, ctx) => {
          ledger.runs.set(ctx.idempotencyKey, (ledger.runs.get(ctx.idempotencyKey) ?? 0) + 1);
          await s.schedule(Promise.resolve(), 'tool');
          ledger.effects.add(ctx.idempotencyKey);
          return { paid: input.amount };
        },
      }),
      get_selection: tool({
        inputSchema: z.object({}),
        outputSchema: z.object({ text: z.string() }),
        client: { kind: 'page' },
      }),
      connect: tool({
        inputSchema: z.object({}),
        execute: async (_input, ctx) => ({ outcome: await ctx.openUrl({ url: 'https://example.com/connect' }) }),
      }),
    },
  };
}

function resolutionFor(kind: string, variant: number): Record<string, unknown> {
  switch (kind) {
    case 'approval':
      return [
        { type: 'approval', decision: 'allow' },
        { type: 'approval', decision: 'deny', comment: 'no' },
        { type: 'approval', decision: 'allow', remember: true },
      ][variant];
    case 'question':
      return [
        { type: 'question', answers: { size: 'Large', qty: '3' } },
        { type: 'question', skip: true },
        { type: 'question', dismiss: true },
      ][variant];
    case 'client_tool':
      return [
        { type: 'client_tool', output: { text: 'selected' } },
        { type: 'client_tool', error: 'nothing selected' },
        { type: 'client_tool', output: { text: '' } },
      ][variant];
    default:
      return { type: 'url', decision: (['accept', 'decline', 'cancel'] as const)[variant] };
  }
}

type Open = () => { raw: Store; perInstance: (index: number) => Store; close: () => Promise<void> };

/** A run that does not finish is a stuck turn or a lost wake-up: fail it with what the scheduler did. */
async function runPlan(s: fc.Scheduler, p: Plan, open: Open): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `the run did not finish in 15 s; scheduler so far:\n${s
              .report()
              .slice(-40)
              .map((task) => `${task.status} ${task.label}`)
              .join('\n')}`,
          ),
        ),
      15_000,
    );
  });
  try {
    await Promise.race([runPlanned(s, p, open), stuck]);
  } finally {
    clearTimeout(timer);
  }
}

async function runPlanned(s: fc.Scheduler, p: Plan, open: Open): Promise<void> {
  stats.runs++;
  let now = Date.parse('2030-01-01T00:00:00Z');
  const ledger: Ledger = { runs: new Map(), effects: new Set() };
  const stores = open();
  const heeds: Heed[] = [];
  for (let index = 0; index < p.instances; index++) {
    heeds.push(
      createHeed({
        agents: [agent(s, ledger)],
        store: scheduled(stores.perInstance(index), s, `heed${index}`),
        sweepIntervalMs: 0,
        now: () => new Date(now),
        pendingActionPolicy: p.policy,
        hitl: { timeoutMinutes: 10, onTimeout: p.onTimeout },
      }),
    );
  }
  const ids: string[] = [];
  for (let index = 0; index < p.conversations; index++)
    ids.push((await s.waitFor(heeds[0].createConversation({ agent: 'support' }))).id);

  /** Successful answers per action id: each action may be settled by an answer at most once. */
  const accepted = new Map<string, number>();
  /** Votes accepted, by action and voter: every one must be on record (a vote edited away stays, marked outdated). */
  const votesAccepted = new Map<string, number>();
  const unexpected: string[] = [];
  const run = async (o: Op): Promise<void> => {
    const heed = heeds['instance' in o ? o.instance % heeds.length : 0];
    stats.operations++;
    try {
      switch (o.kind) {
        case 'send':
          await heed.conversation(ids[o.conversation % ids.length]).send(o.text);
          break;
        case 'answer': {
          const id = ids[o.conversation % ids.length];
          const actions = await stores.raw.listActions(id);
          const pending = actions.filter((action) => action.status === 'pending');
          const pool = pending.length > 0 ? pending : actions;
          if (pool.length === 0) return;
          const action = pool[o.pick % pool.length];
          if (action.request.kind === 'approval' && action.request.required !== undefined) {
            // A vote, as one of the voters (dan counts only once escalated); edited arguments now and then.
            const voter = voters[(o.pick + o.variant) % voters.length];
            const vote = [
              { decision: 'allow' },
              { decision: 'deny' },
              { decision: 'allow', approvedArgs: { orderId: 9, amount: o.pick } },
            ][o.variant];
            try {
              await heed
                .conversation(id)
                .resolve(action.id, { type: 'approval', ...vote }, { caller: { userId: voter } });
            } catch (thrown) {
              // dan is an approver only once the escalation happened.
              if (voter === 'dan' && HeedError.isInstance(thrown) && thrown.code === 'action_forbidden') return;
              throw thrown;
            }
            const key = `${action.id} ${voter}`;
            votesAccepted.set(key, (votesAccepted.get(key) ?? 0) + 1);
            stats.accepted++;
            break;
          }
          await heed.conversation(id).resolve(action.id, resolutionFor(action.kind, o.variant));
          accepted.set(action.id, (accepted.get(action.id) ?? 0) + 1);
          stats.accepted++;
          break;
        }
        case 'cancel':
          await heed.conversation(ids[o.conversation % ids.length]).cancel();
          break;
        case 'lapse':
          // The clock jumps at a moment the scheduler picks: maybe while a turn runs, whose claim then lapses.
          await s.schedule(Promise.resolve(), 'clock');
          now += o.minutes * 60_000;
          await heed.expireDue();
          break;
        case 'sweep':
          await heed.expireDue();
          break;
      }
    } catch (thrown) {
      if (HeedError.isInstance(thrown)) stats.refused.set(thrown.code, (stats.refused.get(thrown.code) ?? 0) + 1);
      if (!(HeedError.isInstance(thrown) && raceCodes.has(thrown.code)))
        unexpected.push(`${JSON.stringify(o)} threw ${thrown instanceof Error ? thrown.stack : String(thrown)}`);
    }
  };

  try {
    for (const round of p.rounds) await s.waitFor(Promise.all(round.map(run)));
    // Let every continuation started in any instance finish.
    for (let pass = 0; pass < 20; pass++) {
      const inFlight = heeds.flatMap((heed) => [...engineOf(heed).inFlight]);
      if (inFlight.length === 0) break;
      await s.waitFor(Promise.allSettled(inFlight));
    }
    expect(unexpected).toEqual([]);

    for (const id of ids) {
      expect(await conversationProblems(stores.raw, id)).toEqual([]);
      const conversation = (await stores.raw.getConversation(id))!;
      expect([id, conversation.status]).not.toEqual([id, 'running']);
      const events = await stores.raw.listEvents(id, { limit: 10_000 });
      for (const event of events) {
        const name = event.type === 'turn.started' ? `turn.started(${String(event.data.trigger)})` : event.type;
        if (
          name.startsWith('turn.') ||
          event.type === 'action.resolved' ||
          event.type === 'action.voted' ||
          event.type === 'action.escalated'
        )
          stats.events.set(name, (stats.events.get(name) ?? 0) + 1);
      }
      const recoveries = events.filter(
        (event) => event.type === 'turn.started' && event.data.trigger === 'recovery',
      ).length;
      for (const action of await stores.raw.listActions(id)) {
        const answers = accepted.get(action.id) ?? 0;
        expect([action.id, answers <= 1]).toEqual([action.id, true]);
        // An accepted answer is the one on record: nothing overwrote or dropped it.
        if (answers === 1) expect([action.id, action.status]).toEqual([action.id, 'resolved']);
        if (action.request.kind === 'approval' && action.request.required !== undefined) {
          const kept =
            (action.resolution?.type === 'approval' ? action.resolution.votes : undefined) ??
            action.request.votes ??
            [];
          for (const [key, count] of votesAccepted) {
            const [actionId, voter] = key.split(' ');
            if (actionId !== action.id) continue;
            expect([key, kept.filter((vote) => vote.by === voter).length]).toEqual([key, count]);
          }
          if (action.status === 'resolved') expect(kept.length).toBeGreaterThan(0);
        }
        if (action.kind === 'approval' && (action.toolName === 'issue_refund' || action.toolName === 'pay')) {
          const runs = ledger.runs.get(action.toolCallId) ?? 0;
          expect([action.toolCallId, runs <= 1 + recoveries]).toEqual([action.toolCallId, true]);
        }
      }
      // A refund whose result is stored ran its effect (once: the ledger is a set keyed by the call).
      for (const message of await stores.raw.listMessages(id)) {
        for (const part of message.parts) {
          if (part.type === 'tool-result' && part.toolName === 'issue_refund' && part.output.type === 'json')
            expect(ledger.effects.has(part.toolCallId)).toBe(true);
        }
      }
    }
  } finally {
    for (const heed of heeds) await s.waitFor(heed.close().catch(() => undefined));
    await stores.close();
  }
}

describe('interleavings of answers, cancels, messages, lapses and sweeps across instances (fast-check)', () => {
  it('on one memory store', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), plan, async (s, p) => {
        const raw = memoryStore();
        await runPlan(s, p, () => ({ raw, perInstance: () => raw, close: async () => undefined }));
      }),
      {
        numRuns: sizes.interleave.memoryRuns,
        seed: sizes.interleave.seed,
      },
    );
  });

  it('on one SQLite file, each instance with its own connection', { timeout: 120_000 }, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), plan, async (s, p) => {
        const path = join(dir, `run-${run++}.db`);
        const connections: Store[] = [];
        await runPlan(s, p, () => {
          const raw = sqliteStore({ path });
          return {
            raw,
            perInstance: () => {
              const store = sqliteStore({ path });
              connections.push(store);
              return store;
            },
            close: async () => {
              for (const store of connections) await store.close();
              await raw.close();
            },
          };
        });
      }),
      {
        numRuns: sizes.interleave.sqliteRuns,
        seed: sizes.interleave.seed,
      },
    );
  });
});
