/**
 * The LangGraph adapter's two calls, made directly on real LangGraph.js graphs (no model): interrupts
 * become actions, answers resume the graph once, and the thread's checkpoints live in Heed's store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessage } from '@langchain/core/messages';
import { END, interrupt, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryStore } from '../../store/memory/memory-store.js';
import { sqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/store.js';
import type { ActionRecord, ConversationRecord, MessageRecord, StoredResolution } from '../../types.js';
import type { AgentHandler } from '../handler-types.js';
import { langgraphAgent } from './langgraph-agent.js';

/** A graph that counts its runs, asks for a name with `interrupt`, and greets. */
function greeter(runs: { prepared: number; greeted: number }, options: { checkpointer?: MemorySaver } = {}) {
  return new StateGraph(MessagesAnnotation)
    .addNode('prepare', () => {
      runs.prepared++;
      return {};
    })
    .addNode('greet', () => {
      const name = interrupt('What is your name?') as string;
      runs.greeted++;
      return { messages: [new AIMessage(`Hello, ${name}!`)] };
    })
    .addEdge(START, 'prepare')
    .addEdge('prepare', 'greet')
    .addEdge('greet', END)
    .compile(options);
}

/** A graph whose node asks as langchain's human-in-the-loop middleware does, and reports the decisions. */
function reviewer(seen: unknown[]) {
  return new StateGraph(MessagesAnnotation)
    .addNode('review', () => {
      const response = interrupt({
        actionRequests: [
          { name: 'refund', arguments: { orderId: '1042', amount: 30 } },
          { name: 'send_email', arguments: { to: 'ana@example.com' } },
        ],
        reviewConfigs: [
          {
            actionName: 'refund',
            allowedDecisions: ['approve', 'edit', 'reject'],
            description: 'Refund order 1042\nAmount: 30',
          },
          { actionName: 'send_email', allowedDecisions: ['approve', 'reject'] },
        ],
      }) as { decisions: unknown[] };
      seen.push(response);
      return { messages: [new AIMessage(`Decided ${response.decisions.length}`)] };
    })
    .addEdge(START, 'review')
    .addEdge('review', END)
    .compile();
}

const conversation = (id: string) => ({ id }) as ConversationRecord;
const message = (text: string) => ({ id: 'm1', role: 'user', parts: [{ type: 'text', text }] }) as MessageRecord;
const action = (id: string, journalIndex: number) => ({ id, journalIndex }) as ActionRecord;
const signal = new AbortController().signal;

function send(handler: AgentHandler, store: Store, id: string, text: string) {
  return handler.processMessage({
    conversation: conversation(id),
    message: message(text),
    signal,
    idempotencyKey: 'm1',
    values: store,
  });
}

function answer(
  handler: AgentHandler,
  store: Store,
  id: string,
  journalIndex: number,
  resolution: StoredResolution,
  key = `a${journalIndex}`,
) {
  return handler.resolveAction!({
    conversation: conversation(id),
    action: action(key, journalIndex),
    resolution,
    signal,
    idempotencyKey: key,
    values: store,
  });
}

