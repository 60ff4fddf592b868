import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import type { AgentConfig, HeedConfig } from '../config.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { tool } from '../tool.js';

/** `group:<name>` entries beside user ids (docs/approvals.md, Groups), over real HTTP. */

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** ada asks; cat and dan are in ops (cat in finance too); eve is in no group; `mallory` picked the user id `group:ops`. */
const people = {
  ada: { userId: 'ada' },
  cat: { userId: 'cat', groups: ['ops', 'finance'] },
  dan: { userId: 'dan', groups: ['ops'] },
  eve: { userId: 'eve' },
  erin: { userId: 'erin', groups: ['oncall'] },
  mallory: { userId: 'group:ops' },
};

/** `pay`: 2 allows from ops or finance. `escalate`: bob alone, then the oncall group after 30 minutes. */
function groupAgent(): AgentConfig {
  const payment = z.object({ amount: z.number() });
  return {
    name: 'payments',
    description: 'Payments approved by groups',
    model: scriptedModel(({ messages }) => {
      const last = messages.at(-1);
      if (last?.role === 'tool') return { text: 'Done.' };
      const text =
        last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
      return { toolCalls: [{ toolName: text.startsWith('escalate') ? 'escalate' : 'pay', input: { amount: 100 } }] };
    }),
    tools: {
      pay: tool({
        inputSchema: payment,
        needsApproval: true,
        approval: { approvers: ['group:ops', 'group:finance'], required: 2 },
        execute: async () => ({ paid: true }),
      }),
      escalate: tool({
        inputSchema: payment,
        needsApproval: true,
        approval: { approvers: ['bob'], escalate: { afterMinutes: 30, to: ['group:oncall'] } },
        execute: async () => ({ paid: true }),
      }),
    },
  };
}

async function start(config: Partial<HeedConfig> = {}) {
  const server = await startServer({ agents: [groupAgent()], auth: { tokens: people }, ...config });
  servers.push(server);
  return server;
}

const inboxIds = async (server: TestServer, token: string) =>
  ((await server.api('GET', '/api/inbox', { token })).body.actions as Array<{ id: string }>).map((entry) => entry.id);

async function ask(server: TestServer, content: string) {
  const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'payments' } })).body;
  const sent = await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content } });
  expect(sent.body.status).toBe('requires_action');
  return { id: id as string, action: sent.body.pendingActions[0] as { id: string; approvers: string[] } };
}

const vote = (server: TestServer, id: string, actionId: string, token: string, decision: 'allow' | 'deny') =>
  server.api('POST', `/api/conversations/${id}/actions/${actionId}`, {
    token,
    body: { resolution: { type: 'approval', decision } },
  });

