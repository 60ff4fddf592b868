import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSse, startServer, type TestServer } from '../../test/http-fixtures.js';

// A caller never sees another user's conversations, actions or events; anonymous callers use ownerless ones by id.
describe('HTTP auth and ownership', () => {
  let server: TestServer;
  let adas: { id: string; actionId: string };
  beforeAll(async () => {
    server = await startServer({
      auth: {
        tokens: { ada: { userId: 'ada' }, bob: { userId: 'bob' } },
      },
    });
    const conversation = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } }))
      .body;
    const sent = await server.api('POST', `/api/conversations/${conversation.id}/messages`, {
      token: 'ada',
      body: { content: 'refund' },
    });
    adas = { id: conversation.id, actionId: sent.body.pendingActions[0].id };
  });
  afterAll(async () => {
    await server.close();
  });

  it("every conversation route answers 404 for someone else's conversation", async () => {
    const base = `/api/conversations/${adas.id}`;
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', base],
      ['GET', `${base}/actions`],
      ['GET', `${base}/events`],
      ['GET', `${base}/events/stream`],
      ['GET', `${base}/remembered-tools`],
      ['DELETE', `${base}/remembered-tools/issue_refund`],
      ['POST', `${base}/messages`, { content: 'hi' }],
      ['POST', `${base}/actions/${adas.actionId}`, { resolution: { type: 'approval', decision: 'allow' } }],
      ['POST', `${base}/cancel`],
      ['POST', `${base}/branch`, {}],
    ];
    for (const token of ['bob', undefined]) {
      for (const [method, path, body] of attempts) {
        const response = await server.api(method, path, { token, body });
        expect([method, path, token, response.status, response.body?.error?.code]).toEqual([
          method,
          path,
          token,
          404,
          'not_found',
        ]);
      }
    }
    // Nothing changed for ada.
    const snapshot = await server.api('GET', base, { token: 'ada' });
    expect(snapshot.body.runtime).toEqual({ status: 'requires_action', pendingActionIds: [adas.actionId] });
  });

  it("lists and the inbox hold only the caller's own", async () => {
    const bobs = (await server.api('GET', '/api/conversations', { token: 'bob' })).body.conversations;
    expect(bobs.map((c: { id: string }) => c.id)).not.toContain(adas.id);
    expect((await server.api('GET', '/api/inbox', { token: 'bob' })).body.actions).toEqual([]);
    expect(
      (await server.api('GET', '/api/inbox', { token: 'ada' })).body.actions.map((a: { id: string }) => a.id),
    ).toContain(adas.actionId);
    expect((await server.api('GET', '/api/conversations')).body.conversations).toEqual([]);
  });

  it('anonymous callers create ownerless conversations that anyone with the id may use', async () => {
    const created = await server.api('POST', '/api/conversations', { body: { agent: 'support' } });
    expect(created.status).toBe(201);
    expect(created.body.ownerId).toBeNull();
    const sent = await server.api('POST', `/api/conversations/${created.body.id}/messages`, {
      body: { content: 'refund' },
    });
    expect(sent.body.status).toBe('requires_action');
    // A signed-in user who knows the id may answer too.
    const answered = await server.api(
      'POST',
      `/api/conversations/${created.body.id}/actions/${sent.body.pendingActions[0].id}`,
      {
        token: 'bob',
        body: { resolution: { type: 'approval', decision: 'allow' } },
      },
    );
    expect(answered.body.status).toBe('completed');
    const events = await server.api('GET', `/api/conversations/${created.body.id}/events`);
    expect(events.body.events.find((e: { type: string }) => e.type === 'action.resolved').data.resolvedBy).toBe('bob');
    // Branching an ownerless conversation as bob makes a private copy.
    const branched = await server.api('POST', `/api/conversations/${created.body.id}/branch`, {
      token: 'bob',
      body: {},
    });
    expect(branched.body.ownerId).toBe('bob');
    expect((await server.api('GET', `/api/conversations/${branched.body.id}`)).status).toBe(404);
  });

  it("a live stream of one's own conversation carries only its events", async () => {
    const controller = new AbortController();
    const response = await fetch(`${server.url}/api/conversations/${adas.id}/events/stream`, {
      headers: { authorization: 'Bearer ada' },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('turn.paused')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const events = parseSse(text).map((event) => JSON.parse(event.data) as { conversationId: string });
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((event) => event.conversationId === adas.id)).toBe(true);
  });
});
