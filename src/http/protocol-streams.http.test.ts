import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';

/**
 * The AG-UI and A2A streams count against `limits.streamsPerCaller` like every other live stream
 * (docs/guarantees.md): a caller cannot make the server hold more of them open than the limit, by any mix
 * of routes, over real HTTP.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ limits: { streamsPerCaller: 1 } });
});
afterAll(async () => {
  await server.close();
});

const rpc = (method: string, params: unknown, signal?: AbortSignal) =>
  fetch(`${server.url}/api/a2a/support`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ada' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal,
  });

const agUiRun = (threadId: string) =>
  fetch(`${server.url}/api/ag-ui/support`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: 'Bearer ada' },
    body: JSON.stringify({
      threadId,
      runId: 'run-1',
      state: {},
      messages: [{ id: 'm1', role: 'user', content: 'hello' }],
      tools: [],
      context: [],
      forwardedProps: {},
    }),
  });

describe('AG-UI and A2A streams under limits.streamsPerCaller', () => {
  it('a caller holding one A2A subscription may open no second stream on either protocol until it closes it', async () => {
    // A task paused on an approval: its subscription stays open until a person decides.
    const sent = await rpc('SendMessage', {
      message: { messageId: 'msg-limit-1', role: 'ROLE_USER', parts: [{ text: 'refund' }] },
    });
    const task = (await sent.json()).result.task;
    expect(task.status.state).toBe('TASK_STATE_AUTH_REQUIRED');

    const first = new AbortController();
    const held = await rpc('SubscribeToTask', { id: task.id }, first.signal);
    expect(held.status).toBe(200);
    expect(held.headers.get('content-type')).toContain('text/event-stream');

    const second = await rpc('SubscribeToTask', { id: task.id });
    expect(second.status).toBe(429);
    expect((await second.json()).error).toMatchObject({
      code: 'rate_limited',
      details: { limit: 'streamsPerCaller', max: 1 },
    });
    const run = await agUiRun('agui-limit-thread');
    expect(run.status).toBe(429);
    expect((await run.json()).error.code).toBe('rate_limited');
    // Nothing was recorded for the refused run.
    expect((await server.api('GET', '/api/conversations/agui-limit-thread', { token: 'ada' })).status).toBe(404);

    first.abort();
    await held.body?.cancel().catch(() => undefined);
    await expect.poll(async () => (await agUiRun('agui-limit-thread')).status).toBe(200);
  });
});
