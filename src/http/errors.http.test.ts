import { afterEach, describe, expect, it, vi } from 'vitest';
import { gate, startServer, type TestServer } from '../../test/http-fixtures.js';
import { HeedError } from '../errors.js';
import { memoryStore } from '../store/memory/memory-store.js';
import { sendMessage } from '../engine/send.js';
import { engineOf } from '../heed.js';
import { errorBody } from '../protocol/responses.js';

// Every error of docs/http.md#errors (and the HTTP layer's own) over real HTTP: status, code, body shape (parsed with the protocol's `errorBody`).
describe('HTTP errors', () => {
  const servers: TestServer[] = [];
  const start = async (...args: Parameters<typeof startServer>) => {
    const server = await startServer(...args);
    servers.push(server);
    return server;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  const pausedOn = async (server: TestServer, content: string, token = 'ada') => {
    const conversation = (await server.api('POST', '/api/conversations', { token, body: { agent: 'support' } })).body;
    const sent = await server.api('POST', `/api/conversations/${conversation.id}/messages`, {
      token,
      body: { content },
    });
    return { id: conversation.id as string, action: sent.body.pendingActions[0] as { id: string } };
  };
  const answer = (server: TestServer, id: string, actionId: string, resolution: unknown, token = 'ada') =>
    server.api('POST', `/api/conversations/${id}/actions/${actionId}`, { token, body: { resolution } });
  const expectError = (response: { status: number; body: unknown }, status: number, code: string) => {
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ error: { code, message: expect.any(String) } });
    errorBody.parse(response.body);
  };

  it('400 invalid_request: malformed JSON, a zod failure naming the field, a bad query, cursor or Last-Event-ID', async () => {
    const server = await start();
    const malformed = await server.api('POST', '/api/conversations', { token: 'ada', raw: '{"agent": ' });
    expectError(malformed, 400, 'invalid_request');
    const missing = await server.api('POST', '/api/conversations', { token: 'ada', body: { agnt: 'support' } });
    expectError(missing, 400, 'invalid_request');
    expect(missing.body.error.details.field).toBe('body.agent');
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } })).body;
    const wrongType = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 42 },
    });
    expect(wrongType.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'body.content' } });
    expect(wrongType.body.error.message).toContain('content');
    expectError(
      await server.api('GET', '/api/conversations?status=sleeping', { token: 'ada' }),
      400,
      'invalid_request',
    );
    expectError(
      await server.api('GET', `/api/conversations/${id}/events?after=-1`, { token: 'ada' }),
      400,
      'invalid_request',
    );
    expectError(await server.api('GET', '/api/inbox?cursor=nonsense', { token: 'ada' }), 400, 'invalid_request');
    expectError(
      await server.api('GET', `/api/conversations/${id}/events/stream`, {
        token: 'ada',
        headers: { 'last-event-id': 'x' },
      }),
      400,
      'invalid_request',
    );
  });

  it('401 unauthorized: an unknown token, and no token when auth.required', async () => {
    const server = await start();
    expectError(await server.api('GET', '/api/agents', { token: 'nope' }), 401, 'unauthorized');
    expectError(
      await server.api('GET', '/api/agents', { headers: { authorization: 'Basic abc' } }),
      401,
      'unauthorized',
    );
    const strict = await start({ auth: { tokens: { ada: { userId: 'ada' } }, required: true } });
    expectError(await strict.api('GET', '/api/agents'), 401, 'unauthorized');
    expect((await strict.api('GET', '/api/agents', { token: 'ada' })).status).toBe(200);
    // The document, its page and liveness stay public.
    expect((await strict.api('GET', '/api/openapi.json')).status).toBe(200);
    expect((await strict.api('GET', '/health')).status).toBe(200);
  });

  it('403 forbidden from a resolveContext hook; 500 internal_error without internals for a hook that crashes', async () => {
    const server = await start({
      auth: {
        resolveContext: (request) => {
          const who = request.headers.get('x-user');
          if (who === 'banned') throw new HeedError('forbidden', 'This account is suspended.');
          if (who === 'crash') throw new Error('db password is hunter2');
          return who ? { userId: who } : null;
        },
      },
    });
    expectError(await server.api('GET', '/api/agents', { headers: { 'x-user': 'banned' } }), 403, 'forbidden');
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const crashed = await server.api('GET', '/api/agents', { headers: { 'x-user': 'crash' } });
    expect(logged).toHaveBeenCalledTimes(1);
    logged.mockRestore();
    expectError(crashed, 500, 'internal_error');
    expect(crashed.text).not.toContain('hunter2');
    expect((await server.api('GET', '/api/agents', { headers: { 'x-user': 'ada' } })).status).toBe(200);
  });

  it('404 not_found: unknown conversation, action, agent, route, message to branch from', async () => {
    const server = await start();
    expectError(await server.api('GET', '/api/conversations/c_missing', { token: 'ada' }), 404, 'not_found');
    expectError(
      await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'nobody' } }),
      404,
      'not_found',
    );
    const { id } = await pausedOn(server, 'refund');
    expectError(await answer(server, id, 'a_missing', { type: 'approval', decision: 'allow' }), 404, 'not_found');
    expectError(await server.api('GET', '/api/nothing-here', { token: 'ada' }), 404, 'not_found');
    expectError(
      await server.api('POST', `/api/conversations/${id}/branch`, { token: 'ada', body: { fromMessageId: 'm_nope' } }),
      404,
      'not_found',
    );
  });

  it('409 action_not_pending carries the stored resolution; 410 action_expired', async () => {
    let now = new Date('2030-01-01T00:00:00Z');
    const server = await start({ now: () => now, hitl: { timeoutMinutes: 5 } });
    const first = await pausedOn(server, 'refund');
    await answer(server, first.id, first.action.id, { type: 'approval', decision: 'deny', comment: 'no' });
    const again = await answer(server, first.id, first.action.id, { type: 'approval', decision: 'allow' });
    expectError(again, 409, 'action_not_pending');
    expect(again.body.error.details).toMatchObject({
      status: 'resolved',
      resolvedBy: 'ada',
      resolution: { type: 'approval', decision: 'deny', comment: 'no' },
    });

    const second = await pausedOn(server, 'refund');
    now = new Date('2030-01-01T00:10:00Z');
    expectError(
      await answer(server, second.id, second.action.id, { type: 'approval', decision: 'allow' }),
      410,
      'action_expired',
    );
  });

  it('checks run in the fixed order: 409 before 410 before 403 before 400', async () => {
    let now = new Date('2030-01-01T00:00:00Z');
    const server = await start({ now: () => now, hitl: { timeoutMinutes: 5 } });
    const page = await pausedOn(server, 'read the page');
    // ada may not answer the page's tool (403) and the answer is malformed too (400): 403 wins.
    expectError(await answer(server, page.id, page.action.id, { type: 'client_tool' }), 403, 'action_forbidden');
    now = new Date('2030-01-01T00:10:00Z');
    // Lapsed as well: 410 wins over 403.
    expectError(await answer(server, page.id, page.action.id, { type: 'client_tool' }), 410, 'action_expired');
    now = new Date('2030-01-01T00:00:00Z');
    const settled = await pausedOn(server, 'refund');
    await answer(server, settled.id, settled.action.id, { type: 'approval', decision: 'allow' });
    now = new Date('2030-01-01T00:10:00Z');
    // Settled before it lapsed: 409 wins over 410, and over a malformed resolution.
    expectError(await answer(server, settled.id, settled.action.id, { nonsense: true }), 409, 'action_not_pending');
  });

  it('403 action_forbidden: authorizeResolve decides for everyone, and a client tool access check', async () => {
    const server = await start({
      hitl: {
        authorizeResolve: (caller, { action }) => action.kind !== 'approval' || caller?.data?.role === 'approver',
      },
    });
    const paused = await pausedOn(server, 'refund');
    expectError(
      await answer(server, paused.id, paused.action.id, { type: 'approval', decision: 'allow' }),
      403,
      'action_forbidden',
    );
    const approved = await answer(server, paused.id, paused.action.id, { type: 'approval', decision: 'allow' }, 'bob');
    expect(approved.body.status).toBe('completed');
    expect(
      (await server.api('GET', `/api/conversations/${paused.id}/actions`, { token: 'ada' })).body.actions[0].resolvedBy,
    ).toBe('bob');

    const page = await pausedOn(server, 'page');
    expectError(
      await answer(server, page.id, page.action.id, { type: 'client_tool', output: { text: 'x' } }),
      403,
      'action_forbidden',
    );
  });

  it('400 invalid_resolution / invalid_approved_args / invalid_client_tool_result leave the action pending', async () => {
    const server = await start();
    const refund = await pausedOn(server, 'refund');
    expectError(
      await answer(server, refund.id, refund.action.id, { type: 'question', answers: {} }),
      400,
      'invalid_resolution',
    );
    expectError(await answer(server, refund.id, refund.action.id, undefined), 400, 'invalid_resolution');
    const edited = await answer(server, refund.id, refund.action.id, {
      type: 'approval',
      decision: 'allow',
      approvedArgs: { orderId: 42, amount: 9000 },
    });
    expectError(edited, 400, 'invalid_approved_args');
    expect(edited.body.error.details.field).toBe('amount');
    const question = await pausedOn(server, 'ask');
    const wrong = await answer(server, question.id, question.action.id, { type: 'question', answers: { qty: '12' } });
    expectError(wrong, 400, 'invalid_resolution');
    const page = await pausedOn(server, 'page', 'adaPage');
    expectError(
      await answer(server, page.id, page.action.id, { type: 'client_tool', output: { text: 5 } }, 'adaPage'),
      400,
      'invalid_client_tool_result',
    );
    // Nothing was consumed: a good answer still goes through.
    expect(
      (await answer(server, refund.id, refund.action.id, { type: 'approval', decision: 'allow' })).body.status,
    ).toBe('completed');
  });

  it('402 budget_reached on a message and on an answer that would continue', async () => {
    const server = await start({ limits: { maxTokensPerConversation: 1 } });
    const paused = await pausedOn(server, 'refund');
    expectError(
      await answer(server, paused.id, paused.action.id, { type: 'approval', decision: 'allow' }),
      402,
      'budget_reached',
    );
    await server.api('POST', `/api/conversations/${paused.id}/cancel`, { token: 'ada' });
    expectError(
      await server.api('POST', `/api/conversations/${paused.id}/messages`, { token: 'ada', body: { content: 'hi' } }),
      402,
      'budget_reached',
    );
  });

  it('409 conversation_busy, action_pending and channel_chat', async () => {
    const slow = gate();
    const store = memoryStore();
    const server = await start({ store }, slow);
    const conversation = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } }))
      .body;
    const running = server.api('POST', `/api/conversations/${conversation.id}/messages`, {
      token: 'ada',
      body: { content: 'slow' },
    });
    await expect
      .poll(
        async () =>
          (await server.api('GET', `/api/conversations/${conversation.id}`, { token: 'ada' })).body.runtime.status,
      )
      .toBe('running');
    expectError(
      await server.api('POST', `/api/conversations/${conversation.id}/messages`, {
        token: 'ada',
        body: { content: 'hi' },
      }),
      409,
      'conversation_busy',
    );
    slow.open();
    expect((await running).body.status).toBe('completed');

    const paused = await pausedOn(server, 'refund');
    const blocked = await server.api('POST', `/api/conversations/${paused.id}/messages`, {
      token: 'ada',
      body: { content: 'hi' },
    });
    expectError(blocked, 409, 'action_pending');
    expect(blocked.body.error.details.pendingActionIds).toEqual([paused.action.id]);

    const channel = await server.heed.createConversation({ agent: 'support', ownerId: 'ada', channel: 'slack:C1/T1' });
    expectError(
      await server.api('POST', `/api/conversations/${channel.id}/messages`, { token: 'ada', body: { content: 'hi' } }),
      409,
      'channel_chat',
    );
    expect((await server.api('GET', `/api/conversations/${channel.id}`, { token: 'ada' })).status).toBe(200);
    expect((await server.api('POST', `/api/conversations/${channel.id}/branch`, { token: 'ada' })).status).toBe(201);
    await sendMessage(engineOf(server.heed), channel.id, 'refund', { via: 'channel' });
    const [action] = await server.heed.conversation(channel.id).pendingActions();
    expectError(
      await answer(server, channel.id, action.id, { type: 'approval', decision: 'allow' }),
      409,
      'channel_chat',
    );
    expectError(
      await server.api('POST', `/api/conversations/${channel.id}/cancel`, { token: 'ada' }),
      409,
      'channel_chat',
    );
  });

  it('413 payload_too_large', async () => {
    const server = await start({}, undefined, 10_000);
    const big = await server.api('POST', '/api/conversations', {
      token: 'ada',
      raw: JSON.stringify({ agent: 'support', metadata: { pad: 'x'.repeat(20_000) } }),
    });
    expectError(big, 413, 'payload_too_large');
    expect(big.body.error.details).toEqual({ maxBytes: 10_000 });
    const fits = await server.api('POST', '/api/conversations', {
      token: 'ada',
      raw: JSON.stringify({ agent: 'support', metadata: { pad: 'x'.repeat(5_000) } }),
    });
    expect(fits.status).toBe(201);
  });
});