describe('langgraphAgent', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'heed-langgraph-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('an interrupt with a text becomes a question; its answer resumes the graph once and the reply is the last AI message', async () => {
    const store = memoryStore();
    const runs = { prepared: 0, greeted: 0 };
    const { handler } = langgraphAgent({ name: 'greeter', graph: greeter(runs) });
    const paused = await send(handler, store, 'c1', 'hi');
    expect(paused).toEqual({
      pendingActions: [
        {
          kind: 'question',
          questions: [{ id: 'answer', header: 'Answer', prompt: 'What is your name?', input: { type: 'text' } }],
        },
      ],
    });
    const done = await answer(handler, store, 'c1', 0, { type: 'question', answers: { answer: ['Ana'] } });
    expect(done).toEqual({ content: 'Hello, Ana!' });
    expect(runs).toEqual({ prepared: 1, greeted: 1 });
    // A retry of the same call (a crash before Heed recorded it) gets the same reply, and the graph does not run again.
    expect(await answer(handler, store, 'c1', 0, { type: 'question', answers: { answer: ['Ana'] } })).toEqual({
      content: 'Hello, Ana!',
    });
    expect(runs).toEqual({ prepared: 1, greeted: 1 });
  });

  it('a resume that ran but whose reply was not recorded (the process died) is not made again on the next pause', async () => {
    const store = memoryStore();
    const asked: string[] = [];
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('name', () => {
        asked.push(interrupt('Your name?') as string);
        return {};
      })
      .addNode('city', () => {
        asked.push(interrupt('Your city?') as string);
        return { messages: [new AIMessage(asked.join(' from '))] };
      })
      .addEdge(START, 'name')
      .addEdge('name', 'city')
      .addEdge('city', END)
      .compile();
    const { handler } = langgraphAgent({ name: 'two', graph });
    await send(handler, store, 'c6', 'hi');
    const [saved] = await store.listValues('langgraph:pause:c6');
    const next = await answer(handler, store, 'c6', 0, { type: 'question', answers: { answer: ['Di'] } });
    expect(next.pendingActions?.[0]).toMatchObject({ questions: [{ prompt: 'Your city?' }] });
    // As if the process had died after the graph went on but before the adapter stored what came of it.
    await store.putValues([{ scope: 'langgraph:pause:c6', key: saved.key, value: saved.value }]);
    const again = await answer(handler, store, 'c6', 0, { type: 'question', answers: { answer: ['Di'] } }, 'other');
    // The old answer does not answer the new question: the graph still waits for the city.
    expect(again.pendingActions?.[0]).toMatchObject({ questions: [{ prompt: 'Your city?' }] });
    expect(asked).toEqual(['Di']);
    expect(await answer(handler, store, 'c6', 0, { type: 'question', answers: { answer: ['Oslo'] } }, 'a2')).toEqual({
      content: 'Di from Oslo',
    });
  });

  it("the middleware's action requests become approvals with their allowed decisions; answers resume it with one decision each", async () => {
    const store = memoryStore();
    const seen: unknown[] = [];
    const { handler } = langgraphAgent({ name: 'reviewer', graph: reviewer(seen) });
    const paused = await send(handler, store, 'c2', 'refund it');
    expect(paused.pendingActions).toEqual([
      {
        kind: 'approval',
        title: 'Refund order 1042',
        summary: 'Refund order 1042\nAmount: 30',
        toolName: 'refund',
        args: { orderId: '1042', amount: 30 },
        argsSchema: { type: 'object' },
      },
      { kind: 'approval', title: 'Run send_email?', toolName: 'send_email', args: { to: 'ana@example.com' } },
    ]);
    // The first answer alone does not resume: the graph waits for both.
    expect(
      await answer(handler, store, 'c2', 0, {
        type: 'approval',
        decision: 'allow',
        approvedArgs: { orderId: '1042', amount: 25 },
      }),
    ).toEqual({});
    expect(seen).toEqual([]);
    const done = await answer(handler, store, 'c2', 1, { type: 'approval', decision: 'deny', comment: 'not now' });
    expect(done).toEqual({ content: 'Decided 2' });
    expect(seen).toEqual([
      {
        decisions: [
          {
            type: 'edit',
            editedAction: {
              name: 'refund',
              arguments: { orderId: '1042', amount: 25 },
              args: { orderId: '1042', amount: 25 },
            },
          },
          { type: 'reject', message: 'not now' },
        ],
      },
    ]);
  });

  it('a pause survives a restart: a new adapter and graph on the same SQLite file resume it from the stored checkpoints', async () => {
    const path = join(dir, 'heed.db');
    const first = sqliteStore({ path });
    await first.migrate();
    const runsBefore = { prepared: 0, greeted: 0 };
    const before = langgraphAgent({ name: 'greeter', graph: greeter(runsBefore) });
    expect((await send(before.handler, first, 'c3', 'hi')).pendingActions).toHaveLength(1);
    await first.close();

    const second = sqliteStore({ path });
    await second.migrate();
    const runsAfter = { prepared: 0, greeted: 0 };
    const after = langgraphAgent({ name: 'greeter', graph: greeter(runsAfter) });
    expect(await answer(after.handler, second, 'c3', 0, { type: 'question', answers: { answer: ['Bo'] } })).toEqual({
      content: 'Hello, Bo!',
    });
    // The step before the pause is not run again: the graph went on from its checkpoint.
    expect(runsAfter).toEqual({ prepared: 0, greeted: 1 });
    expect((await second.listValues('langgraph:checkpoints:c3')).length).toBeGreaterThan(0);
    await second.close();
  });

  it("a graph compiled with its own checkpointer keeps it: nothing of the thread's checkpoints goes to Heed's store", async () => {
    const store = memoryStore();
    const runs = { prepared: 0, greeted: 0 };
    const { handler } = langgraphAgent({ name: 'greeter', graph: greeter(runs, { checkpointer: new MemorySaver() }) });
    await send(handler, store, 'c4', 'hi');
    expect(await answer(handler, store, 'c4', 0, { type: 'question', answers: { answer: ['Cy'] } })).toEqual({
      content: 'Hello, Cy!',
    });
    expect(await store.listValues('langgraph:checkpoints:c4')).toEqual([]);
  });

  it('a graph that ends without an interrupt replies with its last AI message', async () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('echo', (state) => ({
        messages: [new AIMessage(`You said: ${String(state.messages.at(-1)?.content)}`)],
      }))
      .addEdge(START, 'echo')
      .addEdge('echo', END)
      .compile();
    const { handler } = langgraphAgent({ name: 'echo', graph });
    expect(await send(handler, memoryStore(), 'c5', 'ping')).toEqual({ content: 'You said: ping' });
  });
});
