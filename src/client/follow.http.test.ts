import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from 'heed/client';
import { cuttableFetch } from '../../test/cuttable-fetch.js';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import type { EventRecord } from '../types.js';

// client.follow over a network a test can cut: it says when the stream is lost and back, and resumes
// where it stopped (no event missed, none twice).
let server: TestServer | undefined;
const stops: AbortController[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop.abort();
  await server?.close();
});

async function until(check: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 300; tries++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`Never happened: ${what}`);
}

function following(
  network: ReturnType<typeof cuttableFetch>,
  conversationId: string,
  options: { idleMs?: number } = {},
) {
  const client = createClient({ baseUrl: server!.url, token: 'ada', fetch: network.fetch });
  const stop = new AbortController();
  stops.push(stop);
  const seen: EventRecord[] = [];
  const connection: string[] = [];
  void (async () => {
    for await (const event of client.follow(conversationId, {
      signal: stop.signal,
      retryMs: 50,
      onConnection: (state) => connection.push(state),
      ...options,
    }))
      seen.push(event);
  })().catch((thrown: unknown) => connection.push(`failed: ${String(thrown)}`));
  return { seen, connection };
}

describe('client.follow', () => {
  it('says the stream was lost, keeps trying while the server is away, and resumes without a gap or a repeat', async () => {
    server = await startServer();
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } })).body;
    const network = cuttableFetch();
    const { seen, connection } = following(network, id);
    await until(() => connection.includes('open'), 'the stream opened');
    await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content: 'hello' } });
    await until(() => seen.some((event) => event.type === 'turn.completed'), 'the first turn arrived');

    network.cut();
    await until(() => connection.at(-1) === 'lost', 'the loss was told');
    // While it is cut, the conversation goes on; the follower tries again and again, told once.
    await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content: 'still there?' } });
    const tried = network.refused;
    await until(() => network.refused >= tried + 3, 'three more tries while cut');
    expect(connection).toEqual(['open', 'lost']);

    network.restore();
    await until(() => seen.filter((event) => event.type === 'turn.completed').length === 2, 'the missed turn arrived');
    expect(connection).toEqual(['open', 'lost', 'open']);
    const seqs = seen.map((event) => event.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1));
  });

  it('opens a connection again when it brings nothing for idleMs (a proxy that hangs)', async () => {
    server = await startServer();
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } })).body;
    const network = cuttableFetch();
    const { seen, connection } = following(network, id, { idleMs: 300 });
    await until(() => connection.includes('open'), 'the stream opened');
    network.stall();
    await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content: 'hello' } });
    await until(() => connection.includes('lost'), 'the silence was taken as a cut');
    expect(seen).toEqual([]);
    network.restore();
    await until(() => seen.some((event) => event.type === 'turn.completed'), 'the turn arrived on a new connection');
    expect(network.streamsOpened).toBeGreaterThanOrEqual(2);
  });
});
