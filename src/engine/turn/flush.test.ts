import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createHeed, HeedError, memoryStore, tool, type AgentConfig, type Heed, type Store } from 'heed';
import { scriptedModel } from 'heed/testing';
import { conversationProblems } from '../../../test/invariants.js';
import { Turn } from './turn.js';

// A turn gathers its writes and commits them in order; a flush queued early (text deltas, a lease
// renewal) takes whatever is pending when its turn comes, a later step's writes included. These tests
// hold the first commit of a turn back until the step that pauses has queued its own flush, then make
// the held commit fail: refused (the turn was taken over meanwhile) or thrown (the store went away).

type Part = LanguageModelV3StreamPart;
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const refundCall: Part = {
  type: 'tool-call',
  toolCallId: 'call_refund',
  toolName: 'issue_refund',
  input: '{"orderId":42}',
};
const finish: Part = { type: 'finish', usage, finishReason: { unified: 'tool-calls', raw: undefined } } as Part;

/**
 * A model whose first call streams a word, then a second once `firstHeld` (the first word's commit is held),
 * then waits for `release()` before its tool call; later calls answer at once.
 */
function heldModel(firstHeld: Promise<void>) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  const model: LanguageModelV3 = {
    specificationVersion: 'v3',
    provider: 'test',
    modelId: 'held',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    async doStream() {
      const first = calls++ === 0;
      const parts = async function* (): AsyncGenerator<Part> {
        if (first) {
          yield { type: 'text-delta', id: 't', delta: 'Let me ' };
          // After the first delta's flush began (and is held), a second delta queues a flush behind it.
          await firstHeld;
          yield { type: 'text-delta', id: 't', delta: 'check.' };
          await held;
        }
        yield { ...refundCall, toolCallId: `call_refund_${calls}` } as Part;
        yield finish;
      };
      const source = parts();
      const stream = new ReadableStream<Part>({
        async pull(controller) {
          const next = await source.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
      });
      return { stream };
    },
  };
  return { model, release };
}

function refunds(model: AgentConfig['model'], runs: string[]): AgentConfig {
  return {
    name: 'support',
    model,
    tools: {
      issue_refund: tool({
        inputSchema: z.object({ orderId: z.number() }),
        needsApproval: true,
        execute: async (_input, ctx) => {
          runs.push(ctx.idempotencyKey);
          return { refunded: 5 };
        },
      }),
    },
  };
}

/**
 * A store whose first commit carrying a text delta waits for `open()` (`entered` says it is waiting),
 * and that throws a connection error from every call while `down` is true.
 */
function heldStore() {
  const inner = memoryStore();
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let entered!: () => void;
  const waiting = new Promise<void>((resolve) => (entered = resolve));
  let held = false;
  const state = { down: false };
  const reset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
  const store: Store = new Proxy(inner, {
    get(target, key) {
      const value = Reflect.get(target, key) as unknown;
      if (typeof value !== 'function' || key === 'close' || key === 'migrate') return value;
      return async (...args: unknown[]) => {
        if (
          key === 'commit' &&
          !held &&
          (args[0] as { events?: Array<{ type: string }> }).events?.some((event) => event.type === 'text.delta')
        ) {
          held = true;
          entered();
          await opened;
        }
        if (state.down) throw reset();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, inner, open, waiting, state };
}

const opened: Heed[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((heed) => heed.close()));
});

/**
 * Once the first delta's commit is held (`waiting`): waits until the second delta's flush is queued behind
 * it (a delta is flushed 25 ms after it comes), lets the model finish (`release`), and waits until the
 * step that pauses has queued its own flush too.
 */
async function queuedBehindHeld(waiting: Promise<void>, release: () => void): Promise<void> {
  const flushes = vi.spyOn(Turn.prototype, 'flush');
  try {
    await waiting;
    const held = flushes.mock.calls.length;
    await expect.poll(() => flushes.mock.calls.length).toBeGreaterThanOrEqual(held + 1);
    release();
    await expect.poll(() => flushes.mock.calls.length).toBeGreaterThanOrEqual(held + 2);
  } finally {
    flushes.mockRestore();
  }
}

describe("a turn's writes", () => {
  it('a pause is not offered when a flush queued before it was refused (the turn was taken over): the answer is what the conversation holds', async () => {
    const { store, inner, open, waiting } = heldStore();
    const runs: string[] = [];
    const { model, release } = heldModel(waiting);
    const past = new Date('2026-05-01T10:00:00Z');
    const a = createHeed({
      agents: [refunds(model, runs)],
      store,
      sweepIntervalMs: 0,
      leaseMs: 60_000,
      now: () => past,
    });
    opened.push(a);
    const { id } = await a.createConversation({ agent: 'support' });
    const sending = a.conversation(id).send('refund order 42');

    // The first deltas' commit is held; the second delta's flush and the pause's queue behind it.
    await queuedBehindHeld(waiting, release);

    // Meanwhile another instance, whose clock says A's lease lapsed, takes the turn over and pauses it.
    const b = createHeed({
      agents: [
        refunds(
          scriptedModel(() => ({ toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42 } }] })),
          runs,
        ),
      ],
      store: inner,
      sweepIntervalMs: 0,
      now: () => new Date('2026-05-01T12:00:00Z'),
    });
    opened.push(b);
    const report = await b.expireDue();
    expect(report.turns.map((turn) => turn.status)).toEqual(['requires_action']);
    const stored = (await inner.listActions(id)).filter((action) => action.status === 'pending');
    expect(stored).toHaveLength(1);

    open();
    const result = await sending;
    // A offers nothing it did not store: it answers with the pause the conversation holds (B's).
    expect(result.status).toBe('requires_action');
    expect(result.pendingActions!.map((action) => action.id)).toEqual(stored.map((action) => action.id));
    expect(result.warnings).toEqual([expect.objectContaining({ code: 'turn_moved' })]);
    expect(await conversationProblems(inner, id)).toEqual([]);
    expect(runs).toEqual([]);
  });

  it('a store error in a flush queued before the pause: 503 store_unavailable, no pause offered, no turn.failed; the turn goes on once the store answers', async () => {
    const { store, inner, open, waiting, state } = heldStore();
    const runs: string[] = [];
    const { model, release } = heldModel(waiting);
    const heed = createHeed({ agents: [refunds(model, runs)], store, sweepIntervalMs: 0 });
    opened.push(heed);
    const { id } = await heed.createConversation({ agent: 'support' });
    const sending = heed.conversation(id).send('refund order 42');

    await queuedBehindHeld(waiting, release);
    state.down = true;
    open();
    const error = await sending.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(HeedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'store_unavailable', status: 503, details: { retryAfterSeconds: 5 } });

    // Nothing of the step was stored; the turn still holds its claim.
    expect((await inner.listActions(id)).length).toBe(0);
    expect((await inner.getConversation(id))?.status).toBe('running');

    // Back: the same process carries the turn on from what is stored, with no restart and no sweep.
    state.down = false;
    await expect.poll(async () => (await inner.getConversation(id))?.status, { timeout: 5000 }).toBe('requires_action');
    const events = await inner.listEvents(id);
    expect(events.map((event) => event.type)).not.toContain('turn.failed');
    expect(events.filter((event) => event.type === 'turn.started').map((event) => event.data.trigger)).toEqual([
      'message',
      'recovery',
    ]);
    expect((await inner.listActions(id)).filter((action) => action.status === 'pending')).toHaveLength(1);
    expect(await conversationProblems(inner, id)).toEqual([]);
  });
});

