import { z } from 'zod';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createHeed,
  HeedError,
  postgresStore,
  tool,
  type AgentConfig,
  type EventRecord,
  type Heed,
  type HeedOptions,
  type Store,
} from 'heed';
import { scriptedModel, type ScriptedRespond } from 'heed/testing';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from './pg.js';

// Two Heed instances on one PostgreSQL database, each with its own store (its own pool), as two
// server processes would have: settling, live events, the sweep and lease takeover across them.

let database: TestDatabase | undefined;
let schemas = 0;
const opened: Array<{ heed: Heed; store: Store }> = [];

/** Two instances on a fresh schema of the test database. */
function twoInstances(agents: (instance: 'A' | 'B') => AgentConfig[], options: Partial<HeedOptions> = {}) {
  const schema = `instances_${++schemas}`;
  const make = (instance: 'A' | 'B') => {
    const store = postgresStore({ connectionString: database!.url, schema, max: 6 });
    const heed = createHeed({ agents: agents(instance), store, sweepIntervalMs: 0, ...options });
    opened.push({ heed, store });
    return { heed, store };
  };
  return { a: make('A'), b: make('B') };
}

/** An agent whose model calls issue_refund once per order in `orders`, then says "Refunded.". */
function refunds(
  orders: number[],
  runs: Array<{ orderId: number; key: string; instance: string }>,
  instance: string,
): AgentConfig {
  const respond: ScriptedRespond = ({ messages }) =>
    messages.at(-1)?.role === 'tool'
      ? { text: 'Refunded.' }
      : { toolCalls: orders.map((orderId) => ({ toolName: 'issue_refund', input: { orderId, amount: 5 } })) };
  return {
    name: 'support',
    model: scriptedModel(respond),
    tools: {
      issue_refund: tool({
        description: 'Refund an order.',
        inputSchema: z.object({ orderId: z.number().int(), amount: z.number() }),
        needsApproval: true,
        execute: async (input, ctx) => {
          runs.push({ orderId: input.orderId, key: ctx.idempotencyKey, instance });
          return { refunded: input.amount };
        },
      }),
    },
  };
}

