import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseSse, startServer, type TestServer } from '../../test/http-fixtures.js';
import type { AgentConfig, HeedConfig } from '../config.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { tool } from '../tool.js';

/**
 * Client tools as seed 002 has them, over real HTTP on loopback: approval still applies first (a client
 * tool with `needsApproval` asks a person, and a deny never reaches the page); a client tool that lapses is
 * always answered with "The host page did not answer." and the agent carries on, whatever `onTimeout`
 * says; `expireDue({ conversationId })` lapses one conversation; `action.resolved` of a client tool carries
 * `ok` and `durationMs`.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** A clock the test moves by hand. */
function manualClock(start = '2026-03-01T09:00:00.000Z') {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    advanceSeconds(seconds: number) {
      now += seconds * 1000;
    },
  };
}

/** "export" → a client tool that needs approval; "rows" → a client tool without one. */
function pageAgent(extra: Partial<AgentConfig> = {}) {
  const model = scriptedModel(
    ({ messages }) => {
      const last = messages.at(-1);
      if (last?.role === 'tool') return { text: 'Done.' };
      const text =
        last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
      if (text.includes('export'))
        return { toolCalls: [{ toolName: 'download_rows', input: { format: 'csv', max: 50 } }] };
      if (text.includes('rows')) return { toolCalls: [{ toolName: 'get_selected_rows', input: { max: 2 } }] };
      return { text: 'Hello.' };
    },
    { keepCalls: Infinity },
  );
  const agent: AgentConfig = {
    name: 'grid',
    model,
    tools: {
      download_rows: tool({
        description: 'Download rows from the page.',
        inputSchema: z.object({ format: z.enum(['csv', 'json']), max: z.number().int().max(100) }),
        outputSchema: z.object({ rows: z.number() }),
        needsApproval: true,
        approvalTitle: 'Download rows?',
        client: { kind: 'grid', timeoutSeconds: 60 },
      }),
      get_selected_rows: tool({
        inputSchema: z.object({ max: z.number().int() }),
        outputSchema: z.object({ rows: z.array(z.string()) }),
        client: { kind: 'grid', timeoutSeconds: 60 },
      }),
    },
    ...extra,
  };
  const lastToolOutputs = () =>
    model.calls
      .at(-1)!
      .messages.flatMap((message) => (message.role === 'tool' ? message.content.map((part: Any) => part.output) : []));
  return { agent, model, lastToolOutputs };
}

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(config: Partial<HeedConfig> = {}, agentExtra: Partial<AgentConfig> = {}) {
  const kit = pageAgent(agentExtra);
  const server = await startServer({ agents: [kit.agent], ...config });
  servers.push(server);
  const send = async (content: string) => {
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'grid' } })).body;
    const sent = await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content } });
    return { id: id as string, sent };
  };
  const answer = (id: string, actionId: string, resolution: unknown) =>
    server.api('POST', `/api/conversations/${id}/actions/${actionId}`, { token: 'ada', body: { resolution } });
  const actions = async (id: string) =>
    (await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' })).body.actions as Any[];
  const events = async (id: string) =>
    (await server.api('GET', `/api/conversations/${id}/events`, { token: 'ada' })).body.events as Any[];
  return { ...kit, server, send, answer, actions, events };
}

