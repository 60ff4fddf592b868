import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { quorumAgent, quorumTokens } from '../../test/fixtures/quorum-agent.js';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from '../../test/pg.js';
import { postgresStore } from '../store/postgres/postgres-store.js';
import type { Store } from '../store/store.js';
import { readSse, type SseEvent } from '../client/sse-reader.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { tool } from '../tool.js';
import { z } from 'zod';

/** Delegation (docs/approvals.md, Delegation) over real HTTP on loopback, with a clock the test moves. */

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const T0 = Date.parse('2026-03-02T09:00:00.000Z');
const hours = (n: number) => new Date(T0 + n * 3_600_000).toISOString();

async function start(store?: Store, clock = { at: T0 }) {
  const runs: string[] = [];
  const server = await startServer({
    agents: [quorumAgent((name) => runs.push(name))],
    auth: { tokens: quorumTokens },
    now: () => new Date(clock.at),
    ...(store ? { store } : {}),
  });
  servers.push(server);
  const answer = (conversationId: string, actionId: string, token: string, resolution: Record<string, unknown>) =>
    server.api('POST', `/api/conversations/${conversationId}/actions/${actionId}`, {
      token,
      body: { resolution: { type: 'approval', ...resolution } },
    });
  const delegate = (token: string, body: unknown) => server.api('PUT', '/api/me/delegation', { token, body });
  const inbox = async (token: string) =>
    (await server.api('GET', '/api/inbox', { token })).body.actions as Array<{ id: string; onBehalfOf?: string }>;
  /** ada asks the payments agent for `content`: a 2-of-bob/cat/dan approval (ada asks, so four eyes leaves her out). */
  const ask = async (content = 'pay acme') => {
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'payments' } })).body;
    const sent = await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content } });
    expect(sent.body.status).toBe('requires_action');
    return { id: id as string, action: sent.body.pendingActions[0] as { id: string } };
  };
  return { server, runs, answer, delegate, inbox, ask, clock };
}

describe('PUT /api/me/delegation', () => {
  it('refuses a delegation to oneself, in a cycle, or ending in the past with a 400 that says why, and stores nothing', async () => {
    const { server, delegate } = await start();
    const refused = async (token: string, body: unknown, reason: string, field: string) => {
      const response = await delegate(token, body);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_request', details: { field, reason } });
      expect(response.body.error.message).toMatch(/\.$/);
    };
    await refused('bob', { to: 'bob' }, 'self', 'to');
    await refused('bob', { to: 'cat', until: hours(-1) }, 'past', 'until');
    await refused('bob', { to: 'cat', until: 'next tuesday' }, 'invalid', 'until');
    await refused('bob', { to: '' }, 'invalid', 'to');
    expect((await server.api('GET', '/api/me/delegation', { token: 'bob' })).body).toEqual({
      delegation: null,
      holding: [],
    });

    // bob → cat → dan; dan → bob would lead back to dan.
    expect((await delegate('bob', { to: 'cat', until: hours(8) })).status).toBe(200);
    expect((await delegate('cat', { to: 'dan' })).status).toBe(200);
    await refused('dan', { to: 'bob' }, 'cycle', 'to');
    await refused('cat', { to: 'bob' }, 'cycle', 'to');
    expect((await server.api('GET', '/api/me/delegation', { token: 'dan' })).body).toEqual({
      delegation: null,
      holding: [{ from: 'cat' }],
    });
    expect((await server.api('GET', '/api/me/delegation', { token: 'cat' })).body).toEqual({
      delegation: { to: 'dan', since: hours(0) },
      holding: [{ from: 'bob', until: hours(8) }],
    });

    // Not signed in: nothing to hand over (403); a token the server does not know: 401.
    expect((await server.api('PUT', '/api/me/delegation', { body: { to: 'bob' } })).status).toBe(403);
    expect((await server.api('GET', '/api/me/delegation')).body.error.code).toBe('forbidden');
    expect((await server.api('GET', '/api/me/delegation', { token: 'nobody' })).status).toBe(401);

    const cleared = await server.api('DELETE', '/api/me/delegation', { token: 'cat' });
    expect(cleared.body).toEqual({ delegation: null, holding: [{ from: 'bob', until: hours(8) }] });
  });
});

