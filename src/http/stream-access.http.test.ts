import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { readSse, type SseEvent } from '../client/sse-reader.js';
import { clearDelegation } from '../engine/delegation.js';
import { memoryStore } from '../store/memory/memory-store.js';

/**
 * A stream does not outlive the access that opened it (issue 38, finding 3): a delegate follows the
 * owner's conversation while the delegation holds, and their stream ends — with an `error` event, never
 * the owner's next message — once it is removed, whether this server or another instance on the store
 * removed it.
 */

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const DEADLINE_MS = 5000;

/** Resolves with `promise`, or fails once `ms` have passed without it. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Opens a stream as `token` and collects its events; `ended` resolves when the server closes it. */
async function open(server: TestServer, path: string, token: string) {
  const abort = new AbortController();
  const response = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: abort.signal,
  });
  expect(response.status).toBe(200);
  const events: Array<SseEvent & { json: any }> = [];
  const ended = (async () => {
    for await (const event of readSse(response.body!, abort.signal))
      events.push({ ...event, json: JSON.parse(event.data) });
  })().catch(() => undefined);
  cleanup.push(async () => {
    abort.abort();
    await ended;
  });
  return { events, ended };
}

/** ada's conversation, paused on an approval (two with `twice`). */
async function paused(server: TestServer, content = 'refund') {
  const { body } = await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } });
  const turn = await server.api('POST', `/api/conversations/${body.id}/messages`, { token: 'ada', body: { content } });
  expect(turn.body.status).toBe('requires_action');
  return { id: body.id as string, actions: turn.body.pendingActions.map((action: { id: string }) => action.id) };
}

async function delegate(server: TestServer, to: string) {
  const set = await server.api('PUT', '/api/me/delegation', { token: 'ada', body: { to } });
  expect(set.status).toBe(200);
}

/** ada allows one of her actions. */
async function answer(server: TestServer, conversationId: string, actionId: string) {
  const answered = await server.api('POST', `/api/conversations/${conversationId}/actions/${actionId}`, {
    token: 'ada',
    body: { resolution: { type: 'approval', decision: 'allow' } },
  });
  expect(answered.status).toBe(200);
}

/** Whether `events` show the message `text` (its `message.created` or anything quoting it). */
const shows = (events: SseEvent[], text: string) => events.some((event) => event.data.includes(text));

async function start() {
  const store = memoryStore();
  const server = await startServer({ store });
  cleanup.push(server.close);
  return { server, store };
}

