import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';

/**
 * `POST /api/inbox/decisions` over real HTTP: each answer gets what the single answer would have got, in
 * the order sent, never all-or-nothing; the tools run once each; `remember` is not applied; an action of a
 * conversation the caller cannot see reads as missing.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

describe('POST /api/inbox/decisions', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function refundAsked(token = 'ada'): Promise<{ id: string; actionId: string }> {
    const api = server!.api;
    const { id } = (await api('POST', '/api/conversations', { token, body: { agent: 'support' } })).body as Any;
    const sent = await api('POST', `/api/conversations/${id}/messages`, { token, body: { content: 'refund' } });
    return { id, actionId: (sent.body as Any).pendingActions[0].id };
  }

  const allow = { type: 'approval', decision: 'allow' };

  it('settles 20 one by one: 17 run, 2 already settled get 409 with the stored answer, 1 invalid gets 400', async () => {
    server = await startServer();
    const api = server.api;
    const asked = [];
    for (let i = 0; i < 20; i++) asked.push(await refundAsked());
    for (const { id, actionId } of asked.slice(3, 5)) {
      const single = await api('POST', `/api/conversations/${id}/actions/${actionId}`, {
        token: 'ada',
        body: { resolution: { type: 'approval', decision: 'deny', comment: 'not this one' } },
      });
      expect(single.status).toBe(200);
    }
    const decisions = asked.map(({ actionId }, index) => ({
      actionId,
      resolution: index === 7 ? { type: 'approval', decision: 'maybe' } : { ...allow, remember: true },
    }));
    const answered = await api('POST', '/api/inbox/decisions', { token: 'ada', body: { decisions } });
    expect(answered.status).toBe(200);
    const results = (answered.body as Any).results as Array<{ actionId: string; status: number; body: Any }>;
    expect(results.map((result) => result.actionId)).toEqual(asked.map((entry) => entry.actionId));
    expect(results.map((result) => result.status)).toEqual(
      asked.map((_, index) => (index === 3 || index === 4 ? 409 : index === 7 ? 400 : 200)),
    );
    expect(results[3].body.error.code).toBe('action_not_pending');
    expect(JSON.stringify(results[3].body)).toContain('not this one');
    expect(results[7].body.error.code).toBe('invalid_resolution');
    expect(results[0].body).toMatchObject({ id: asked[0].actionId, status: 'resolved', resolution: allow });
    expect(results[0].body.messages).toBeUndefined();
    expect(server.ran.get('issue_refund')).toBe(17);
    // Once each: every one of the 17 conversations logged exactly one run of its tool, the others none.
    for (const [index, { id }] of asked.entries()) {
      const events = (await api('GET', `/api/conversations/${id}/events?limit=200`, { token: 'ada' })).body as Any;
      const runs = events.events.filter((event: Any) => event.type === 'tool.result' && !event.data.isError);
      expect(runs.length, `decision ${index}`).toBe(index === 3 || index === 4 || index === 7 ? 0 : 1);
    }

    // The invalid one is still waiting and can be answered; nothing was remembered for the tool.
    const retry = await api('POST', '/api/conversations/' + asked[7].id + '/actions/' + asked[7].actionId, {
      token: 'ada',
      body: { resolution: allow },
    });
    expect(retry.status).toBe(200);
    const remembered = await api('GET', `/api/conversations/${asked[0].id}/remembered-tools`, { token: 'ada' });
    expect((remembered.body as Any).tools).toEqual([]);
  });

  it("answers 404 for an unknown id and for another user's action, telling nothing of its conversation", async () => {
    server = await startServer();
    const theirs = await refundAsked('bob');
    const answered = await server.api('POST', '/api/inbox/decisions', {
      token: 'ada',
      body: {
        decisions: [
          { actionId: theirs.actionId, resolution: allow },
          { actionId: 'a_nothing', resolution: allow },
        ],
      },
    });
    const results = (answered.body as Any).results;
    expect(results.map((result: Any) => result.status)).toEqual([404, 404]);
    expect(JSON.stringify(results[0])).not.toContain(theirs.id);
    expect(results[0].body.error.message).toBe(`There is no action ${theirs.actionId} you may answer.`);
    expect(server.ran.get('issue_refund')).toBeUndefined();
    const still = await server.api('GET', `/api/conversations/${theirs.id}/actions`, { token: 'bob' });
    expect((still.body as Any).actions[0].status).toBe('pending');
  });

  it('refuses a batch over 100 answers, or an empty one, with 400 and settles nothing', async () => {
    server = await startServer();
    const asked = await refundAsked();
    const many = Array.from({ length: 101 }, () => ({ actionId: asked.actionId, resolution: allow }));
    const refused = await server.api('POST', '/api/inbox/decisions', { token: 'ada', body: { decisions: many } });
    expect(refused.status).toBe(400);
    expect((refused.body as Any).error.code).toBe('invalid_request');
    expect((refused.body as Any).error.message).toMatch(/100/);
    const empty = await server.api('POST', '/api/inbox/decisions', { token: 'ada', body: { decisions: [] } });
    expect(empty.status).toBe(400);
    expect(server.ran.get('issue_refund')).toBeUndefined();
  });
});