describe('a delegate answers', () => {
  it("votes in the approver's place (one vote per approver), the record names both, and it ends at `until`", async () => {
    const { server, runs, answer, delegate, inbox, ask, clock } = await start();
    const { id, action } = await ask();
    // eve is nobody here: she sees nothing of it.
    expect(await inbox('eve')).toEqual([]);
    expect((await answer(id, action.id, 'eve', { decision: 'allow' })).status).toBe(404);

    expect((await delegate('cat', { to: 'eve', until: hours(2) })).status).toBe(200);
    const held = await inbox('eve');
    expect(held).toMatchObject([{ id: action.id, onBehalfOf: 'cat' }]);
    expect((await server.api('GET', `/api/conversations/${id}`, { token: 'eve' })).status).toBe(200);
    // Reading is all: a delegate sends nothing to someone else's conversation.
    const send = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'eve',
      body: { content: 'hi' },
    });
    expect(send.status).toBe(404);

    const voted = await answer(id, action.id, 'eve', { decision: 'allow', comment: 'For cat.' });
    expect(voted.status).toBe(200);
    expect(voted.body.pendingActions[0].votes).toEqual([
      { by: 'eve', for: 'cat', decision: 'allow', comment: 'For cat.', at: hours(0) },
    ]);
    // cat's vote is given: neither cat nor eve votes again; it leaves both inboxes.
    expect((await answer(id, action.id, 'cat', { decision: 'allow' })).body.error.code).toBe('already_voted');
    expect((await answer(id, action.id, 'eve', { decision: 'allow' })).status).toBe(403);
    expect(await inbox('eve')).toEqual([]);
    expect(await inbox('cat')).toEqual([]);

    const decided = await answer(id, action.id, 'bob', { decision: 'allow' });
    expect(decided.status).toBe(200);
    expect(runs).toEqual(['pay']);
    const events = (await server.api('GET', `/api/conversations/${id}/events`, { token: 'ada' })).body.events as Array<{
      type: string;
      data: Record<string, unknown>;
    }>;
    expect(
      events.filter((event) => event.type === 'action.voted').map((event) => [event.data.by, event.data.for]),
    ).toEqual([
      ['eve', 'cat'],
      ['bob', undefined],
    ]);
    const [settled] = (await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' })).body.actions;
    expect(settled.resolution.votes.map((vote: { by: string; for?: string }) => [vote.by, vote.for])).toEqual([
      ['eve', 'cat'],
      ['bob', undefined],
    ]);
    // Nothing waits on cat there now: her delegate no longer reads the conversation.
    expect((await server.api('GET', `/api/conversations/${id}`, { token: 'eve' })).status).toBe(404);

    // At `until` it is over: a new approval waits on cat alone.
    const next = await ask();
    expect(await inbox('eve')).toMatchObject([{ id: next.action.id, onBehalfOf: 'cat' }]);
    clock.at = Date.parse(hours(2));
    expect(await inbox('eve')).toEqual([]);
    expect((await answer(next.id, next.action.id, 'eve', { decision: 'allow' })).status).toBe(404);
    expect((await server.api('GET', '/api/me/delegation', { token: 'cat' })).body.delegation).toBeNull();
    expect((await answer(next.id, next.action.id, 'cat', { decision: 'allow' })).status).toBe(200);
  });

  it('answers a request assigned to the person they answer for: resolvedBy the delegate, answeredFor that person', async () => {
    const { server, delegate, inbox } = await start();
    const made = await server.api('POST', '/api/requests', {
      token: 'ada',
      body: { request: { kind: 'approval', title: 'Rotate the keys?' }, assignees: ['bob'] },
    });
    expect(made.status).toBe(201);
    const action = made.body as { id: string; conversationId: string };
    // Another of ada's conversations, with nothing for bob: off limits to bob's delegate.
    const other = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'payments' } })).body;

    expect((await delegate('bob', { to: 'dan', until: hours(1) })).status).toBe(200);
    expect(await inbox('dan')).toMatchObject([{ id: action.id, onBehalfOf: 'bob' }]);
    // The live inbox says the same.
    const abort = new AbortController();
    const stream = await fetch(`${server.url}/api/inbox/stream`, {
      headers: { authorization: 'Bearer dan' },
      signal: abort.signal,
    });
    const live = readSse(stream.body!, abort.signal)[Symbol.asyncIterator]();
    const added = (await live.next()).value as SseEvent;
    expect(added.event).toBe('inbox.added');
    expect(JSON.parse(added.data)).toMatchObject({ id: action.id, onBehalfOf: 'bob' });
    expect(((await live.next()).value as SseEvent).event).toBe('inbox.synced');
    abort.abort();
    expect((await server.api('GET', `/api/conversations/${other.id}`, { token: 'dan' })).status).toBe(404);
    expect((await server.api('GET', `/api/conversations/${other.id}/events`, { token: 'dan' })).status).toBe(404);
    // eve holds no delegation: still refused, as before.
    const eve = await server.api('POST', `/api/conversations/${action.conversationId}/actions/${action.id}`, {
      token: 'eve',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(eve.status).toBe(404);

    const answered = await server.api('POST', `/api/conversations/${action.conversationId}/actions/${action.id}`, {
      token: 'dan',
      body: { resolution: { type: 'approval', decision: 'deny', comment: 'Not today.' } },
    });
    expect(answered.status).toBe(200);
    const view = (await server.api('GET', `/api/requests/${action.id}`, { token: 'ada' })).body;
    expect(view).toMatchObject({ status: 'resolved', resolvedBy: 'dan', answeredFor: 'bob' });
    const events = (await server.api('GET', `/api/conversations/${action.conversationId}/events`, { token: 'ada' }))
      .body.events as Array<{ type: string; data: Record<string, unknown> }>;
    expect(events.find((event) => event.type === 'action.resolved')?.data).toMatchObject({
      resolvedBy: 'dan',
      answeredFor: 'bob',
    });
    // A second answer learns who was first, and for whom.
    const late = await server.api('POST', `/api/conversations/${action.conversationId}/actions/${action.id}`, {
      token: 'bob',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(late.status).toBe(409);
    expect(late.body.error.details).toMatchObject({ resolvedBy: 'dan', answeredFor: 'bob' });
  });
});

