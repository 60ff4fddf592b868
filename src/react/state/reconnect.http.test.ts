import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { cuttableFetch } from '../../../test/cuttable-fetch.js';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { createConversationStore, type ConversationStore } from './conversation-store.js';
import { createInboxStore, type InboxStore } from './inbox-store.js';

// The stores when their live stream is cut (the server stopped, the network dropped): they say
// "reconnecting" and, once back, show what happened meanwhile. Against a real server on loopback.
let server: TestServer | undefined;
const stores: Array<ConversationStore | InboxStore> = [];
afterEach(async () => {
  for (const store of stores.splice(0)) store.dispose();
  await server?.close();
});

async function until<T>(read: () => T, wanted: (value: T) => boolean, what: string): Promise<T> {
  for (let tries = 0; tries < 400; tries++) {
    if (wanted(read())) return read();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${what} never happened: ${JSON.stringify(read())}`);
}

describe('a cut live stream', () => {
  it('a conversation says reconnecting, and once back shows what happened meanwhile', async () => {
    server = await startServer();
    const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } })).body;
    const network = cuttableFetch();
    const store = createConversationStore(
      createClient({ baseUrl: server.url, token: 'ada', fetch: network.fetch }),
      id,
    );
    stores.push(store);
    expect(store.getState().connection).toBe('connecting');
    store.start();
    await until(store.getState, (state) => state.status === 'ready' && state.connection === 'live', 'live');

    network.cut();
    await until(store.getState, (state) => state.connection === 'reconnecting', 'reconnecting');
    // Meanwhile, in another tab: a message, a paused turn.
    expect(
      (
        await server.api('POST', `/api/conversations/${id}/messages`, {
          token: 'ada',
          body: { content: 'refund please' },
        })
      ).body.status,
    ).toBe('requires_action');
    // Sending from this page while cut fails with a sentence, and keeps nothing half-done.
    const refused = await store.send('are you there?');
    expect(refused).toMatchObject({ ok: false, error: { code: 'network_error' } });
    expect(store.getState().error?.message).toMatch(/could not be reached/);

    network.restore();
    const back = await until(
      store.getState,
      (state) => state.connection === 'live' && state.pendingActions.length === 1,
      'back with the pause',
    );
    expect(back.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(back.pendingActions[0]).toMatchObject({ kind: 'approval', toolName: 'issue_refund' });
    // The server is reachable again: the error that said otherwise is gone.
    expect(back.error).toBeUndefined();
  });

  it('the inbox says reconnecting, and once back holds exactly what waits', async () => {
    server = await startServer();
    const pause = async () => {
      const { id } = (await server!.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } }))
        .body;
      const sent = await server!.api('POST', `/api/conversations/${id}/messages`, {
        token: 'ada',
        body: { content: 'refund please' },
      });
      return { id: id as string, actionId: sent.body.pendingActions[0].id as string };
    };
    const first = await pause();
    const network = cuttableFetch();
    const store = createInboxStore(createClient({ baseUrl: server.url, token: 'ada', fetch: network.fetch }), {
      intervalMs: 3_600_000,
    });
    stores.push(store);
    store.start();
    await until(store.getState, (state) => state.connection === 'live' && state.actions.length === 1, 'live');

    network.cut();
    await until(store.getState, (state) => state.connection === 'reconnecting', 'reconnecting');
    const second = await pause();
    await server.api('POST', `/api/conversations/${first.id}/actions/${first.actionId}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'deny' } },
    });

    network.restore();
    const back = await until(
      store.getState,
      (state) => state.connection === 'live' && state.actions[0]?.id === second.actionId,
      'back',
    );
    expect(back.actions.map((action) => action.id)).toEqual([second.actionId]);
  });
});