describe.skipIf(!pgServer)(`two instances on one PostgreSQL database${pgServer ? '' : ` (${pgSkipReason})`}`, () => {
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map(({ heed }) => heed.close()));
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('answers to the actions of one pause, sent to both at once, are all kept; exactly one continues the turn', async () => {
    const runs: Array<{ orderId: number; key: string; instance: string }> = [];
    const { a, b } = twoInstances((instance) => [refunds([1, 2, 3, 4, 5, 6], runs, instance)]);
    const { id } = await a.heed.createConversation({ agent: 'support' });
    const paused = await a.heed.conversation(id).send('refund six orders');
    expect(paused.pendingActions).toHaveLength(6);

    const results = await Promise.all(
      paused.pendingActions!.map((action, index) =>
        (index % 2 === 0 ? a : b).heed
          .conversation(id)
          .resolve(action.id, { type: 'approval', decision: 'allow', comment: `answer ${index}` }),
      ),
    );
    expect(results.filter((result) => result.status === 'completed')).toHaveLength(1);
    expect(results.filter((result) => result.status === 'requires_action')).toHaveLength(5);

    const actions = await b.heed.conversation(id).actions();
    expect(actions.map((action) => action.status)).toEqual(Array(6).fill('resolved'));
    expect(new Set(actions.map((action) => (action.resolution as { comment: string }).comment)).size).toBe(6);
    expect(runs.map((run) => run.orderId).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(new Set(runs.map((run) => run.instance)).size).toBe(1);
    const events = await a.heed.conversation(id).events();
    expect(events.filter((event) => event.type === 'action.resolved')).toHaveLength(6);
    expect(events.filter((event) => event.type === 'turn.started' && event.data.trigger === 'answer')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'turn.completed')).toHaveLength(1);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  });

  it('50 answers to one action split across both: exactly one wins, 49 get 409 action_not_pending with the stored answer', async () => {
    const runs: Array<{ orderId: number; key: string; instance: string }> = [];
    const { a, b } = twoInstances((instance) => [refunds([42], runs, instance)]);
    const { id } = await a.heed.createConversation({ agent: 'support' });
    const [action] = (await a.heed.conversation(id).send('refund order 42')).pendingActions!;

    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, index) =>
        (index % 2 === 0 ? a : b).heed
          .conversation(id)
          .resolve(action.id, { type: 'approval', decision: 'allow', comment: `answer ${index}` }),
      ),
    );
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const lost = outcomes
      .filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected')
      .map((outcome) => outcome.reason);
    expect(won).toHaveLength(1);
    expect(won[0].status === 'fulfilled' && won[0].value.status).toBe('completed');
    expect(lost).toHaveLength(49);
    const stored = (await b.heed.conversation(id).actions())[0];
    for (const error of lost) {
      expect(HeedError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'action_not_pending', status: 409 });
      expect((error as HeedError).details).toMatchObject({
        status: 'resolved',
        resolution: stored.resolution,
        channel: stored.channel,
      });
    }
    expect(runs).toHaveLength(1);
    const events = await a.heed.conversation(id).events();
    expect(events.filter((event) => event.type === 'action.resolved')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'turn.started' && event.data.trigger === 'answer')).toHaveLength(1);
  });

  it('a follower on one instance sees a turn continued on the other, in order, without gaps, and resumes on either', async () => {
    const runs: Array<{ orderId: number; key: string; instance: string }> = [];
    const { a, b } = twoInstances((instance) => [refunds([42], runs, instance)]);
    const { id } = await a.heed.createConversation({ agent: 'support' });
    const [action] = (await a.heed.conversation(id).send('refund order 42')).pendingActions!;

    const seen: EventRecord[] = [];
    const follow = await a.heed.conversation(id).follow((event) => seen.push(event));
    await expect.poll(() => seen.at(-1)?.type).toBe('turn.paused');
    const before = seen.length;

    expect((await b.heed.conversation(id).resolve(action.id, { type: 'approval', decision: 'allow' })).status).toBe(
      'completed',
    );
    expect(runs).toEqual([expect.objectContaining({ instance: 'B' })]);
    await expect.poll(() => seen.at(-1)?.type).toBe('turn.completed');
    follow.close();

    const stored = await b.heed.conversation(id).events();
    expect(seen.map((event) => event.seq)).toEqual(stored.map((_, index) => index + 1));
    expect(seen).toEqual(stored);
    expect(seen.slice(before).map((event) => event.type)).toContain('tool.result');

    // Resuming from an event number works on either instance.
    for (const instance of [a, b]) {
      const resumed: EventRecord[] = [];
      const again = await instance.heed.conversation(id).follow((event) => resumed.push(event), { after: before });
      await expect.poll(() => resumed.length).toBe(stored.length - before);
      again.close();
      expect(resumed).toEqual(stored.slice(before));
    }
  });

  it('the sweep runs on both instances and each due action lapses once', async () => {
    let clock = Date.parse('2026-03-01T09:00:00.000Z');
    const runs: Array<{ orderId: number; key: string; instance: string }> = [];
    const { a, b } = twoInstances((instance) => [{ ...refunds([42], runs, instance), hitl: { timeoutMinutes: 10 } }], {
      now: () => new Date(clock),
    });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const { id } = await (i % 2 ? a : b).heed.createConversation({ agent: 'support' });
      await (i % 2 ? a : b).heed.conversation(id).send('refund order 42');
      ids.push(id);
    }
    clock += 11 * 60_000;
    const [fromA, fromB, again] = await Promise.all([a.heed.expireDue(), b.heed.expireDue(), a.heed.expireDue()]);
    expect(fromA.lapsed + fromB.lapsed + again.lapsed).toBe(12);
    expect([...fromA.turns, ...fromB.turns, ...again.turns].map((turn) => turn.status)).toEqual(
      Array(12).fill('completed'),
    );
    for (const id of ids) {
      const events = await a.heed.conversation(id).events();
      expect(events.filter((event) => event.type === 'action.resolved')).toHaveLength(1);
      expect(events.filter((event) => event.type === 'turn.started' && event.data.trigger === 'timeout')).toHaveLength(
        1,
      );
      expect((await b.heed.conversation(id).actions())[0]).toMatchObject({ status: 'expired', channel: 'timeout' });
    }
    expect(runs).toHaveLength(0);
    expect((await b.heed.expireDue()).lapsed).toBe(0);
  });

  it('a continuation whose instance died is taken over after its lease lapses, from the last stored step', async () => {
    const calls: Array<{ tool: string; key: string; instance: string; finished: boolean }> = [];
    const agent = (instance: 'A' | 'B'): AgentConfig => ({
      name: 'support',
      // Refund (after approval), then send a receipt, then done.
      model: scriptedModel(({ messages }) => {
        const last = messages.at(-1);
        if (last?.role !== 'tool') return { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42 } }] };
        const result = last.content.at(-1) as { toolName: string };
        return result.toolName === 'issue_refund'
          ? { toolCalls: [{ toolName: 'send_receipt', input: { orderId: 42 } }] }
          : { text: 'Refunded; receipt sent.' };
      }),
      tools: {
        issue_refund: tool({
          inputSchema: z.object({ orderId: z.number() }),
          needsApproval: true,
          execute: async (_input, ctx) => {
            calls.push({ tool: 'issue_refund', key: ctx.idempotencyKey, instance, finished: true });
            return { refunded: 5 };
          },
        }),
        send_receipt: tool({
          inputSchema: z.object({ orderId: z.number() }),
          execute: async (_input, ctx) => {
            const call = { tool: 'send_receipt', key: ctx.idempotencyKey, instance, finished: false };
            calls.push(call);
            // On A the process "dies" here: the call never returns.
            if (instance === 'A') await new Promise(() => undefined);
            call.finished = true;
            return { sent: true };
          },
        }),
      },
    });
    const { a, b } = twoInstances((instance) => [agent(instance)], { leaseMs: 1000 });
    const { id } = await a.heed.createConversation({ agent: 'support' });
    const [action] = (await a.heed.conversation(id).send('refund order 42')).pendingActions!;
    void a.heed
      .conversation(id)
      .resolve(action.id, { type: 'approval', decision: 'allow' })
      .catch(() => undefined);
    await expect.poll(() => calls.some((call) => call.tool === 'send_receipt')).toBe(true);
    // A dies: its store goes away, so it renews its lease no more. (Not heed.close(): that would wait for the turn.)
    opened.splice(
      opened.findIndex((entry) => entry.heed === a.heed),
      1,
    );
    await a.store.close();

    // The lease A took is still running: B leaves the turn alone until it lapses, then takes it over.
    expect((await b.heed.expireDue()).recovered).toBe(0);
    const report = await vi.waitFor(
      async () => {
        const swept = await b.heed.expireDue();
        expect(swept.recovered).toBeGreaterThan(0);
        return swept;
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(report.recovered).toBe(1);
    expect(report.turns.map((turn) => turn.status)).toEqual(['completed']);

    const snapshot = await b.heed.conversation(id).get();
    expect(snapshot.runtime.status).toBe('idle');
    expect(JSON.stringify(snapshot.messages.at(-1))).toContain('Refunded; receipt sent.');
    // The refund's stored result was not computed again; the receipt (no stored result) ran again with the same key.
    expect(calls.filter((call) => call.tool === 'issue_refund')).toEqual([expect.objectContaining({ instance: 'A' })]);
    const receipts = calls.filter((call) => call.tool === 'send_receipt');
    expect(receipts.map((call) => [call.instance, call.finished])).toEqual([
      ['A', false],
      ['B', true],
    ]);
    expect(receipts[0].key).toBe(receipts[1].key);
    const events = await b.heed.conversation(id).events();
    const triggers = events.filter((event) => event.type === 'turn.started').map((event) => event.data.trigger);
    expect(triggers).toEqual(['message', 'answer', 'recovery']);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  });
});
