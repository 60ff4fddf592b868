import { afterEach, describe, expect, it } from 'vitest';
import { gate, parseSse, startServer, type TestServer } from '../../test/http-fixtures.js';

type Streamed = { event: string; id?: string; data: string };

describe('HTTP streams', () => {
  const servers: TestServer[] = [];
  const start = async (...args: Parameters<typeof startServer>) => {
    const server = await startServer(...args);
    servers.push(server);
    return server;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  const post = async (
    server: TestServer,
    path: string,
    body: unknown,
  ): Promise<{ status: number; type: string; events: Streamed[] }> => {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: 'Bearer ada', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      events: parseSse(await response.text()),
    };
  };
  const conversationOf = async (server: TestServer) =>
    (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } })).body.id as string;

  it('stream: true on a message streams the turn and ends with turn.done', async () => {
    const server = await start();
    const id = await conversationOf(server);
    const { status, type, events } = await post(server, `/api/conversations/${id}/messages`, {
      content: 'refund',
      stream: true,
    });
    expect(status).toBe(200);
    expect(type).toContain('text/event-stream');
    const logged = events.slice(0, -1);
    expect(logged.map((event) => event.event)).toEqual([
      'message.created',
      'turn.started',
      'message.created',
      'tool.called',
      'action.required',
      'turn.paused',
    ]);
    expect(logged.map((event) => Number(event.id))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(JSON.parse(logged[3].data)).toMatchObject({
      seq: 4,
      type: 'tool.called',
      data: { toolName: 'issue_refund' },
    });
    const done = events.at(-1)!;
    expect(done.event).toBe('turn.done');
    expect(done.id).toBeUndefined();
    const result = JSON.parse(done.data);
    expect(result).toMatchObject({ status: 'requires_action', pendingActions: [{ kind: 'approval' }] });

    const answered = await post(server, `/api/conversations/${id}/actions/${result.pendingActions[0].id}`, {
      resolution: { type: 'approval', decision: 'allow' },
      stream: true,
    });
    expect(answered.events.map((event) => event.event)).toEqual([
      'action.resolved',
      'turn.started',
      'tool.result',
      'text.delta',
      'message.created',
      'turn.completed',
      'turn.done',
    ]);
    expect(answered.events.slice(0, -1).map((event) => Number(event.id))).toEqual([7, 8, 9, 10, 11, 12]);
    expect(JSON.parse(answered.events.at(-1)!.data)).toMatchObject({
      status: 'completed',
      messages: [{ role: 'tool' }, { role: 'assistant' }],
    });
  });

  it('the stream routes (…/messages/stream, …/actions/:actionId/stream) stream the same as stream: true, and refuse a stream flag', async () => {
    const server = await start();
    const id = await conversationOf(server);
    const sent = await post(server, `/api/conversations/${id}/messages/stream`, { content: 'refund' });
    expect(sent.type).toContain('text/event-stream');
    expect(sent.events.map((event) => event.event)).toEqual([
      'message.created',
      'turn.started',
      'message.created',
      'tool.called',
      'action.required',
      'turn.paused',
      'turn.done',
    ]);
    const { pendingActions } = JSON.parse(sent.events.at(-1)!.data);
    const answered = await post(server, `/api/conversations/${id}/actions/${pendingActions[0].id}/stream`, {
      resolution: { type: 'approval', decision: 'allow' },
    });
    expect(answered.events.map((event) => event.event)).toEqual([
      'action.resolved',
      'turn.started',
      'tool.result',
      'text.delta',
      'message.created',
      'turn.completed',
      'turn.done',
    ]);
    expect(JSON.parse(answered.events.at(-1)!.data)).toMatchObject({ status: 'completed' });
    // The same checks first, as JSON errors: a second answer gets the stored one.
    const again = await fetch(`${server.url}/api/conversations/${id}/actions/${pendingActions[0].id}/stream`, {
      method: 'POST',
      headers: { authorization: 'Bearer ada', 'content-type': 'application/json' },
      body: JSON.stringify({ resolution: { type: 'approval', decision: 'deny' } }),
    });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('action_not_pending');
    expect(
      (
        await server.api('POST', `/api/conversations/${id}/messages/stream`, {
          token: 'ada',
          body: { content: 'hi', stream: false },
        })
      ).status,
    ).toBe(400);
  });

  it('an answer that leaves the pause open streams only its own events, then what is still pending', async () => {
    const server = await start();
    const id = await conversationOf(server);
    const sent = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'refund twice' },
    });
    const [first, second] = sent.body.pendingActions;
    const partial = await post(server, `/api/conversations/${id}/actions/${first.id}`, {
      resolution: { type: 'approval', decision: 'allow' },
      stream: true,
    });
    expect(partial.events.map((event) => event.event)).toEqual(['action.resolved', 'turn.done']);
    expect(JSON.parse(partial.events[1].data)).toMatchObject({
      status: 'requires_action',
      pendingActions: [{ id: second.id }],
    });
    const closing = await post(server, `/api/conversations/${id}/actions/${second.id}`, {
      resolution: { type: 'approval', decision: 'deny' },
      stream: true,
    });
    expect(JSON.parse(closing.events.at(-1)!.data).status).toBe('completed');
    expect(server.ran.get('issue_refund')).toBe(1);
  });

  it('errors before anything is recorded are plain JSON errors, not streams', async () => {
    const server = await start();
    const id = await conversationOf(server);
    await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content: 'refund' } });
    const refused = await post(server, `/api/conversations/${id}/messages`, { content: 'hi', stream: true });
    expect(refused.status).toBe(409);
    expect(refused.type).toContain('application/json');
  });

  it('GET …/events/stream follows live and resumes from Last-Event-ID without gaps or repeats', async () => {
    const server = await start();
    const id = await conversationOf(server);
    await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content: 'hi' } });

    const controller = new AbortController();
    const response = await fetch(`${server.url}/api/conversations/${id}/events/stream`, {
      headers: { authorization: 'Bearer ada', 'last-event-id': '2' },
      signal: controller.signal,
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    let text = '';
    const sending = server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'refund' },
    });
    while (!text.includes('event: turn.paused')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await sending;
    const ids = parseSse(text).map((event) => Number(event.id));
    const total = (await server.api('GET', `/api/conversations/${id}/events?limit=500`, { token: 'ada' })).body.events
      .length;
    expect(ids).toEqual(Array.from({ length: total - 2 }, (_, index) => index + 3));

    // Resume in the middle with ?after= (for clients that cannot set headers).
    const resumed = new AbortController();
    const again = await fetch(`${server.url}/api/conversations/${id}/events/stream?after=${total - 2}`, {
      headers: { authorization: 'Bearer ada' },
      signal: resumed.signal,
    });
    const againReader = again.body!.getReader();
    let more = '';
    while (parseSse(more).length < 2) more += new TextDecoder().decode((await againReader.read()).value);
    resumed.abort();
    expect(parseSse(more).map((event) => Number(event.id))).toEqual([total - 1, total]);
  });

  it('a client that disconnects does not stop the turn', async () => {
    const slow = gate();
    const server = await start({}, slow);
    const id = await conversationOf(server);
    const controller = new AbortController();
    const response = await fetch(`${server.url}/api/conversations/${id}/messages`, {
      method: 'POST',
      headers: { authorization: 'Bearer ada', 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'slow', stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('turn.started')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    slow.open();
    await expect
      .poll(async () => (await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body.runtime.status)
      .toBe('idle');
    const snapshot = await server.api('GET', `/api/conversations/${id}`, { token: 'ada' });
    expect(snapshot.body.messages.at(-1)).toMatchObject({
      role: 'assistant',
      parts: [{ type: 'text', text: 'Hello.' }],
    });
  });

  it('closing the server ends live streams', async () => {
    const server = await startServer();
    const id = await conversationOf(server);
    const response = await fetch(`${server.url}/api/conversations/${id}/events/stream`, {
      headers: { authorization: 'Bearer ada' },
    });
    const reading = response.text();
    await server.close();
    expect(await reading).toContain(': stream open');
  });
});
