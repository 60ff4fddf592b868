import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentConfig, HeedConfig } from '../config.js';
import { errorBody, queuedResult, snapshot as snapshotSchema, turnResult } from '../protocol/responses.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { engineOf } from '../heed.js';
import { tool } from '../tool.js';
import { gate, startServer, type TestServer } from '../../test/http-fixtures.js';

// Messages sent while a turn runs (seed 000, "turns and queued messages"): with busyPolicy 'queue' each is
// recorded (202 with its place), then run after the turn before it, in order, once; a pause still follows
// pendingActionPolicy; a cancel drops them; the queue is bounded.

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/**
 * An agent whose model calls `note` with the user's text, then says "Noted <text>." A text with "hold"
 * waits on the gate first; "refund" asks for an approval instead.
 */
function notingAgent(hold: { opened: Promise<void> }, extra: Partial<AgentConfig> = {}) {
  const noted: string[] = [];
  const modelSaw: string[] = [];
  const model = scriptedModel(async ({ messages }) => {
    const lastUser = [...messages].reverse().find((message) => message.role === 'user');
    const text = lastUser ? lastUser.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
    const last = messages.at(-1);
    if (last?.role === 'tool') return { text: `Noted ${text}.` };
    modelSaw.push(text);
    if (text.includes('hold')) await hold.opened;
    if (text.includes('refund')) return { toolCalls: [{ toolName: 'refund', input: { text } }] };
    return { toolCalls: [{ toolName: 'note', input: { text } }] };
  });
  const agent: AgentConfig = {
    name: 'desk',
    model,
    busyPolicy: 'queue',
    tools: {
      note: tool({
        inputSchema: z.object({ text: z.string() }),
        execute: async ({ text }) => (noted.push(text), { ok: true }),
      }),
      refund: tool({
        inputSchema: z.object({ text: z.string() }),
        needsApproval: true,
        execute: async ({ text }) => (noted.push(`refund ${text}`), { ok: true }),
      }),
    },
    ...extra,
  };
  return { agent, noted, modelSaw };
}

async function serverWith(agent: AgentConfig, config: Partial<HeedConfig> = {}) {
  const server = await startServer({ agents: [agent], ...config });
  servers.push(server);
  return server;
}