describe("a delegate and the person's own conversations", () => {
  it("answers the approval waiting in grace's own chat, for grace; reads that chat only while it waits", async () => {
    const runs: string[] = [];
    const server = await startServer({
      agents: [
        {
          name: 'ops',
          model: scriptedModel(({ messages }) =>
            messages.at(-1)?.role === 'tool'
              ? { text: 'Done.' }
              : { toolCalls: [{ toolName: 'restart', input: { service: 'api' } }] },
          ),
          tools: {
            restart: tool({
              inputSchema: z.object({ service: z.string() }),
              needsApproval: true,
              execute: async () => (runs.push('restart'), 'restarted'),
            }),
          },
        },
      ],
      auth: { tokens: { ...quorumTokens, grace: { userId: 'grace' } } },
    });
    servers.push(server);
    const { id } = (await server.api('POST', '/api/conversations', { token: 'grace', body: { agent: 'ops' } })).body;
    const sent = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'grace',
      body: { content: 'restart the api' },
    });
    const action = sent.body.pendingActions[0] as { id: string };
    expect((await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).status).toBe(404);
    await server.api('PUT', '/api/me/delegation', { token: 'grace', body: { to: 'ada' } });
    const inbox = (await server.api('GET', '/api/inbox', { token: 'ada' })).body.actions;
    expect(inbox).toMatchObject([{ id: action.id, onBehalfOf: 'grace', conversation: { ownerId: 'grace' } }]);
    expect((await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).status).toBe(200);

    const answered = await server.api('POST', `/api/conversations/${id}/actions/${action.id}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(answered.status).toBe(200);
    expect(runs).toEqual(['restart']);
    const [settled] = (await server.api('GET', `/api/conversations/${id}/actions`, { token: 'grace' })).body.actions;
    expect(settled).toMatchObject({ status: 'resolved', resolvedBy: 'ada', answeredFor: 'grace' });
    // Nothing waits on grace there any more: the chat is hers again.
    expect((await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).status).toBe(404);
  });
});

describe('notifications', () => {
  it("mail's `to` is told the delegates of whom a request waits on, so they are mailed too", async () => {
    const seen: unknown[] = [];
    const server = await startServer({
      agents: [quorumAgent(() => undefined)],
      auth: { tokens: quorumTokens },
      notify: {
        email: {
          transport: 'smtp://127.0.0.1:9',
          from: 'Heed <heed@example.com>',
          // Nothing is sent: the test reads what `to` was asked with.
          to: ({ delegates }) => (seen.push(delegates), null),
        },
      },
    });
    servers.push(server);
    expect((await server.api('PUT', '/api/me/delegation', { token: 'cat', body: { to: 'erin' } })).status).toBe(200);
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'payments' } })).body;
    await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content: 'pay acme' } });
    // `pay` names ada (left out: she asks), bob, cat and dan.
    expect(seen).toEqual([[{ for: 'cat', to: 'erin' }]]);
  });
});

let database: TestDatabase | undefined;
describe.skipIf(!pgServer)(`delegation on PostgreSQL${pgServer ? '' : ` (${pgSkipReason})`}`, () => {
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('holds across a restart and another instance, and the record keeps both names', async () => {
    const store = () => postgresStore({ connectionString: database!.url, schema: 'delegation', max: 4 });
    const clock = { at: T0 };
    const first = await start(store(), clock);
    const { id, action } = await first.ask();
    expect((await first.delegate('dan', { to: 'erin', until: hours(3) })).status).toBe(200);
    await first.server.close();
    servers.splice(servers.indexOf(first.server), 1);

    const second = await start(store(), clock);
    expect(await second.inbox('erin')).toMatchObject([{ id: action.id, onBehalfOf: 'dan' }]);
    expect((await second.answer(id, action.id, 'erin', { decision: 'allow' })).status).toBe(200);
    expect((await second.answer(id, action.id, 'bob', { decision: 'allow' })).status).toBe(200);
    expect(second.runs).toEqual(['pay']);
    const [settled] = (await second.server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' })).body
      .actions;
    expect(settled.resolution.votes.map((vote: { by: string; for?: string }) => [vote.by, vote.for])).toEqual([
      ['erin', 'dan'],
      ['bob', undefined],
    ]);

    // A request answered for someone keeps `answeredFor` in its row.
    const made = await second.server.api('POST', '/api/requests', {
      token: 'ada',
      body: { request: { kind: 'approval', title: 'Rotate the keys?' }, assignees: ['dan'] },
    });
    const request = made.body as { id: string; conversationId: string };
    await second.server.api('POST', `/api/conversations/${request.conversationId}/actions/${request.id}`, {
      token: 'erin',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect((await second.server.api('GET', `/api/requests/${request.id}`, { token: 'ada' })).body).toMatchObject({
      resolvedBy: 'erin',
      answeredFor: 'dan',
    });
    clock.at = Date.parse(hours(3));
    expect((await second.server.api('GET', '/api/me/delegation', { token: 'erin' })).body.holding).toEqual([]);
  });
});
