/**
 * Attacks on the server's memory over real HTTP (issue 11, items 2 and 4): HEADs on the event stream,
 * clients that stop reading, many streams from one caller. Each measures the heap after a full
 * collection, with a backlog scaled down from the 15 MB so the test takes seconds.
 */
import { serve as listen } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { eventually, MB, settledMemory, stalledRequest, type StalledClient } from '../../test/memory-probe.js';
import { sseResponse } from './sse.js';
import { streamLimitDefaults } from './stream-limits.js';
import { engineOf } from '../heed.js';

const BACKLOG_BYTES = 8 * MB;

describe('event streams hold bounded memory', () => {
  let server: TestServer;
  let id: string;
  const clients: StalledClient[] = [];
  const streamPath = () => `/api/conversations/${id}/events/stream`;
  const listeners = () => engineOf(server.heed).bus.listenerCount();

  beforeAll(async () => {
    server = await startServer();
    id = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } })).body.id;
    // An 8 MB event log, written straight to the store (as a long-running conversation would have it).
    const text = 'x'.repeat(4000);
    for (let written = 0; written < BACKLOG_BYTES;) {
      const { version } = (await engineOf(server.heed).store.getConversation(id))!;
      const events = Array.from({ length: 100 }, () => ({
        type: 'text.delta' as const,
        data: { text },
        at: new Date().toISOString(),
      }));
      const result = await engineOf(server.heed).store.commit({ conversationId: id, expectVersion: version, events });
      expect(result.ok).toBe(true);
      written += 100 * text.length;
    }
  });
  afterAll(async () => {
    for (const client of clients) client.socket.destroy();
    await server.close();
  });

  const closeClients = async () => {
    for (const client of clients.splice(0)) client.socket.destroy();
    expect(await eventually(() => listeners() === 0)).toBe(true);
  };

  it('a HEAD on the event stream starts no follower and pins nothing', async () => {
    const before = await settledMemory();
    for (let i = 0; i < 10; i++) {
      const response = await fetch(`${server.url}${streamPath()}`, {
        method: 'HEAD',
        headers: { authorization: 'Bearer ada' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
    }
    // fixed wait kept: a HEAD starts nothing there is to wait for; a follower started by mistake would have queued the backlog by now
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(listeners()).toBe(0);
    const grown = (await settledMemory()) - before;
    // Before the fix each HEAD kept the whole backlog queued: 10 × 8 MB and more.
    expect(grown).toBeLessThan(4 * MB);
    // The HEADs took no stream slots for good: the caller can still open a full set.
    const opened = await Promise.all(
      Array.from({ length: streamLimitDefaults.maxPerCaller }, () =>
        stalledRequest(server.url, 'GET', streamPath(), 'ada'),
      ),
    );
    clients.push(...opened);
    expect(opened.map((client) => client.status)).toEqual(opened.map(() => 200));
    await closeClients();
  });

  it('clients that stop reading hold a page each, not the backlog; past the per-caller limit a stream gets 429', async () => {
    const before = await settledMemory();
    const tries = streamLimitDefaults.maxPerCaller + 4;
    for (let i = 0; i < tries; i++) clients.push(await stalledRequest(server.url, 'GET', streamPath(), 'ada'));
    const statuses = clients.map((client) => client.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(streamLimitDefaults.maxPerCaller);
    expect(statuses.filter((status) => status === 429)).toHaveLength(4);
    const refused = clients.find((client) => client.status === 429)!;
    expect(refused.head.toLowerCase()).toContain(`retry-after: ${streamLimitDefaults.retryAfterSeconds}`);
    // Let every follower go as far as its client lets it.
    // fixed wait kept: nothing outside the server shows a follower blocked on its client; the memory bound below is read after it
    await new Promise((resolve) => setTimeout(resolve, 500));
    const grown = (await settledMemory()) - before;
    // Before the fix every stream queued the whole 8 MB backlog (16 × 8 MB); now each holds about a page.
    expect(grown).toBeLessThan(16 * MB);
    expect(engineOf(server.heed).bus.listenerCount(id)).toBe(streamLimitDefaults.maxPerCaller * 2);

    const refusedBody = await fetch(`${server.url}${streamPath()}`, { headers: { authorization: 'Bearer ada' } });
    expect(refusedBody.status).toBe(429);
    expect(await refusedBody.json()).toMatchObject({
      error: { code: 'rate_limited', details: { limit: 'streamsPerCaller', max: streamLimitDefaults.maxPerCaller } },
    });
    // A stream POST counts too, and is refused before anything is recorded.
    const turn = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'hi', stream: true },
    });
    expect(turn.status).toBe(429);
    expect((await engineOf(server.heed).store.listMessages(id)).length).toBe(0);
    // The limit is per caller: someone else still gets a stream. (on a conversation of his own)
    const bobs = (await server.api('POST', '/api/conversations', { token: 'bob', body: { agent: 'support' } })).body.id;
    const bob = await stalledRequest(server.url, 'GET', `/api/conversations/${bobs}/events/stream`, 'bob');
    clients.push(bob);
    expect(bob.status).toBe(200);

    // A client that leaves without reading ends its follower: every listener is gone.
    await closeClients();
    const again = await stalledRequest(server.url, 'GET', streamPath(), 'ada');
    clients.push(again);
    expect(again.status).toBe(200);
    await closeClients();
  });

  it('a client that reads slowly still gets every event once, in order', async () => {
    const response = await fetch(`${server.url}${streamPath()}?after=1900`, {
      headers: { authorization: 'Bearer ada' },
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const ids: number[] = [];
    const { lastEventSeq } = (await engineOf(server.heed).store.getConversation(id))!;
    while (ids.at(-1) !== lastEventSeq) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      for (const match of text.matchAll(/^id: (\d+)$/gm)) ids.push(Number(match[1]));
      text = text.slice(text.lastIndexOf('\n\n') + 2);
      // fixed wait kept: the scenario is a client that reads slowly
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await reader.cancel();
    expect(ids).toEqual(Array.from({ length: lastEventSeq - 1900 }, (_, index) => 1901 + index));
    expect(await eventually(() => listeners() === 0)).toBe(true);
  });
});

describe('a stream that queues past its cap', () => {
  it('is dropped: the producer stops, the connection closes, the memory is freed', async () => {
    let ended = 0;
    let stoppedAt = -1;
    const app = new Hono();
    app.get('/push', (c) =>
      // A producer that pushes without waiting for the client (what the cap is there for).
      sseResponse(
        async (writer) => {
          const chunk = 'y'.repeat(8 * 1024);
          for (let i = 0; i < 2000; i++) {
            if (writer.signal.aborted) {
              stoppedAt = i;
              return;
            }
            writer.send({ data: chunk });
            if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
          }
        },
        {
          request: c.req.raw,
          maxQueuedBytes: 512 * 1024,
          onEnd: () => ended++,
          onDrop: () => (c.env as { outgoing: { destroy(): void } }).outgoing.destroy(),
          heartbeatMs: 0,
        },
      ),
    );
    const started = listen({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => started.once('listening', resolve));
    const url = `http://127.0.0.1:${(started.address() as AddressInfo).port}`;
    try {
      const before = await settledMemory();
      const client = await stalledRequest(url, 'GET', '/push', null);
      expect(client.status).toBe(200);
      const closed = new Promise((resolve) => client.socket.once('close', resolve));
      expect(await eventually(() => ended === 1)).toBe(true);
      // 2,000 × 8 KB = 16 MB would have been queued; the stream stopped early and let go of it.
      expect(stoppedAt).toBeGreaterThan(0);
      expect(stoppedAt).toBeLessThan(2000);
      client.socket.resume();
      await closed;
      expect((await settledMemory()) - before).toBeLessThan(4 * MB);
    } finally {
      await new Promise((resolve) => started.close(resolve));
    }
  });
});