async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let waited = 0; ; waited += 20) {
    const value = await read();
    if (done(value)) return value;
    if (waited > 10_000) throw new Error(`still waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function client(server: TestServer, token?: string) {
  const get = async (id: string) =>
    snapshotSchema.parse((await server.api('GET', `/api/conversations/${id}`, { token })).body);
  return {
    async start() {
      return (await server.api('POST', '/api/conversations', { token, body: { agent: 'desk' } })).body.id as string;
    },
    send: (id: string, content: string, stream?: boolean) =>
      server.api('POST', `/api/conversations/${id}/messages`, {
        token,
        body: { content, ...(stream ? { stream } : {}) },
      }),
    get,
    events: async (id: string) =>
      (await server.api('GET', `/api/conversations/${id}/events?limit=500`, { token })).body.events as Array<{
        type: string;
        seq: number;
        data: Record<string, unknown>;
      }>,
    running: (id: string) =>
      waitFor(
        'the turn to run',
        () => get(id),
        (read) => read.runtime.status === 'running',
      ),
    settled: (id: string) =>
      waitFor(
        'every turn to end',
        () => get(id),
        (read) => read.runtime.status !== 'running' && !read.queuedMessages,
      ),
  };
}

describe('busyPolicy: queue', () => {
  it('three messages sent while a turn runs get 202 with places 1, 2, 3 and run after it, in order, each exactly once', async () => {
    const hold = gate();
    const { agent, noted, modelSaw } = notingAgent(hold);
    const server = await serverWith(agent);
    const api = client(server, 'ada');
    const id = await api.start();
    const first = api.send(id, 'hold: first');
    await api.running(id);

    const answers = [];
    for (const text of ['second', 'third', 'fourth']) answers.push(await api.send(id, text));
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202]);
    const queued = answers.map((answer) => queuedResult.parse(answer.body));
    expect(queued.map((answer) => answer.queued.position)).toEqual([1, 2, 3]);
    expect(queued.every((answer) => answer.conversationId === id && answer.messages.length === 0)).toBe(true);

    // What a client reloading the page sees meanwhile: the turn runs, three messages wait, in order.
    const waiting = await api.get(id);
    expect(waiting.runtime.status).toBe('running');
    expect(waiting.queuedMessages!.map((message) => [message.id, message.text, message.by])).toEqual(
      queued.map((answer, index) => [answer.queued.messageId, ['second', 'third', 'fourth'][index], 'ada']),
    );
    expect(waiting.messages.filter((message) => message.role === 'user')).toHaveLength(1);

    hold.open();
    const firstDone = await first;
    expect(firstDone.status).toBe(200);
    expect(turnResult.parse(firstDone.body).status).toBe('completed');
    const after = await api.settled(id);
    expect(after.runtime.status).toBe('idle');

    // In order, each once: the model was called once per message, each note ran once.
    expect(modelSaw).toEqual(['hold: first', 'second', 'third', 'fourth']);
    expect(noted).toEqual(['hold: first', 'second', 'third', 'fourth']);
    const users = after.messages.filter((message) => message.role === 'user');
    expect(users.map((message) => message.parts)).toEqual(
      ['hold: first', 'second', 'third', 'fourth'].map((text) => [{ type: 'text', text }]),
    );
    expect(users.slice(1).map((message) => message.id)).toEqual(queued.map((answer) => answer.queued.messageId));
    expect(
      after.messages
        .filter((message) => message.role === 'assistant' && message.parts.some((part) => part.type === 'text'))
        .map((message) => message.parts.at(-1)),
    ).toEqual(['hold: first', 'second', 'third', 'fourth'].map((text) => ({ type: 'text', text: `Noted ${text}.` })));

    // The log: one message.queued per message (with its place), then for each its message.created and turn.started.
    const events = await api.events(id);
    const queuedEvents = events.filter((event) => event.type === 'message.queued');
    expect(queuedEvents.map((event) => [event.data.messageId, event.data.position, event.data.by])).toEqual(
      queued.map((answer) => [answer.queued.messageId, answer.queued.position, 'ada']),
    );
    const starts = events.filter((event) => event.type === 'turn.started').map((event) => event.data.trigger);
    expect(starts).toEqual(['message', 'queue', 'queue', 'queue']);
    expect(events.filter((event) => event.type === 'turn.completed')).toHaveLength(4);
    for (const answer of queued) {
      const created = events.find(
        (event) => event.type === 'message.created' && event.data.messageId === answer.queued.messageId,
      )!;
      expect(created.data.queuedAt).toEqual(expect.any(String));
      // Each queued message starts right after the turn before it completed, in the same write.
      const index = events.indexOf(created);
      expect(events[index - 1].type).toBe('turn.completed');
      expect(events[index + 1]).toMatchObject({ type: 'turn.started', data: { trigger: 'queue' } });
    }
  });

  it('is bounded: past limits.maxQueuedMessages a message is 409 queue_full and nothing is recorded, for an anonymous caller too', async () => {
    const hold = gate();
    const { agent, modelSaw } = notingAgent(hold);
    const server = await serverWith(agent, { limits: { maxQueuedMessages: 2 } });
    const api = client(server);
    const id = await api.start();
    const first = api.send(id, 'hold');
    await api.running(id);
    expect((await api.send(id, 'one')).status).toBe(202);
    expect((await api.send(id, 'two')).status).toBe(202);
    const before = (await api.events(id)).length;
    for (let attempt = 0; attempt < 5; attempt++) {
      const refused = await api.send(id, `more ${attempt}`);
      expect(refused.status).toBe(409);
      expect(errorBody.parse(refused.body).error).toMatchObject({
        code: 'queue_full',
        details: { queued: 2, maxQueuedMessages: 2 },
      });
      expect(refused.body.error.message).toContain('limits.maxQueuedMessages');
    }
    expect(await api.events(id)).toHaveLength(before);
    expect((await api.get(id)).queuedMessages).toHaveLength(2);
    hold.open();
    await first;
    await api.settled(id);
    expect(modelSaw).toEqual(['hold', 'one', 'two']);
  });

  it('the default stays reject: 409 conversation_busy, nothing queued', async () => {
    const hold = gate();
    const { agent, modelSaw } = notingAgent(hold, { busyPolicy: undefined });
    const server = await serverWith(agent);
    const api = client(server, 'ada');
    const id = await api.start();
    const first = api.send(id, 'hold');
    await api.running(id);
    const refused = await api.send(id, 'second');
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conversation_busy');
    expect((await server.api('GET', '/api/agents', { token: 'ada' })).body.agents[0].busyPolicy).toBeUndefined();
    hold.open();
    await first;
    await api.settled(id);
    expect(modelSaw).toEqual(['hold']);
    expect((await api.events(id)).some((event) => event.type === 'message.queued')).toBe(false);
  });

  it('the server-wide busyPolicy applies to agents without their own, and GET /api/agents says so', async () => {
    const hold = gate();
    const { agent, modelSaw } = notingAgent(hold, { busyPolicy: undefined });
    const server = await serverWith(agent, { busyPolicy: 'queue' });
    const api = client(server, 'ada');
    expect((await server.api('GET', '/api/agents/desk', { token: 'ada' })).body.busyPolicy).toBe('queue');
    const id = await api.start();
    const first = api.send(id, 'hold');
    await api.running(id);
    // Asked as a stream, a queued message is still the 202 JSON: there is nothing of its own to stream yet.
    const streamed = await api.send(id, 'second', true);
    expect(streamed.status).toBe(202);
    expect(streamed.headers.get('content-type')).toContain('application/json');
    expect(streamed.body).toMatchObject({ status: 'queued', queued: { position: 1 } });
    hold.open();
    await first;
    await api.settled(id);
    expect(modelSaw).toEqual(['hold', 'second']);
  });

  it('a pause under pendingActionPolicy reject drops the queued messages (message.dropped, action_pending): the person answers first', async () => {
    const hold = gate();
    const { agent, noted, modelSaw } = notingAgent(hold);
    const server = await serverWith(agent);
    const api = client(server, 'ada');
    const id = await api.start();
    const first = api.send(id, 'hold then refund');
    await api.running(id);
    const queued = queuedResult.parse((await api.send(id, 'and then this')).body);
    hold.open();
    expect((await first).body.status).toBe('requires_action');
    const paused = await api.get(id);
    expect(paused.runtime.status).toBe('requires_action');
    expect(paused.queuedMessages).toBeUndefined();
    expect(paused.pendingActions).toHaveLength(1);
    const dropped = (await api.events(id)).filter((event) => event.type === 'message.dropped');
    expect(dropped.map((event) => event.data)).toEqual([
      {
        messageId: queued.queued.messageId,
        error: { code: 'action_pending', message: expect.stringContaining('answer or cancel') },
      },
    ]);
    expect(modelSaw).toEqual(['hold then refund']);
    expect(noted).toEqual([]);
  });

  it('a pause under pendingActionPolicy cancel is closed by the queued message, which runs; the tool that asked never runs', async () => {
    const hold = gate();
    const { agent, noted, modelSaw } = notingAgent(hold);
    const server = await serverWith(agent, { pendingActionPolicy: 'cancel' });
    const api = client(server, 'ada');
    const id = await api.start();
    const first = api.send(id, 'hold then refund');
    await api.running(id);
    const queued = queuedResult.parse((await api.send(id, 'never mind, note this')).body);
    hold.open();
    const ended = turnResult.parse((await first).body);
    expect(ended.status).toBe('requires_action');
    expect(ended.warnings).toEqual([expect.objectContaining({ code: 'pause_closed_by_queued_message' })]);
    const after = await api.settled(id);
    expect(after.runtime.status).toBe('idle');
    expect(after.pendingActions).toBeUndefined();
    const [action] = (await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' })).body.actions;
    expect(action).toMatchObject({
      kind: 'approval',
      status: 'cancelled',
      resolution: { type: 'cancelled', reason: 'new_message' },
    });
    // An answer to it now finds it closed.
    const late = await server.api('POST', `/api/conversations/${id}/actions/${action.id}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(late.status).toBe(409);
    expect(modelSaw).toEqual(['hold then refund', 'never mind, note this']);
    expect(noted).toEqual(['never mind, note this']);
    const user = after.messages.filter((message) => message.role === 'user').at(-1)!;
    expect(user.id).toBe(queued.queued.messageId);
  });

  it('cancelling the running turn drops what was queued behind it (message.dropped, cancelled); none of it runs', async () => {
    const hold = gate();
    const { agent, modelSaw } = notingAgent(hold);
    const server = await serverWith(agent);
    const api = client(server, 'ada');
    const id = await api.start();
    const first = api.send(id, 'hold');
    await api.running(id);
    await api.send(id, 'two');
    await api.send(id, 'three');
    const cancelled = await server.api('POST', `/api/conversations/${id}/cancel`, { token: 'ada' });
    expect(cancelled.body).toEqual({ status: 'idle', cancelled: true });
    hold.open();
    await first;
    const after = await api.get(id);
    expect(after.runtime.status).toBe('idle');
    expect(after.queuedMessages).toBeUndefined();
    const dropped = (await api.events(id)).filter((event) => event.type === 'message.dropped');
    expect(dropped.map((event) => (event.data.error as { code: string }).code)).toEqual(['cancelled', 'cancelled']);
    // Nothing runs or is carried on in the server any more: a dropped message that ran anyway would have by now.
    const engine = engineOf(server.heed);
    await expect.poll(() => engine.running.size + engine.inFlight.size).toBe(0);
    expect(modelSaw).toEqual(['hold']);
  });

  it('a turn that fails still hands over: the message queued behind it runs', async () => {
    const hold = gate();
    const { agent, modelSaw, noted } = notingAgent(hold);
    // The same agent, but its model fails on "boom" (once the gate opens).
    const failing = scriptedModel(async ({ messages }) => {
      const lastUser = [...messages].reverse().find((message) => message.role === 'user');
      const text = lastUser ? lastUser.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
      if (text.includes('boom')) {
        await hold.opened;
        throw new Error('The model is down.');
      }
      if (messages.at(-1)?.role === 'tool') return { text: `Noted ${text}.` };
      modelSaw.push(text);
      return { toolCalls: [{ toolName: 'note', input: { text } }] };
    });
    const server = await serverWith({ ...agent, model: failing });
    const api = client(server, 'ada');
    const id = await api.start();
    const first = api.send(id, 'boom');
    await api.running(id);
    expect((await api.send(id, 'after the failure')).status).toBe(202);
    hold.open();
    expect((await first).body).toMatchObject({ status: 'failed', error: { message: 'The model is down.' } });
    const after = await api.settled(id);
    expect(after.runtime.status).toBe('idle');
    expect(modelSaw).toEqual(['after the failure']);
    expect(noted).toEqual(['after the failure']);
    const kinds = (await api.events(id))
      .filter((event) => event.type.startsWith('turn.'))
      .map((event) => `${event.type}${event.data.trigger ? `:${event.data.trigger}` : ''}`);
    expect(kinds).toEqual(['turn.started:message', 'turn.failed', 'turn.started:queue', 'turn.completed']);
  });

  it('someone else’s conversation cannot be queued into: 404, nothing recorded', async () => {
    const hold = gate();
    const { agent } = notingAgent(hold);
    const server = await serverWith(agent);
    const api = client(server, 'ada');
    const id = await api.start();
    const first = api.send(id, 'hold');
    await api.running(id);
    const asBob = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'bob',
      body: { content: 'mine now' },
    });
    expect(asBob.status).toBe(404);
    const anonymous = await server.api('POST', `/api/conversations/${id}/messages`, { body: { content: 'mine now' } });
    expect(anonymous.status).toBe(404);
    expect((await api.get(id)).queuedMessages).toBeUndefined();
    hold.open();
    await first;
  });

  it('the OpenAPI document lists the 202 answer and 409 queue_full on both message routes, and the snapshot’s queuedMessages', async () => {
    const { agent } = notingAgent(gate());
    const server = await serverWith(agent);
    const document = (await server.api('GET', '/api/openapi.json')).body;
    for (const path of ['/api/conversations/{id}/messages', '/api/conversations/{id}/messages/stream']) {
      const responses = document.paths[path].post.responses;
      expect(responses['202'].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/QueuedResult',
      });
      expect(responses['409'].description).toContain('`queue_full`');
      expect(responses['409'].description).toContain('`conversation_busy`');
    }
    const schemas = document.components.schemas;
    expect(schemas.QueuedResult.properties.status).toMatchObject({ const: 'queued' });
    expect(schemas.QueuedResult.required).toEqual(expect.arrayContaining(['status', 'conversationId', 'queued']));
    expect(JSON.stringify(schemas.ConversationSnapshot.properties.queuedMessages)).toContain(
      '#/components/schemas/QueuedMessage',
    );
    expect(schemas.Agent.properties.busyPolicy).toBeDefined();
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['MessageQueuedEvent', 'MessageDroppedEvent']));
  });
});
