import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import type { AgentConfig } from '../config.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { tool } from '../tool.js';

/**
 * Declining, over real HTTP on loopback, as a user of the reference products does it: a question declined
 * (with a note, or with the keys an approval or another product would send) is recorded as a decline and
 * never as its pre-picked defaults; every kind's answer refuses a key it does not know; a deny's comment
 * may be a JSON object, which the model then reads as the call's whole result (seed 004).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const colour = {
  id: 'colour',
  header: 'Colour',
  prompt: 'Which colour?',
  options: [
    { value: 'red', label: 'Red' },
    { value: 'blue', label: 'Blue' },
  ],
  defaults: ['red'],
};

/** "ask" → the ask tool; "stock" → a tool that asks with ctx.ask; "refund" → an approval; "url" → ctx.openUrl; "page" → a client tool. */
function declineAgent() {
  const seen: Array<{ tool: string; value: unknown }> = [];
  const model = scriptedModel(
    ({ messages }) => {
      const last = messages.at(-1);
      if (last?.role === 'tool') return { text: 'Done.' };
      const text =
        last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
      if (text.includes('ask')) return { toolCalls: [{ toolName: 'ask', input: { questions: [colour] } }] };
      if (text.includes('stock')) return { toolCalls: [{ toolName: 'check_stock', input: { item: 'mug' } }] };
      if (text.includes('refund'))
        return { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42, amount: 30 } }] };
      if (text.includes('url')) return { toolCalls: [{ toolName: 'connect', input: {} }] };
      if (text.includes('page')) return { toolCalls: [{ toolName: 'get_selection', input: {} }] };
      return { text: 'Hello.' };
    },
    { keepCalls: Infinity },
  );
  const agent: AgentConfig = {
    name: 'decliner',
    model,
    ask: true,
    tools: {
      check_stock: tool({
        inputSchema: z.object({ item: z.string() }),
        execute: async ({ item }, ctx) => {
          const outcome = await ctx.ask({ questions: [colour] });
          seen.push({ tool: 'check_stock', value: outcome });
          return { item, colours: outcome.skipped ? [] : outcome.answers.colour };
        },
      }),
      issue_refund: tool({
        inputSchema: z.object({ orderId: z.number().int(), amount: z.number().positive() }),
        needsApproval: true,
        execute: async (input) => {
          seen.push({ tool: 'issue_refund', value: input });
          return { refunded: input.amount };
        },
      }),
      connect: tool({
        inputSchema: z.object({}),
        execute: async (_input, ctx) => ({ outcome: await ctx.openUrl({ url: 'https://example.com/connect' }) }),
      }),
      get_selection: tool({
        inputSchema: z.object({}),
        outputSchema: z.object({ text: z.string() }),
        client: { kind: 'page' },
      }),
    },
  };
  /** The tool results the model was sent in its latest call, as their outputs. */
  const lastToolOutputs = () => {
    const call = model.calls.at(-1)!;
    return call.messages.flatMap((message) =>
      message.role === 'tool' ? message.content.map((part: Any) => part.output) : [],
    );
  };
  return { agent, model, seen, lastToolOutputs };
}

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start() {
  const kit = declineAgent();
  const server = await startServer({ agents: [kit.agent] });
  servers.push(server);
  const ask = async (content: string) => {
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'decliner' } })).body;
    const sent = await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content } });
    expect(sent.body.status).toBe('requires_action');
    return { id: id as string, action: sent.body.pendingActions[0] };
  };
  const answer = (id: string, actionId: string, resolution: unknown) =>
    server.api('POST', `/api/conversations/${id}/actions/${actionId}`, { token: 'ada', body: { resolution } });
  const actions = async (id: string) =>
    (await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' })).body.actions as Any[];
  const events = async (id: string) =>
    (await server.api('GET', `/api/conversations/${id}/events`, { token: 'ada' })).body.events as Any[];
  return { ...kit, server, ask, answer, actions, events };
}