describe('a stream outlives no access', () => {
  it("ends a delegate's event stream with not_found when the delegation is removed; the owner's next message never reaches it", async () => {
    const { server } = await start();
    const conversation = await paused(server);
    await delegate(server, 'bob');
    const stream = await open(server, `/api/conversations/${conversation.id}/events/stream`, 'bob');
    // While the delegation holds, bob follows: the backlog reaches him.
    await expect.poll(() => stream.events.map((event) => event.event)).toContain('action.required');

    expect((await server.api('DELETE', '/api/me/delegation', { token: 'ada' })).status).toBe(200);
    // At once, without waiting for anything to happen in the conversation.
    await within(stream.ended, DEADLINE_MS, "the delegate's stream ending");
    expect(stream.events.at(-1)).toMatchObject({
      event: 'error',
      json: { error: { code: 'not_found', details: { conversationId: conversation.id } } },
    });

    // ada answers: the turn carries on and the agent's next message ("Done.") is in her log, not in bob's stream.
    await answer(server, conversation.id, conversation.actions[0]);
    const log = await server.api('GET', `/api/conversations/${conversation.id}/events`, { token: 'ada' });
    const logged = log.body.events.map((event: unknown) => ({ event: '', data: JSON.stringify(event) }));
    expect(shows(logged, 'Done.')).toBe(true);
    expect(shows(stream.events, 'Done.')).toBe(false);
    expect(stream.events.map((event) => event.event)).not.toContain('action.resolved');
    expect(stream.events.filter((event) => event.event === 'error')).toHaveLength(1);
  });

  it('ends it at the next event when another instance removed the delegation (no notice reaches this one)', async () => {
    const { server, store } = await start();
    // Two approvals: answering one leaves the other waiting on ada, so only the delegation decides.
    const conversation = await paused(server, 'twice');
    await delegate(server, 'bob');
    const stream = await open(server, `/api/conversations/${conversation.id}/events/stream`, 'bob');
    await expect.poll(() => stream.events.filter((event) => event.event === 'action.required')).toHaveLength(2);

    // Straight in the shared store, as another server instance would: this one's bus hears nothing.
    await clearDelegation(store, 'ada', new Date().toISOString());
    await answer(server, conversation.id, conversation.actions[0]);

    await within(stream.ended, DEADLINE_MS, "the delegate's stream ending");
    expect(stream.events.at(-1)).toMatchObject({ event: 'error', json: { error: { code: 'not_found' } } });
    expect(stream.events.map((event) => event.event)).not.toContain('action.resolved');
  });

  it('keeps the stream while the delegation holds and something still waits on the owner', async () => {
    const { server } = await start();
    const conversation = await paused(server, 'twice');
    expect(conversation.actions).toHaveLength(2);
    await delegate(server, 'bob');
    const stream = await open(server, `/api/conversations/${conversation.id}/events/stream`, 'bob');
    await expect.poll(() => stream.events.filter((event) => event.event === 'action.required')).toHaveLength(2);

    await answer(server, conversation.id, conversation.actions[0]);
    // The answer reaches bob, and his stream stays open (the other approval still waits on ada).
    await expect.poll(() => stream.events.map((event) => event.event)).toContain('action.resolved');
    expect(stream.events.map((event) => event.event)).not.toContain('error');

    // Once nothing waits on ada any more, bob has no reason to read it: his stream ends too.
    await answer(server, conversation.id, conversation.actions[1]);
    await within(stream.ended, DEADLINE_MS, "the delegate's stream ending");
    expect(stream.events.at(-1)).toMatchObject({ event: 'error', json: { error: { code: 'not_found' } } });
    expect(shows(stream.events, 'Done.')).toBe(false);
  });

  it("ends a delegate's A2A SubscribeToTask stream with the task's not_found when the delegation is removed", async () => {
    const { server } = await start();
    const rpc = (token: string, method: string, params: unknown) =>
      fetch(`${server.url}/api/a2a/support`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
    const sent = await rpc('ada', 'SendMessage', {
      message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'refund please' }] },
    });
    const task = ((await sent.json()) as { result: { task: { id: string; contextId: string } } }).result.task;
    await delegate(server, 'bob');

    const abort = new AbortController();
    const subscribed = await fetch(`${server.url}/api/a2a/support`, {
      method: 'POST',
      headers: { authorization: 'Bearer bob', 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id: task.id } }),
      signal: abort.signal,
    });
    expect(subscribed.headers.get('content-type')).toContain('text/event-stream');
    const events: Array<{ result?: any; error?: any }> = [];
    const ended = (async () => {
      for await (const event of readSse(subscribed.body!, abort.signal)) events.push(JSON.parse(event.data));
    })().catch(() => undefined);
    cleanup.push(async () => {
      abort.abort();
      await ended;
    });
    // While the delegation holds, bob follows the task.
    await expect.poll(() => events[0]?.result?.task?.id).toBe(task.id);

    await server.api('DELETE', '/api/me/delegation', { token: 'ada' });
    await within(ended, DEADLINE_MS, "the delegate's task stream ending");
    expect(events.at(-1)?.error?.data[0].metadata).toMatchObject({ code: 'not_found' });

    // ada allows: the task completes, and bob's stream (closed) saw none of it.
    const actions = await server.api('GET', `/api/conversations/${task.contextId}/actions`, { token: 'ada' });
    await answer(server, task.contextId, String(actions.body.actions[0].id));
    const got = await rpc('ada', 'GetTask', { id: task.id });
    expect(((await got.json()) as { result: { status: { state: string } } }).result.status.state).toBe(
      'TASK_STATE_COMPLETED',
    );
    expect(JSON.stringify(events)).not.toContain('TASK_STATE_COMPLETED');
  });

  it("drops the owner's actions from a delegate's inbox stream when the delegation is removed", async () => {
    const { server } = await start();
    const conversation = await paused(server);
    await delegate(server, 'bob');
    const inbox = await open(server, '/api/inbox/stream', 'bob');
    await expect.poll(() => inbox.events.map((event) => event.event)).toContain('inbox.synced');
    expect(inbox.events[0]).toMatchObject({ event: 'inbox.added', json: { id: conversation.actions[0] } });

    await server.api('DELETE', '/api/me/delegation', { token: 'ada' });
    await expect
      .poll(() => inbox.events.find((event) => event.event === 'inbox.removed'), { timeout: DEADLINE_MS })
      .toMatchObject({ json: { id: conversation.actions[0], conversationId: conversation.id } });
  });
});
