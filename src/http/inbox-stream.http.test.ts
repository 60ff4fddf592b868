import { afterEach, describe, expect, it, vi } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { readSse, type SseEvent } from '../client/sse-reader.js';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** Opens the inbox stream; `next()` resolves with the next event (or fails after 5 s). */
async function follow(server: TestServer, token?: string, lastEventId?: string) {
  const abort = new AbortController();
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (lastEventId) headers['last-event-id'] = lastEventId;
  const response = await fetch(`${server.url}/api/inbox/stream`, { headers, signal: abort.signal });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const events = readSse(response.body!, abort.signal)[Symbol.asyncIterator]();
  cleanup.push(async () => abort.abort());
  return {
    async next(): Promise<SseEvent & { json: { id?: string; count?: number; conversationId?: string } }> {
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('no inbox event within 5 s')), 5000),
      );
      const { value } = await Promise.race([events.next(), timeout]);
      return { ...value, json: JSON.parse(value.data) };
    },
    close: () => abort.abort(),
  };
}

async function pause(server: TestServer, token: string) {
  const { body } = await server.api('POST', '/api/conversations', { token, body: { agent: 'support' } });
  const turn = await server.api('POST', `/api/conversations/${body.id}/messages`, {
    token,
    body: { content: 'refund' },
  });
  return { conversationId: body.id as string, actionId: turn.body.pendingActions[0].id as string };
}

describe('GET /api/inbox/stream', () => {
  it('opens with what waits, then adds and removes as requests are raised and answered; other people’s never appear', async () => {
    const server = await startServer();
    cleanup.push(server.close);
    const first = await pause(server, 'ada');
    const stream = await follow(server, 'ada');
    const added = await stream.next();
    expect(added).toMatchObject({ event: 'inbox.added', json: { id: first.actionId } });
    expect(await stream.next()).toMatchObject({ event: 'inbox.synced', json: { count: 1 } });

    await pause(server, 'bob');
    const second = await pause(server, 'ada');
    expect(await stream.next()).toMatchObject({
      event: 'inbox.added',
      json: { id: second.actionId, kind: 'approval', status: 'pending' },
    });
    await server.api('POST', `/api/conversations/${first.conversationId}/actions/${first.actionId}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    const removed = await stream.next();
    expect(removed).toMatchObject({
      event: 'inbox.removed',
      json: { id: first.actionId, conversationId: first.conversationId },
    });

    // Back with the last id: nothing is sent again, only what changes next.
    stream.close();
    const looks = vi.spyOn(server.heed, 'inbox');
    const resumed = await follow(server, 'ada', removed.id);
    // It has taken its first look (which finds the state the id names) before the next change.
    await expect.poll(() => looks.mock.settledResults.length).toBeGreaterThan(0);
    looks.mockRestore();
    const third = await pause(server, 'ada');
    expect(await resumed.next()).toMatchObject({ event: 'inbox.added', json: { id: third.actionId } });

    // Back with an id of another state: the whole inbox again, then synced.
    const stale = await follow(server, 'ada', added.id);
    const snapshot = [await stale.next(), await stale.next(), await stale.next()];
    expect(snapshot.map((event) => [event.event, event.json.id ?? event.json.count])).toEqual([
      ['inbox.added', second.actionId],
      ['inbox.added', third.actionId],
      ['inbox.synced', 2],
    ]);
  });

  it('an anonymous caller owns nothing: an empty inbox, synced', async () => {
    const server = await startServer();
    cleanup.push(server.close);
    await pause(server, 'ada');
    const stream = await follow(server);
    expect(await stream.next()).toMatchObject({ event: 'inbox.synced', json: { count: 0 } });
  });
});
