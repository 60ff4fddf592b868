import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';

describe('concurrent answers over HTTP', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('two answers to one action: exactly one continuation; the other gets 409 with the stored answer', async () => {
    const server = await startServer();
    servers.push(server);
    for (let round = 0; round < 5; round++) {
      const id = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } })).body.id;
      const sent = await server.api('POST', `/api/conversations/${id}/messages`, {
        token: 'ada',
        body: { content: 'refund' },
      });
      const actionId = sent.body.pendingActions[0].id;
      const before = server.ran.get('issue_refund') ?? 0;
      const path = `/api/conversations/${id}/actions/${actionId}`;
      const responses = await Promise.all([
        server.api('POST', path, {
          token: 'ada',
          body: { resolution: { type: 'approval', decision: 'allow', comment: 'first' } },
        }),
        server.api('POST', path, {
          token: 'ada',
          body: { resolution: { type: 'approval', decision: 'allow', comment: 'second' } },
        }),
      ]);
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([200, 409]);
      const winner = responses.find((response) => response.status === 200)!;
      const loser = responses.find((response) => response.status === 409)!;
      expect(winner.body.status).toBe('completed');
      expect(loser.body.error.code).toBe('action_not_pending');
      const [stored] = (await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' })).body.actions;
      expect(loser.body.error.details.resolution).toEqual(stored.resolution);
      expect(server.ran.get('issue_refund')).toBe(before + 1);
      const events = (await server.api('GET', `/api/conversations/${id}/events`, { token: 'ada' })).body
        .events as Array<{ type: string }>;
      expect(events.filter((event) => event.type === 'turn.started')).toHaveLength(2);
      expect(events.filter((event) => event.type === 'turn.completed')).toHaveLength(1);
    }
  });

  it('answers to the two actions of one pause, at once: both kept, one continuation', async () => {
    const server = await startServer();
    servers.push(server);
    const id = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } })).body.id;
    const sent = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'refund twice' },
    });
    const responses = await Promise.all(
      sent.body.pendingActions.map((action: { id: string }) =>
        server.api('POST', `/api/conversations/${id}/actions/${action.id}`, {
          token: 'ada',
          body: { resolution: { type: 'approval', decision: 'allow' } },
        }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual([200, 200]);
    expect(responses.map((response) => response.body.status).sort()).toEqual(['completed', 'requires_action']);
    expect(server.ran.get('issue_refund')).toBe(2);
    const actions = (await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' })).body.actions;
    expect(actions.map((action: { status: string }) => action.status)).toEqual(['resolved', 'resolved']);
  });
});