describe('a client tool with needsApproval', () => {
  it('asks a person first; once allowed (with edited arguments) the page is asked with them, and its output reaches the model', async () => {
    const { send, answer, actions, events, lastToolOutputs } = await start();
    const { id, sent } = await send('export my rows');
    expect(sent.body.status).toBe('requires_action');
    expect(sent.body.pendingActions).toHaveLength(1);
    const [approval] = sent.body.pendingActions;
    expect(approval).toMatchObject({
      kind: 'approval',
      toolName: 'download_rows',
      title: 'Download rows?',
      args: { format: 'csv', max: 50 },
    });
    // The page has nothing to run yet.
    expect((await actions(id)).filter((action) => action.kind === 'client_tool')).toEqual([]);

    const allowed = await answer(id, approval.id, {
      type: 'approval',
      decision: 'allow',
      approvedArgs: { format: 'csv', max: 10 },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.body.status).toBe('requires_action');
    const [page] = allowed.body.pendingActions;
    expect(page).toMatchObject({
      kind: 'client_tool',
      toolName: 'download_rows',
      toolCallId: approval.toolCallId,
      clientKind: 'grid',
      args: { format: 'csv', max: 10 },
    });

    const done = await answer(id, page.id, { type: 'client_tool', output: { rows: 10 } });
    expect(done.body.status).toBe('completed');
    expect(lastToolOutputs()).toEqual([{ type: 'json', value: { rows: 10 } }]);
    const required = (await events(id))
      .filter((event) => event.type === 'action.required')
      .map((event) => event.data.kind);
    expect(required).toEqual(['approval', 'client_tool']);
  });

  it('a deny never reaches the page: no client tool request is raised, and the model reads the refusal', async () => {
    const { send, answer, actions, events, server, lastToolOutputs } = await start();
    const { id, sent } = await send('export my rows');
    const [approval] = sent.body.pendingActions;
    const denied = await answer(id, approval.id, {
      type: 'approval',
      decision: 'deny',
      comment: 'not from this screen',
    });
    expect(denied.body.status).toBe('completed');
    expect((await actions(id)).map((action) => action.kind)).toEqual(['approval']);
    expect((await events(id)).filter((event) => event.type === 'action.required')).toHaveLength(1);
    expect((await server.api('GET', '/api/inbox', { token: 'ada' })).body.actions).toEqual([]);
    expect(lastToolOutputs()).toEqual([
      { type: 'error-text', value: 'The user denied this call. Their comment: not from this screen' },
    ]);
  });
});

describe('a client tool with needsApproval, through the AI SDK chat endpoint (useChat)', () => {
  it('shows the approval first; once allowed with an edit, the tool part asks the page with the approved arguments, and its output completes the turn', async () => {
    const { server, answer, actions, lastToolOutputs } = await start();
    const id = `chat-${Date.now().toString(36)}`;
    const post = (messages: unknown[]) =>
      fetch(`${server.url}/api/ai-sdk/chat/grid`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer ada' },
        body: JSON.stringify({ id, messages, trigger: 'submit-message' }),
      });
    const userMessage = { id: 'u-1', role: 'user', parts: [{ type: 'text', text: 'export my rows' }] };
    const first = await (await post([userMessage])).text();
    const chunks = parseSse(first).flatMap((event) => (event.data === '[DONE]' ? [] : [JSON.parse(event.data)]));
    expect(chunks.map((chunk) => chunk.type)).toContain('tool-approval-request');

    const [approval] = await actions(id);
    expect(approval.kind).toBe('approval');
    await answer(id, approval.id, { type: 'approval', decision: 'allow', approvedArgs: { format: 'json', max: 10 } });
    const reloaded = await server.api('GET', `/api/ai-sdk/chat/grid/${id}/messages`, { token: 'ada' });
    const assistant = reloaded.body.messages.at(-1);
    const part = assistant.parts.find((entry: Any) => entry.type === 'tool-download_rows');
    expect(part).toMatchObject({
      state: 'input-available',
      input: { format: 'json', max: 10 },
      toolMetadata: { heed: { kind: 'client_tool' } },
    });

    const answered = {
      ...assistant,
      parts: assistant.parts.map((entry: Any) =>
        entry === part ? { ...entry, state: 'output-available', output: { rows: 10 } } : entry,
      ),
    };
    const done = await post([userMessage, answered]);
    expect(done.status).toBe(200);
    await done.text();
    expect(lastToolOutputs()).toEqual([{ type: 'json', value: { rows: 10 } }]);
    expect((await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body.conversation.status).toBe(
      'idle',
    );
  });
});

describe('a lapsed client tool', () => {
  for (const onTimeout of ['cancel', 'deny'] as const) {
    it(`under onTimeout: '${onTimeout}' is answered with "The host page did not answer." and the agent carries on`, async () => {
      const clock = manualClock();
      const { send, actions, events, server, lastToolOutputs } = await start({ now: clock.now, hitl: { onTimeout } });
      const { id, sent } = await send('rows please');
      const [page] = sent.body.pendingActions;
      expect(page.expiresAt).toBe('2026-03-01T09:01:30.000Z');

      clock.advanceSeconds(91);
      const report = await server.heed.expireDue();
      expect(report.lapsed).toBe(1);
      expect(report.turns.map((turn) => turn.status)).toEqual(['completed']);
      expect(lastToolOutputs()).toEqual([{ type: 'error-text', value: 'The host page did not answer.' }]);
      expect((await actions(id))[0]).toMatchObject({
        status: 'expired',
        channel: 'timeout',
        resolution: { type: 'client_tool', error: 'The host page did not answer.' },
      });
      const types = (await events(id)).map((event) => event.type);
      expect(types).not.toContain('turn.cancelled');
      expect(types.at(-1)).toBe('turn.completed');
      const shown = await server.api('GET', `/api/conversations/${id}`, { token: 'ada' });
      expect(shown.body.conversation.status).toBe('idle');
      expect(shown.body.messages.at(-1)).toMatchObject({ role: 'assistant', parts: [{ type: 'text', text: 'Done.' }] });
    });
  }

  it('an approval of the same agent under cancel still cancels the turn', async () => {
    const clock = manualClock();
    const { send, events, server } = await start({ now: clock.now, hitl: { onTimeout: 'cancel', timeoutMinutes: 1 } });
    const { id } = await send('export my rows');
    clock.advanceSeconds(61);
    expect((await server.heed.expireDue()).lapsed).toBe(1);
    expect((await events(id)).at(-1)).toMatchObject({ type: 'turn.cancelled', data: { reason: 'action_expired' } });
  });
});

describe('expireDue({ conversationId })', () => {
  it('lapses the due requests of that conversation only', async () => {
    const clock = manualClock();
    const { send, actions, server } = await start({ now: clock.now });
    const first = await send('rows please');
    const second = await send('rows please');
    clock.advanceSeconds(91);
    const report = await server.heed.expireDue({ conversationId: first.id });
    expect(report.lapsed).toBe(1);
    expect((await actions(first.id))[0].status).toBe('expired');
    expect((await actions(second.id))[0].status).toBe('pending');
    expect((await server.heed.expireDue()).lapsed).toBe(1);
    expect((await actions(second.id))[0].status).toBe('expired');
  });

  it('for a conversation with nothing due, or one that does not exist, lapses nothing', async () => {
    const clock = manualClock();
    const { send, actions, server } = await start({ now: clock.now });
    const { id } = await send('rows please');
    expect((await server.heed.expireDue({ conversationId: id })).lapsed).toBe(0);
    expect((await server.heed.expireDue({ conversationId: 'c_nope' })).lapsed).toBe(0);
    expect((await actions(id))[0].status).toBe('pending');
  });
});

describe('action.resolved of a client tool', () => {
  it('carries ok and durationMs: true for an output, false for an error and for a lapse', async () => {
    const clock = manualClock();
    const { send, answer, events, server } = await start({ now: clock.now });
    const resolvedOf = async (id: string) => (await events(id)).find((event) => event.type === 'action.resolved').data;

    const answered = await send('rows please');
    clock.advanceSeconds(4);
    await answer(answered.id, answered.sent.body.pendingActions[0].id, {
      type: 'client_tool',
      output: { rows: ['a'] },
    });
    expect(await resolvedOf(answered.id)).toMatchObject({
      kind: 'client_tool',
      status: 'answered',
      ok: true,
      durationMs: 4000,
      outputBytes: 14,
    });

    const failed = await send('rows please');
    clock.advanceSeconds(2.5);
    await answer(failed.id, failed.sent.body.pendingActions[0].id, {
      type: 'client_tool',
      error: 'No rows are selected.',
    });
    expect(await resolvedOf(failed.id)).toMatchObject({
      status: 'failed',
      ok: false,
      durationMs: 2500,
      error: 'No rows are selected.',
    });

    const lapsed = await send('rows please');
    clock.advanceSeconds(91);
    await server.heed.expireDue();
    expect(await resolvedOf(lapsed.id)).toMatchObject({
      status: 'failed',
      ok: false,
      durationMs: 91_000,
      expired: true,
    });
  });
});