describe('declining a question', () => {
  it('an answer carrying an approval’s keys, a note alone, or `cancelled` is refused by name, and nothing is consumed', async () => {
    const { ask, answer, actions, events, model } = await start();
    const { id, action } = await ask('ask me');
    const before = (await events(id)).length;

    for (const [resolution, key] of [
      [{ type: 'question', decision: 'deny', comment: 'not now' }, 'decision'],
      [{ type: 'question', comment: 'not now' }, 'comment'],
      [{ type: 'question', cancelled: true }, 'cancelled'],
      [{ type: 'question', answers: { colour: 'blue' }, decision: 'allow' }, 'decision'],
    ] as const) {
      const refused = await answer(id, action.id, resolution);
      expect(refused.status, JSON.stringify(resolution)).toBe(400);
      expect(refused.body.error.code).toBe('invalid_resolution');
      expect(refused.body.error.message).toContain(`"${key}"`);
      expect(refused.body.error.details.field).toBe(key);
    }
    // A note says why the person declined: alone it declines nothing, so it is refused and says what to send.
    const noteAlone = await answer(id, action.id, { type: 'question', note: 'not now' });
    expect(noteAlone.status).toBe(400);
    expect(noteAlone.body.error).toMatchObject({ code: 'invalid_resolution', details: { field: 'note' } });
    expect(noteAlone.body.error.message).toMatch(/skip: true.*dismiss: true/);

    // Still pending, nothing recorded, the model not called again.
    expect((await actions(id))[0]).toMatchObject({ id: action.id, status: 'pending' });
    expect((await events(id)).length).toBe(before);
    expect(model.calls).toHaveLength(1);
  });

  it('skip with a note is recorded as skipped with its note, and the model reads both, never "The user answered"', async () => {
    const { ask, answer, actions, events, lastToolOutputs } = await start();
    const { id, action } = await ask('ask me');
    const done = await answer(id, action.id, { type: 'question', skip: true, note: 'not now, I am in a hurry' });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');

    const [settled] = await actions(id);
    expect(settled).toMatchObject({
      status: 'resolved',
      resolution: { type: 'question', skip: true, note: 'not now, I am in a hurry' },
    });
    expect((await events(id)).find((event) => event.type === 'action.resolved').data).toMatchObject({
      status: 'skipped',
    });
    const [read] = lastToolOutputs();
    expect(read.type).toBe('text');
    expect(read.value).toMatch(/^The user skipped these questions/);
    expect(read.value).toContain('not now, I am in a hurry');
    expect(read.value).not.toContain('The user answered');
  });

  it('pending.decline(note) from the library is a skip with the note, as the record shows over HTTP', async () => {
    const { server, ask, actions, lastToolOutputs } = await start();
    const { id } = await ask('ask me');
    const [pending] = await server.heed.conversation(id).pendingActions({ caller: { userId: 'ada' } });
    const done = await pending.decline('not now', { caller: { userId: 'ada' } });
    expect(done.status).toBe('completed');

    const [settled] = await actions(id);
    expect(settled.status).toBe('resolved');
    expect(settled.resolution).toEqual({ type: 'question', skip: true, note: 'not now', answers: { colour: ['red'] } });
    const shown = await server.api('GET', `/api/conversations/${id}`, { token: 'ada' });
    const asked = shown.body.messages.find((message: Any) => message.metadata?.actions);
    expect(asked.metadata.actions[0].resolution).toMatchObject({ skip: true, note: 'not now' });
    const [read] = lastToolOutputs();
    expect(read.value).toMatch(/^The user skipped these questions/);
    expect(read.value).toContain('not now');
    expect(read.value).not.toContain('The user answered');
  });

  it('dismiss with a note ends the turn without the model; the next turn’s model reads the dismissal and the note', async () => {
    const { server, ask, answer, actions, model } = await start();
    const { id, action } = await ask('ask me');
    const done = await answer(id, action.id, { type: 'question', dismiss: true, note: 'wrong question' });
    expect(done.body.status).toBe('completed');
    expect(model.calls).toHaveLength(1);
    expect((await actions(id))[0].resolution).toEqual({ type: 'question', dismiss: true, note: 'wrong question' });

    await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content: 'hello again' } });
    const history = model.calls
      .at(-1)!
      .messages.flatMap((message) => (message.role === 'tool' ? message.content : [])) as Any[];
    expect(history[0].output).toEqual({
      type: 'error-text',
      value: 'Dismissed by the user. Their note: wrong question',
    });
  });

  it('a tool’s ctx.ask declined with a note: the tool hears it was skipped (and the note), and the model reads the note after the tool’s result', async () => {
    const { ask, answer, seen, lastToolOutputs } = await start();
    const { id, action } = await ask('stock please');
    const done = await answer(id, action.id, { type: 'question', skip: true, note: 'any colour is fine' });
    expect(done.body.status).toBe('completed');
    expect(seen).toEqual([
      {
        tool: 'check_stock',
        value: { answers: {}, skipped: true, defaulted: [], note: 'any colour is fine' },
      },
    ]);
    const [read] = lastToolOutputs();
    expect(read.type).toBe('text');
    expect(read.value).toContain('{"item":"mug","colours":[]}');
    expect(read.value).toContain('any colour is fine');
  });
});