describe('commits that do not wait for the disk (Change.waitForFlush, docs/guarantees.md)', () => {
  it("a tool's result is stored before the next model call without waiting; a commit that waits comes after it before any side effect and before the turn answers", async () => {
    // What the store was asked, in order, beside each tool's side effect: a commit that does not wait must be
    // followed by one that does (which flushes it too) before anything is done or answered on it.
    const log: Array<{ commit: { waits: boolean; events: string[] } } | { effect: string }> = [];
    const inner = memoryStore();
    const store: Store = new Proxy(inner, {
      get(target, key) {
        const value = Reflect.get(target, key) as unknown;
        if (key !== 'commit' || typeof value !== 'function') return value;
        return (change: Parameters<Store['commit']>[0]) => {
          log.push({
            commit: { waits: change.waitForFlush !== false, events: (change.events ?? []).map((e) => e.type) },
          });
          return (value as Store['commit']).call(target, change);
        };
      },
    });
    const model = scriptedModel(({ stepIndex }) =>
      stepIndex === 0
        ? { toolCalls: [{ toolName: 'look_up', input: { orderId: 42 } }] }
        : stepIndex === 1
          ? { toolCalls: [{ toolName: 'note', input: { text: 'found' } }] }
          : { text: 'Done.' },
    );
    const heed = createHeed({
      agents: [
        {
          name: 'support',
          model,
          tools: {
            look_up: tool({
              inputSchema: z.object({ orderId: z.number() }),
              execute: async () => (log.push({ effect: 'look_up' }), { status: 'shipped' }),
            }),
            note: tool({
              inputSchema: z.object({ text: z.string() }),
              execute: async () => (log.push({ effect: 'note' }), { noted: true }),
            }),
          },
        },
      ],
      store,
      sweepIntervalMs: 0,
    });
    opened.push(heed);
    const { id } = await heed.createConversation({ agent: 'support' });
    const result = await heed.conversation(id).send('where is order 42?');
    expect(result.status).toBe('completed');

    const unflushedAt: Array<string[]> = [];
    let dirty = false;
    for (const entry of log) {
      if ('effect' in entry) {
        expect(dirty, `a side effect (${entry.effect}) after a commit nobody waited for`).toBe(false);
        continue;
      }
      if (entry.commit.waits) dirty = false;
      else {
        dirty = true;
        unflushedAt.push(entry.commit.events);
      }
    }
    expect(dirty, 'the turn answered on a commit nobody waited for').toBe(false);
    // The claim, then each tool's result before the model reads it back.
    expect(unflushedAt).toEqual([['message.created', 'turn.started'], ['tool.result'], ['tool.result']]);
    expect(log.filter((entry) => 'effect' in entry)).toEqual([{ effect: 'look_up' }, { effect: 'note' }]);
    expect(await conversationProblems(inner, id)).toEqual([]);
  });
});

describe("a model's connection error", () => {
  it('is the model failing, not the store: turn.failed model_error, never store_unavailable', async () => {
    const reset = Object.assign(new Error('Cannot connect to API: read ECONNRESET'), {
      cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    });
    const model = scriptedModel(() => {
      throw reset;
    });
    const heed = createHeed({ agents: [refunds(model, [])], sweepIntervalMs: 0 });
    opened.push(heed);
    const { id } = await heed.createConversation({ agent: 'support' });
    const result = await heed.conversation(id).send('refund order 42');
    expect(result).toMatchObject({
      status: 'failed',
      error: { code: 'model_error', message: 'Cannot connect to API: read ECONNRESET' },
    });
    expect((await heed.conversation(id).events()).at(-1)?.type).toBe('turn.failed');
    expect((await heed.conversation(id).get()).conversation.status).toBe('idle');
  });
});
