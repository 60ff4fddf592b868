import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { createHeed } from '../heed.js';
import { memoryStore } from '../store/memory/memory-store.js';
import { scriptedModel, type ScriptedPrompt } from '../testing/scripted-model.js';
import { tool } from '../tool.js';
import type { AgentConfig } from '../config.js';

/** Agents that call agents (docs/concepts.md), over real HTTP on loopback: a lead agent and an ops agent whose restart needs approval. */

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** The text of the last tool result the model was sent, and whether it was an error. */
function lastToolResult(messages: ScriptedPrompt): { text: string; isError: boolean } | undefined {
  const last = messages.at(-1);
  if (last?.role !== 'tool') return undefined;
  const part = last.content[0] as { output: { type: string; value: unknown } };
  return { text: String(part.output.value), isError: part.output.type === 'error-text' };
}

function agents(options: { opsFails?: boolean; leadTask?: string } = {}) {
  const restarts: unknown[] = [];
  const lead: AgentConfig = {
    name: 'lead',
    agents: ['ops'],
    model: scriptedModel(({ messages }) => {
      const result = lastToolResult(messages);
      if (result) return { text: `${result.isError ? 'Problem' : 'Done'}: ${result.text}` };
      return {
        toolCalls: [{ toolName: 'agent_ops', input: { task: options.leadTask ?? 'Restart the web service.' } }],
      };
    }),
  };
  const ops: AgentConfig = {
    name: 'ops',
    description: 'Operates the servers: restarts services.',
    tools: {
      restart: tool({
        description: 'Restart a service.',
        inputSchema: z.object({ service: z.string() }),
        needsApproval: true,
        execute: async ({ service }) => {
          restarts.push(service);
          return { restarted: service };
        },
      }),
    },
    model: scriptedModel(({ messages }) => {
      if (options.opsFails) throw new Error('the ops model is down');
      const result = lastToolResult(messages);
      if (result) return { text: result.isError ? 'The restart was refused.' : 'Restarted web.' };
      return { toolCalls: [{ toolName: 'restart', input: { service: 'web' } }] };
    }),
  };
  return { list: [lead, ops], restarts };
}