describe('groups', () => {
  it("a token's groups are on the caller: GET /api/me shows them", async () => {
    const server = await start();
    expect((await server.api('GET', '/api/me', { token: 'cat' })).body).toEqual({
      userId: 'cat',
      groups: ['ops', 'finance'],
    });
    expect((await server.api('GET', '/api/me', { token: 'eve' })).body).toEqual({ userId: 'eve' });
  });

  it('a policy naming groups: members see it in their inbox and vote, each once, however many named groups they are in', async () => {
    const server = await start();
    const { id, action } = await ask(server, 'pay acme');
    expect(action.approvers).toEqual(['group:ops', 'group:finance']);
    expect(await inboxIds(server, 'cat')).toEqual([action.id]);
    expect(await inboxIds(server, 'dan')).toEqual([action.id]);
    expect(await inboxIds(server, 'eve')).toEqual([]);
    // A member reads the conversation; someone in no named group learns nothing of it.
    expect((await server.api('GET', `/api/conversations/${id}`, { token: 'dan' })).status).toBe(200);
    expect((await server.api('GET', `/api/conversations/${id}`, { token: 'eve' })).status).toBe(404);
    expect((await vote(server, id, action.id, 'eve', 'allow')).status).toBe(404);

    const first = await vote(server, id, action.id, 'cat', 'allow');
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('requires_action');
    // cat is in both named groups, and still votes once.
    const again = await vote(server, id, action.id, 'cat', 'allow');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('already_voted');
    expect(await inboxIds(server, 'cat')).toEqual([]);
    expect(await inboxIds(server, 'dan')).toEqual([action.id]);

    const second = await vote(server, id, action.id, 'dan', 'allow');
    expect(second.status).toBe(200);
    expect(second.body.status).toBe('completed');
    expect(second.body.settled[0].resolution.votes.map((entry: { by: string }) => entry.by)).toEqual(['cat', 'dan']);
  });

  it('a user whose id is "group:ops" is not the ops group', async () => {
    const server = await start();
    const { id, action } = await ask(server, 'pay acme');
    expect(await inboxIds(server, 'mallory')).toEqual([]);
    expect((await server.api('GET', `/api/conversations/${id}`, { token: 'mallory' })).status).toBe(404);
    expect((await vote(server, id, action.id, 'mallory', 'allow')).status).toBe(404);
  });

  it("an escalation to a group lets that group's members vote once it happened", async () => {
    let now = new Date('2030-01-01T09:00:00Z');
    const server = await start({ now: () => now, auth: { tokens: { ...people, bob: { userId: 'bob' } } } });
    const { id, action } = await ask(server, 'escalate now');
    expect(await inboxIds(server, 'erin')).toEqual([]);
    expect((await vote(server, id, action.id, 'erin', 'allow')).status).toBe(404);
    now = new Date('2030-01-01T09:31:00Z');
    await server.heed.expireDue();
    expect(await inboxIds(server, 'erin')).toEqual([action.id]);
    const voted = await vote(server, id, action.id, 'erin', 'allow');
    expect(voted.status).toBe(200);
    expect(voted.body.status).toBe('completed');
  });

  it('a request assigned to a group: in each member’s inbox, answered by one, read by members only', async () => {
    const server = await start();
    const made = await server.api('POST', '/api/requests', {
      token: 'ada',
      body: { request: { kind: 'approval', title: 'Deploy?' }, assignees: ['group:ops'] },
    });
    expect(made.status).toBe(201);
    const action = made.body;
    expect(await inboxIds(server, 'dan')).toEqual([action.id]);
    expect(await inboxIds(server, 'eve')).toEqual([]);
    expect(await inboxIds(server, 'mallory')).toEqual([]);
    expect((await server.api('GET', `/api/requests/${action.id}`, { token: 'dan' })).status).toBe(200);
    expect((await server.api('GET', `/api/requests/${action.id}`, { token: 'eve' })).status).toBe(404);
    const path = `/api/conversations/${action.conversationId}/actions/${action.id}`;
    const body = { resolution: { type: 'approval', decision: 'allow' } };
    expect((await server.api('POST', path, { token: 'eve', body })).status).toBe(404);
    expect((await server.api('POST', path, { token: 'mallory', body })).status).toBe(404);
    const answered = await server.api('POST', path, { token: 'dan', body });
    expect(answered.status).toBe(200);
    expect(answered.body.settled[0]).toMatchObject({ status: 'resolved', resolvedBy: 'dan' });
  });

  it('a request assigned to a group is answered by a member in a batch of decisions', async () => {
    const server = await start();
    const made = await server.api('POST', '/api/requests', {
      token: 'ada',
      body: { request: { kind: 'approval', title: 'Deploy?' }, assignees: ['group:ops'] },
    });
    const decisions = { decisions: [{ actionId: made.body.id, resolution: { type: 'approval', decision: 'allow' } }] };
    const stranger = await server.api('POST', '/api/inbox/decisions', { token: 'eve', body: decisions });
    expect(stranger.body.results[0].status).toBe(404);
    const member = await server.api('POST', '/api/inbox/decisions', { token: 'cat', body: decisions });
    expect(member.body.results[0].status).toBe(200);
  });

  it('an assignee "group:" with no name is refused', async () => {
    const server = await start();
    const made = await server.api('POST', '/api/requests', {
      token: 'ada',
      body: { request: { kind: 'approval', title: 'Deploy?' }, assignees: ['group:'] },
    });
    expect(made.status).toBe(400);
    expect(made.body.error.code).toBe('invalid_request');
  });

  it('authorizeResolve sees the caller’s groups', async () => {
    const server = await start({
      hitl: { authorizeResolve: (caller) => caller?.groups?.includes('ops') === true },
    });
    const made = await server.api('POST', '/api/requests', {
      token: 'ada',
      body: { request: { kind: 'approval', title: 'Deploy?' } },
    });
    const path = `/api/conversations/${made.body.conversationId}/actions/${made.body.id}`;
    const body = { resolution: { type: 'approval', decision: 'allow' } };
    expect((await server.api('POST', path, { token: 'eve', body })).status).toBe(404);
    const answered = await server.api('POST', path, { token: 'dan', body });
    expect(answered.status).toBe(200);
  });
});

describe('auth.admins', () => {
  it('admins by id or group use the operator routes beside notify.operators; the 403 names both keys', async () => {
    const server = await start({
      auth: { tokens: { ...people, zed: { userId: 'zed' }, olga: { userId: 'olga' } }, admins: ['zed', 'group:ops'] },
      notify: { operators: ['olga'] },
    });
    for (const token of ['zed', 'dan', 'olga']) {
      expect((await server.api('GET', '/api/queue', { token })).status).toBe(200);
      expect((await server.api('GET', '/api/deliveries', { token })).status).toBe(200);
      expect((await server.api('GET', '/api/me', { token })).body.operator).toBe(true);
    }
    for (const token of ['eve', 'mallory', 'ada']) {
      const refused = await server.api('GET', '/api/queue', { token });
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toContain('auth.admins');
      expect(refused.body.error.message).toContain('notify.operators');
      expect((await server.api('GET', '/api/me', { token })).body.operator).toBeUndefined();
    }
    expect((await server.api('GET', '/api/queue')).status).toBe(403);
  });

  it('a policy naming a group may ask for more allows than it lists; a bare "group:" does not start', async () => {
    const agent = (approvers: string[], required: number): AgentConfig => ({
      name: 'payments',
      model: scriptedModel(() => ({ text: 'Hello.' })),
      tools: {
        pay: tool({
          inputSchema: z.object({}),
          needsApproval: true,
          approval: { approvers, required },
          execute: async () => ({}),
        }),
      },
    });
    servers.push(await startServer({ agents: [agent(['group:ops'], 3)] }));
    // tool() checks its policy when it is called, before any start.
    expect(() => agent(['bob'], 3)).toThrow(/only 1 approvers are named/);
    expect(() => agent(['group:', 'bob'], 1)).toThrow(/"group:" needs a group name after it/);
  });

  it('a token naming groups: config with an empty group name is refused at start', async () => {
    await expect(startServer({ auth: { tokens: { t: { userId: 'a', groups: [''] } } } })).rejects.toThrow(
      /auth\.tokens\.t\.groups\[0\]: expected a group name/,
    );
  });
});
