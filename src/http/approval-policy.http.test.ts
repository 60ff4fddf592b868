import { afterEach, describe, expect, it } from 'vitest';
import { parseSse, startServer, type TestServer } from '../../test/http-fixtures.js';
import { quorumAgent, quorumTokens } from '../../test/fixtures/quorum-agent.js';
import { createHeed } from '../heed.js';
import { memoryStore } from '../store/memory/memory-store.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { tool } from '../tool.js';
import { z } from 'zod';

/** Approvals decided by votes (docs/approvals.md#votes), over real HTTP on loopback. */

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(now?: () => Date) {
  const runs: Array<{ tool: string; input: unknown }> = [];
  const server = await startServer({
    agents: [quorumAgent((name, input) => runs.push({ tool: name, input }))],
    auth: { tokens: quorumTokens },
    now,
  });
  servers.push(server);
  const vote = (id: string, actionId: string, token: string, resolution: Record<string, unknown>) =>
    server.api('POST', `/api/conversations/${id}/actions/${actionId}`, {
      token,
      body: { resolution: { type: 'approval', ...resolution } },
    });
  /** ada asks for `content`; returns the conversation id and the pending approval. */
  const ask = async (content: string) => {
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'payments' } })).body;
    const sent = await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content } });
    expect(sent.body.status).toBe('requires_action');
    return { id: id as string, action: sent.body.pendingActions[0] };
  };
  const events = async (id: string) =>
    (await server.api('GET', `/api/conversations/${id}/events`, { token: 'ada' })).body.events as Array<{
      type: string;
      data: any;
    }>;
  return { server, runs, vote, ask, events };
}