describe('every kind refuses a key its answer does not take', () => {
  it('approval, client tool and URL answers with an unknown key are 400 `invalid_resolution` naming it, still pending', async () => {
    const { ask, answer, actions, seen } = await start();
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['refund', { type: 'approval', decision: 'allow', rememberForSession: true }, 'rememberForSession'],
      ['page', { type: 'client_tool', output: { text: 'x' }, ok: true }, 'ok'],
      ['url', { type: 'url', decision: 'accept', comment: 'done' }, 'comment'],
    ];
    for (const [content, resolution, key] of cases) {
      const { id, action } = await ask(content);
      const refused = await answer(id, action.id, resolution);
      expect(refused.status, content).toBe(400);
      expect(refused.body.error.code).toBe('invalid_resolution');
      expect(refused.body.error.message).toContain(`"${key}"`);
      expect(refused.body.error.details.field).toBe(key);
      expect((await actions(id))[0].status).toBe('pending');
    }
    expect(seen).toEqual([]);
  });
});

describe('a structured deny comment (seed 004)', () => {
  it('an object comment on a deny is recorded as given and is the whole result the model reads', async () => {
    const { server, ask, answer, actions, events, seen, lastToolOutputs } = await start();
    const { id, action } = await ask('refund');
    const note = { error: 'Denied', reason: 'Wrong account', retry: false };
    const done = await answer(id, action.id, { type: 'approval', decision: 'deny', comment: note });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    expect(seen).toEqual([]);
    expect((await actions(id))[0].resolution).toEqual({ type: 'approval', decision: 'deny', comment: note });
    expect(lastToolOutputs()).toEqual([{ type: 'json', value: note }]);
    // The call did not run: the log says so, and a useChat client shows it denied.
    expect((await events(id)).find((event) => event.type === 'tool.result').data).toMatchObject({
      isError: true,
      output: { type: 'json', value: note },
    });
    const chat = await server.api('GET', `/api/ai-sdk/chat/decliner/${id}/messages`, { token: 'ada' });
    expect(chat.body.messages.at(-1).parts.find((part: Any) => part.type === 'tool-issue_refund')).toMatchObject({
      state: 'output-denied',
      approval: { approved: false },
    });
  });

  it('a string comment still reads as the refusal with the comment; an object comment on an allow, or one too large, is refused', async () => {
    const { ask, answer, actions, lastToolOutputs } = await start();
    const { id, action } = await ask('refund');
    const onAllow = await answer(id, action.id, { type: 'approval', decision: 'allow', comment: { why: 'ok' } });
    expect(onAllow.status).toBe(400);
    expect(onAllow.body.error).toMatchObject({ code: 'invalid_resolution', details: { field: 'comment' } });
    const huge = await answer(id, action.id, {
      type: 'approval',
      decision: 'deny',
      comment: { text: 'x'.repeat(5000) },
    });
    expect(huge.status).toBe(400);
    expect(huge.body.error).toMatchObject({ code: 'invalid_resolution', details: { field: 'comment' } });
    expect((await actions(id))[0].status).toBe('pending');

    const done = await answer(id, action.id, {
      type: 'approval',
      decision: 'deny',
      comment: 'The order shipped already',
    });
    expect(done.body.status).toBe('completed');
    expect(lastToolOutputs()).toEqual([
      { type: 'error-text', value: 'The user denied this call. Their comment: The order shipped already' },
    ]);
  });

  it('pending.decline({ … }) from the library records the object as the comment', async () => {
    const { server, ask, actions, lastToolOutputs } = await start();
    const { id } = await ask('refund');
    const [pending] = await server.heed.conversation(id).pendingActions();
    await pending.decline({ error: 'Denied', reason: 'Wrong account' });
    expect((await actions(id))[0].resolution).toEqual({
      type: 'approval',
      decision: 'deny',
      comment: { error: 'Denied', reason: 'Wrong account' },
    });
    expect(lastToolOutputs()).toEqual([{ type: 'json', value: { error: 'Denied', reason: 'Wrong account' } }]);
  });
});