async function start(options: Parameters<typeof agents>[0] = {}) {
  const made = agents(options);
  const server = await startServer({ agents: made.list });
  servers.push(server);
  const ask = async () => {
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'lead' } })).body;
    const sent = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'Please restart web.' },
    });
    return { id: id as string, sent };
  };
  const get = async (id: string) => (await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body;
  const answer = (id: string, actionId: string, decision: 'allow' | 'deny') =>
    server.api('POST', `/api/conversations/${id}/actions/${actionId}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision } },
    });
  const events = async (id: string) =>
    (await server.api('GET', `/api/conversations/${id}/events`, { token: 'ada' })).body.events as Array<{
      type: string;
      data: any;
    }>;
  const lastText = async (id: string) => {
    const messages = (await get(id)).messages as Array<{ role: string; parts: Array<{ type: string; text?: string }> }>;
    return messages
      .filter((message) => message.role === 'assistant')
      .at(-1)
      ?.parts.find((part) => part.type === 'text')?.text;
  };
  return { server, restarts: made.restarts, ask, get, answer, events, lastText };
}

describe('agents that call agents', () => {
  it("offers agent_<name>; a child's approval pauses the parent, is listed there with via, and an answer through the parent continues both once", async () => {
    const { server, ask, get, answer, events, lastText, restarts } = await start();
    const { id, sent } = await ask();
    expect(sent.status).toBe(200);
    expect(sent.body.status).toBe('requires_action');
    const [pending] = sent.body.pendingActions;
    expect(pending).toMatchObject({ kind: 'approval', toolName: 'restart', args: { service: 'web' } });
    const childId = pending.conversationId as string;
    expect(childId).not.toBe(id);
    expect(pending.via).toEqual([{ conversationId: childId, agent: 'ops' }]);

    const parent = await get(id);
    expect(parent.conversation.status).toBe('requires_action');
    expect(parent.runtime.pendingActionIds).toEqual([pending.id]);
    expect(parent.conversation.children).toEqual([
      { conversationId: childId, agent: 'ops', toolCallId: expect.any(String), status: 'requires_action' },
    ]);
    const child = await get(childId);
    expect(child.conversation).toMatchObject({ agent: 'ops', ownerId: 'ada', status: 'requires_action' });
    expect(child.conversation.parent).toEqual({
      conversationId: id,
      toolCallId: parent.conversation.children[0].toolCallId,
    });
    expect(child.messages[0].parts[0].text).toBe('Restart the web service.');

    // The inbox lists it as the parent's: the lead's conversation, with the child it waits in.
    const inbox = (await server.api('GET', '/api/inbox', { token: 'ada' })).body;
    expect(inbox.actions).toHaveLength(1);
    expect(inbox.actions[0]).toMatchObject({
      id: pending.id,
      conversation: { agent: 'lead', ownerId: 'ada' },
      via: [{ conversationId: childId, agent: 'ops' }],
    });

    const answered = await answer(id, pending.id, 'allow');
    expect(answered.status).toBe(200);
    await expect.poll(async () => (await get(id)).conversation.status).toBe('idle');
    expect(await lastText(id)).toBe('Done: Restarted web.');
    expect(restarts).toEqual(['web']);
    expect((await get(childId)).conversation.status).toBe('idle');

    const types = (await events(id)).map((event) => event.type);
    expect(types.filter((type) => type.startsWith('child.'))).toEqual([
      'child.started',
      'child.paused',
      'child.completed',
    ]);
    expect(types.filter((type) => type === 'turn.started')).toHaveLength(2);
    const completed = (await events(id)).find((event) => event.type === 'child.completed');
    expect(completed?.data).toMatchObject({ conversationId: childId, agent: 'ops', status: 'completed' });
  });

  it("GET /api/conversations/:id/actions on a parent lists its child's pending action with via, until it is answered", async () => {
    const { server, ask, get, answer } = await start();
    const { id, sent } = await ask();
    const [pending] = sent.body.pendingActions;
    const list = async (conversationId: string) =>
      (await server.api('GET', `/api/conversations/${conversationId}/actions`, { token: 'ada' })).body.actions;
    // The same view as the conversation read's `pendingActions`: one way of listing them.
    expect(await list(id)).toEqual([pending]);
    expect(pending).toMatchObject({
      kind: 'approval',
      status: 'pending',
      via: [{ conversationId: pending.conversationId, agent: 'ops' }],
    });
    expect((await list(pending.conversationId)).map((action: { id: string }) => action.id)).toEqual([pending.id]);

    expect((await answer(id, pending.id, 'allow')).status).toBe(200);
    await expect.poll(async () => (await get(id)).conversation.status).toBe('idle');
    // Answered, it is the child's record only: the parent's own list has no action of its own.
    expect(await list(id)).toEqual([]);
    expect(await list(pending.conversationId)).toEqual([
      expect.objectContaining({
        id: pending.id,
        status: 'resolved',
        resolution: { type: 'approval', decision: 'allow' },
      }),
    ]);
  });

  it('a deny in the child: the child replies, and its reply is the result the parent reads', async () => {
    const { ask, get, answer, lastText, restarts } = await start();
    const { id, sent } = await ask();
    const [pending] = sent.body.pendingActions;
    expect((await answer(pending.conversationId, pending.id, 'deny')).status).toBe(200);
    await expect.poll(async () => (await get(id)).conversation.status).toBe('idle');
    expect(await lastText(id)).toBe('Done: The restart was refused.');
    expect(restarts).toEqual([]);
  });

  it("a child's request that lapses under onTimeout 'cancel' continues the parent in the same sweep", async () => {
    const made = agents();
    const [lead, ops] = made.list;
    let later = 0;
    const server = await startServer({
      agents: [lead, { ...ops, hitl: { timeoutMinutes: 1, onTimeout: 'cancel' } }],
      // The parent's own recheck (two leases) is far off: only the child's lapse can move it on.
      leaseMs: 600_000,
      now: () => new Date(Date.now() + later),
    });
    servers.push(server);
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'lead' } })).body;
    const sent = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'go' },
    });
    const [pending] = sent.body.pendingActions;
    later = 2 * 60_000;
    expect((await server.heed.expireDue()).lapsed).toBe(1);
    await expect
      .poll(
        async () => (await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body.conversation.status,
      )
      .toBe('idle');
    const child = (await server.api('GET', `/api/conversations/${pending.conversationId}/actions`, { token: 'ada' }))
      .body.actions;
    expect(child).toEqual([expect.objectContaining({ id: pending.id, resolvedBy: expect.any(String) })]);
    const types = (
      (await server.api('GET', `/api/conversations/${id}/events`, { token: 'ada' })).body.events as Array<{
        type: string;
      }>
    ).map((event) => event.type);
    expect(types.filter((type) => type === 'child.completed')).toHaveLength(1);
    expect(types.filter((type) => type === 'turn.completed')).toHaveLength(1);
    // Another sweep finds nothing left to do for the parent.
    await server.heed.expireDue();
    expect(made.restarts).toEqual([]);
  });

  it.each([{ onTimeout: 'deny' as const }, { onTimeout: 'cancel' as const }])(
    "a step that calls a child and asks its own approval: the parent's own request still lapses while the child waits (onTimeout $onTimeout)",
    async ({ onTimeout }) => {
      const made = agents();
      const [, ops] = made.list;
      const announced: string[] = [];
      let read: Array<{ type: string; value: unknown }> = [];
      const lead: AgentConfig = {
        name: 'lead',
        agents: ['ops'],
        hitl: { timeoutMinutes: 1, onTimeout },
        tools: {
          announce: tool({
            description: 'Tell the users.',
            inputSchema: z.object({ note: z.string() }),
            needsApproval: true,
            execute: async ({ note }) => {
              announced.push(note);
              return 'announced';
            },
          }),
        },
        model: scriptedModel(({ messages }) => {
          const outputs = messages
            .filter((message) => message.role === 'tool')
            .flatMap((message) =>
              message.content.map((part) => (part as { output: { type: string; value: unknown } }).output),
            );
          if (outputs.length === 0)
            return {
              toolCalls: [
                { toolName: 'agent_ops', input: { task: 'Restart the web service.' } },
                { toolName: 'announce', input: { note: 'Restarting web.' } },
              ],
            };
          read = outputs;
          return { text: 'Done.' };
        }),
      };
      let later = 0;
      const server = await startServer({ agents: [lead, ops], now: () => new Date(Date.now() + later) });
      servers.push(server);
      const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'lead' } })).body;
      const sent = await server.api('POST', `/api/conversations/${id}/messages`, {
        token: 'ada',
        body: { content: 'go' },
      });
      expect(sent.body.status).toBe('requires_action');
      const own = sent.body.pendingActions.find((action: { toolName: string }) => action.toolName === 'announce');
      const child = sent.body.pendingActions.find((action: { toolName: string }) => action.toolName === 'restart');
      expect(own.conversationId).toBe(id);
      expect(child.via).toEqual([{ conversationId: child.conversationId, agent: 'ops' }]);

      later = 2 * 60_000;
      expect((await server.heed.expireDue()).lapsed).toBe(1);
      const actions = async () =>
        (await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' })).body.actions as Array<{
          id: string;
          status: string;
        }>;
      await expect.poll(async () => (await actions()).find((action) => action.id === own.id)?.status).toBe('expired');
      if (onTimeout === 'cancel') {
        // The lapse ends the lead's turn, and a stop stops what it called: the child's pause is cancelled too.
        await expect
          .poll(async () => (await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body.runtime)
          .toEqual({ status: 'idle', pendingActionIds: [] });
        await expect
          .poll(
            async () =>
              (await server.api('GET', `/api/conversations/${child.conversationId}`, { token: 'ada' })).body.runtime,
          )
          .toEqual({ status: 'idle', pendingActionIds: [] });
        const childActions = (
          await server.api('GET', `/api/conversations/${child.conversationId}/actions`, { token: 'ada' })
        ).body.actions;
        expect(childActions).toEqual([expect.objectContaining({ id: child.id, status: 'cancelled' })]);
        expect(made.restarts).toEqual([]);
        return;
      }
      // Still waiting on the child, whose request did not lapse: listed, and answerable through the parent.
      await expect
        .poll(async () => (await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body.runtime)
        .toEqual({ status: 'requires_action', pendingActionIds: [child.id] });
      const answered = await server.api('POST', `/api/conversations/${id}/actions/${child.id}`, {
        token: 'ada',
        body: { resolution: { type: 'approval', decision: 'allow' } },
      });
      expect(answered.status).toBe(200);
      await expect
        .poll(
          async () => (await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body.conversation.status,
        )
        .toBe('idle');
      expect(announced).toEqual([]);
      expect(made.restarts).toEqual(['web']);
      expect(read).toHaveLength(2);
      expect(read).toContainEqual({ type: 'text', value: 'Restarted web.' });
      expect(read.find((output) => output.type !== 'text')?.value).toContain('Nobody answered in time');
    },
  );

  it('answering through the parent and through the child at once: one winner, one continuation', async () => {
    const { ask, get, answer, events, restarts } = await start();
    const { id, sent } = await ask();
    const [pending] = sent.body.pendingActions;
    const both = await Promise.all([
      answer(id, pending.id, 'allow'),
      answer(pending.conversationId, pending.id, 'allow'),
    ]);
    expect(both.map((reply) => reply.status).sort()).toEqual([200, 409]);
    expect(both.find((reply) => reply.status === 409)?.body.error.code).toBe('action_not_pending');
    await expect.poll(async () => (await get(id)).conversation.status).toBe('idle');
    expect(restarts).toEqual(['web']);
    const types = (await events(id)).map((event) => event.type);
    expect(types.filter((type) => type === 'child.completed')).toHaveLength(1);
    expect(types.filter((type) => type === 'turn.completed')).toHaveLength(1);
  });

  it("a failed child is a tool error the parent's model reads", async () => {
    const { ask, lastText, get } = await start({ opsFails: true });
    const { id, sent } = await ask();
    expect(sent.body.status).toBe('completed');
    expect(await lastText(id)).toBe('Problem: The agent "ops" failed: the ops model is down');
    const child = (await get(id)).conversation.children[0];
    expect(child).toMatchObject({ agent: 'ops', status: 'idle' });
  });

  it("a new message to a parent waiting on its child is refused; cancelling the parent cancels the child's pause", async () => {
    const { server, ask, get, restarts } = await start();
    const { id, sent } = await ask();
    const [pending] = sent.body.pendingActions;
    const refused = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'hello?' },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('action_pending');

    const cancelled = await server.api('POST', `/api/conversations/${id}/cancel`, { token: 'ada' });
    expect(cancelled.body).toEqual({ status: 'idle', cancelled: true });
    const child = await get(pending.conversationId);
    expect(child.conversation.status).toBe('idle');
    expect(child.pendingActions).toBeUndefined();
    const actions = (await server.api('GET', `/api/conversations/${pending.conversationId}/actions`, { token: 'ada' }))
      .body;
    expect(JSON.stringify(actions)).toContain('"status":"cancelled"');
    expect((await get(id)).conversation.status).toBe('idle');
    expect(restarts).toEqual([]);
  });

  it('limits.agentDepth: a call that would go deeper is a tool error the model reads', async () => {
    const made = agents();
    const server = await startServer({ agents: made.list, limits: { agentDepth: 0 } });
    servers.push(server);
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'lead' } })).body;
    const sent = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'go' },
    });
    expect(sent.body.status).toBe('completed');
    const text = sent.body.messages.at(-1).parts[0].text as string;
    expect(text).toContain('Problem: agent_ops was not started');
    expect(text).toContain('limits.agentDepth (0)');
  });

  it('a config in which an agent can reach itself is refused at start, the cycle named', () => {
    const model = scriptedModel(() => ({ text: 'hi' }));
    expect(() =>
      createHeed({
        store: memoryStore(),
        agents: [
          { name: 'lead', model, agents: ['ops'] },
          { name: 'ops', model, agents: ['db'] },
          { name: 'db', model, agents: ['lead'] },
        ],
      }),
    ).toThrow('lead → ops → db → lead');
    expect(() => createHeed({ store: memoryStore(), agents: [{ name: 'lead', model, agents: ['nobody'] }] })).toThrow(
      '"nobody" that is not configured',
    );
  });
});