describe('approval policies over HTTP', () => {
  it('a 2-of-3 quorum with four eyes: the requester is refused, a vote that does not decide, a repeated vote, the deciding vote, a late one', async () => {
    const { server, runs, vote, ask, events } = await start();
    const { id, action } = await ask('pay acme');
    expect(action).toMatchObject({
      kind: 'approval',
      required: 2,
      approvers: ['bob', 'cat', 'dan'],
      deny: 'any',
      excludeRequester: true,
      votes: [],
      canRemember: false,
    });

    const own = await vote(id, action.id, 'ada', { decision: 'allow' });
    expect(own.status).toBe(403);
    expect(own.body.error.code).toBe('action_forbidden');
    // Someone who is neither owner nor approver learns nothing: the same 404 as a conversation that does not exist.
    const stranger = await vote(id, action.id, 'eve', { decision: 'allow' });
    const missing = await vote('c_nope', action.id, 'eve', { decision: 'allow' });
    expect(stranger.status).toBe(404);
    expect({ ...stranger.body.error, details: null }).toEqual({ ...missing.body.error, details: null });
    expect((await server.api('GET', `/api/conversations/${id}`, { token: 'eve' })).status).toBe(404);

    const first = await vote(id, action.id, 'bob', { decision: 'allow', comment: 'Looks right.' });
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('requires_action');
    expect(first.body.pendingActions[0]).toMatchObject({ id: action.id, status: 'pending', required: 2 });
    expect(first.body.pendingActions[0].votes).toEqual([
      { by: 'bob', decision: 'allow', comment: 'Looks right.', at: expect.any(String) },
    ]);
    expect(runs).toEqual([]);

    const again = await vote(id, action.id, 'bob', { decision: 'deny' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('already_voted');

    const decided = await vote(id, action.id, 'cat', { decision: 'allow' });
    expect(decided.status).toBe(200);
    expect(decided.body.status).toBe('completed');
    expect(runs).toEqual([{ tool: 'pay', input: { to: 'acme', amount: 100 } }]);

    const late = await vote(id, action.id, 'dan', { decision: 'allow' });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('action_not_pending');
    expect(late.body.error.details.resolution.votes.map((entry: { by: string }) => entry.by)).toEqual(['bob', 'cat']);
    expect(late.body.error.details.resolvedBy).toBe('cat');

    const log = await events(id);
    const voted = log.filter((event) => event.type === 'action.voted');
    expect(voted.map((event) => [event.data.by, event.data.decides])).toEqual([
      ['bob', false],
      ['cat', true],
    ]);
    expect(log.filter((event) => event.type === 'action.resolved')).toHaveLength(1);
    const view = (await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' })).body.actions[0];
    expect(view.votes.map((entry: { by: string }) => entry.by)).toEqual(['bob', 'cat']);
  });

  it('an approver reads the conversation and finds the action in the inbox, and gains nothing else', async () => {
    const { server, vote, ask } = await start();
    const { id, action } = await ask('pay acme');
    const other = await ask('veto this');

    const read = await server.api('GET', `/api/conversations/${id}`, { token: 'dan' });
    expect(read.status).toBe(200);
    expect(read.body.pendingActions[0]).toMatchObject({ id: action.id, approvers: ['bob', 'cat', 'dan'] });
    expect((await server.api('GET', `/api/conversations/${id}/events`, { token: 'dan' })).status).toBe(200);

    const inbox = async (token: string) =>
      ((await server.api('GET', '/api/inbox', { token })).body.actions as Array<{ id: string }>).map(
        (entry) => entry.id,
      );
    expect(await inbox('dan')).toEqual([action.id]);
    expect(await inbox('bob')).toEqual([action.id, other.action.id]);
    // ada asked for both; she may vote on the veto one (no four eyes there: she is simply not named, so neither).
    expect(await inbox('ada')).toEqual([]);
    expect(await inbox('eve')).toEqual([]);

    // dan may not write anything else in the conversation: not a message, a cancel, a branch, or another action.
    expect(
      (await server.api('POST', `/api/conversations/${id}/messages`, { token: 'dan', body: { content: 'hi' } })).status,
    ).toBe(404);
    expect((await server.api('POST', `/api/conversations/${id}/cancel`, { token: 'dan', body: {} })).status).toBe(404);
    expect((await server.api('POST', `/api/conversations/${id}/branch`, { token: 'dan', body: {} })).status).toBe(404);
    expect((await vote(other.id, other.action.id, 'dan', { decision: 'allow' })).status).toBe(404);

    // The inbox stream shows the approver the same action.
    const controller = new AbortController();
    const response = await fetch(`${server.url}/api/inbox/stream`, {
      headers: { authorization: 'Bearer dan' },
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('inbox.synced')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const added = parseSse(text)
      .filter((event) => event.event === 'inbox.added')
      .map((event) => JSON.parse(event.data).id);
    expect(added).toEqual([action.id]);

    // Once dan voted, the action no longer waits on him.
    expect((await vote(id, action.id, 'dan', { decision: 'allow' })).status).toBe(200);
    expect(await inbox('dan')).toEqual([]);
    expect(await inbox('bob')).toEqual([action.id, other.action.id]);
  });

  it("deny: 'any' — one deny refuses at once, whatever the allows; the model reads the refusal", async () => {
    const { runs, vote, ask, events } = await start();
    const { id, action } = await ask('veto this');
    expect((await vote(id, action.id, 'bob', { decision: 'allow' })).body.status).toBe('requires_action');
    const denied = await vote(id, action.id, 'cat', { decision: 'deny', comment: 'Not this month.' });
    expect(denied.body.status).toBe('completed');
    expect(runs).toEqual([]);
    const resolved = (await events(id)).find((event) => event.type === 'action.resolved')!;
    expect(resolved.data).toMatchObject({ status: 'rejected', decision: 'deny', resolvedBy: 'cat' });
    const result = denied.body.messages.find((message: { role: string }) => message.role === 'tool').parts[0].output;
    expect(result.value).toContain('Not this month.');
  });

  it("deny: 'majority' — one deny does not decide; the second of three does", async () => {
    const { runs, vote, ask } = await start();
    const { id, action } = await ask('majority vote');
    const one = await vote(id, action.id, 'bob', { decision: 'deny' });
    expect(one.body.status).toBe('requires_action');
    const allow = await vote(id, action.id, 'cat', { decision: 'allow' });
    expect(allow.body.status).toBe('requires_action');
    expect(allow.body.pendingActions[0].votes.map((entry: { decision: string }) => entry.decision)).toEqual([
      'deny',
      'allow',
    ]);
    const two = await vote(id, action.id, 'dan', { decision: 'deny' });
    expect(two.body.status).toBe('completed');
    expect(runs).toEqual([]);
  });

  it('edited arguments are proposed anew: the allows for the old ones stop counting, and the tool runs with the new ones', async () => {
    const { runs, vote, ask } = await start();
    const { id, action } = await ask('pay acme');
    await vote(id, action.id, 'bob', { decision: 'allow' });
    const edited = await vote(id, action.id, 'cat', { decision: 'allow', approvedArgs: { to: 'acme', amount: 50 } });
    expect(edited.body.status).toBe('requires_action');
    const view = edited.body.pendingActions[0];
    expect(view.args).toEqual({ to: 'acme', amount: 50 });
    expect(view.originalArgs).toEqual({ to: 'acme', amount: 100 });
    expect(view.votes).toMatchObject([
      { by: 'bob', decision: 'allow', outdated: true },
      { by: 'cat', decision: 'allow', args: { to: 'acme', amount: 50 } },
    ]);
    // Edited arguments are checked against the tool's schema like any approval's.
    const bad = await vote(id, action.id, 'dan', { decision: 'allow', approvedArgs: { to: 'acme', amount: 5000 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_approved_args');
    // bob's allow was for 100: he may vote again on 50, and that decides.
    const decided = await vote(id, action.id, 'bob', { decision: 'allow' });
    expect(decided.body.status).toBe('completed');
    expect(runs).toEqual([{ tool: 'pay', input: { to: 'acme', amount: 50 } }]);
  });

  it('escalation adds approvers once the time passes without a decision, once, without moving the lapse time', async () => {
    let clock = Date.parse('2030-01-01T09:00:00Z');
    const { server, runs, vote, ask, events } = await start(() => new Date(clock));
    const { id, action } = await ask('escalate please');
    expect(action.approvers).toEqual(['bob']);
    expect(action.escalate).toEqual({ at: '2030-01-01T09:30:00.000Z', to: ['erin'] });
    expect((await server.api('GET', '/api/inbox', { token: 'erin' })).body.actions).toEqual([]);
    expect((await vote(id, action.id, 'erin', { decision: 'allow' })).status).toBe(404);

    clock += 29 * 60_000;
    await server.heed.expireDue();
    expect((await events(id)).some((event) => event.type === 'action.escalated')).toBe(false);

    clock += 2 * 60_000;
    await Promise.all([server.heed.expireDue(), server.heed.expireDue()]);
    await server.heed.expireDue();
    const escalated = (await events(id)).filter((event) => event.type === 'action.escalated');
    expect(escalated).toHaveLength(1);
    expect(escalated[0].data).toMatchObject({ actionId: action.id, added: ['erin'], approvers: ['bob', 'erin'] });

    const inbox = (await server.api('GET', '/api/inbox', { token: 'erin' })).body.actions;
    expect(inbox.map((entry: { id: string }) => entry.id)).toEqual([action.id]);
    expect(inbox[0].expiresAt).toBe(action.expiresAt);
    expect(inbox[0].approvers).toEqual(['bob', 'erin']);
    const decided = await vote(id, action.id, 'erin', { decision: 'allow' });
    expect(decided.body.status).toBe('completed');
    expect(runs).toHaveLength(1);
  });
});

describe('approval policies in the config', () => {
  const model = scriptedModel(() => ({ text: 'Hi.' }));
  it('a malformed policy stops the start, naming the agent and tool', () => {
    const bad = {
      inputSchema: z.object({}),
      needsApproval: true,
      approval: { approvers: ['bob'], required: 0, deny: 'some' },
    };
    expect(() =>
      createHeed({
        agents: [{ name: 'a', model, tools: { pay: bad as never } }],
        store: memoryStore(),
        sweepIntervalMs: 0,
      }),
    ).toThrow(
      /agents\[0\]\.tools\.pay\.approval\.required: must be a whole number of at least 1.*agents\[0\]\.tools\.pay\.approval\.deny/,
    );
    expect(() =>
      tool({ inputSchema: z.object({}), needsApproval: true, approval: { approvers: ['bob'], required: 2 } }),
    ).toThrow(/approval\.required: asks for 2 allows but only 1 approvers are named/);
    expect(() => tool({ inputSchema: z.object({}), approval: { approvers: ['bob'] } })).toThrow(/needs needsApproval/);
  });
});
