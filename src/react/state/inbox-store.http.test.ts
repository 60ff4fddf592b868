import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { createInboxStore, type InboxState, type InboxStore } from './inbox-store.js';

// The console's inbox (and heed/react's useInbox) against a real server on loopback, with polling
// pushed out of reach: whatever it learns, it learns from the inbox stream.
let server: TestServer | undefined;
let store: InboxStore | undefined;
afterEach(async () => {
  store?.dispose();
  await server?.close();
});

async function until(read: () => InboxState, wanted: (state: InboxState) => boolean): Promise<InboxState> {
  for (let tries = 0; tries < 250; tries++) {
    if (wanted(read())) return read();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`The inbox never got there: ${JSON.stringify(read())}`);
}

async function pause(api: TestServer['api']): Promise<{ conversationId: string; actionId: string }> {
  const conversation = await api('POST', '/api/conversations', { body: { agent: 'support' }, token: 'ada' });
  const sent = await api('POST', `/api/conversations/${conversation.body.id}/messages`, {
    body: { content: 'refund please' },
    token: 'ada',
  });
  return { conversationId: conversation.body.id, actionId: sent.body.pendingActions[0].id };
}

describe('the inbox store follows the inbox stream', () => {
  it('a request appears and, once answered elsewhere, leaves, with no polling', async () => {
    server = await startServer();
    const first = await pause(server.api);
    store = createInboxStore(createClient({ baseUrl: server.url, token: 'ada' }), { intervalMs: 3_600_000 });
    store.start();
    const opened = await until(store.getState, (state) => state.status === 'ready' && state.actions.length === 1);
    expect(opened.actions[0].id).toBe(first.actionId);

    const second = await pause(server.api);
    const both = await until(store.getState, (state) => state.actions.length === 2);
    expect(both.actions.map((action) => action.id)).toEqual([first.actionId, second.actionId]);

    const answered = await server.api('POST', `/api/conversations/${first.conversationId}/actions/${first.actionId}`, {
      body: { resolution: { type: 'approval', decision: 'deny' } },
      token: 'ada',
    });
    expect(answered.status).toBe(200);
    const left = await until(store.getState, (state) => state.actions.length === 1);
    expect(left.actions[0].id).toBe(second.actionId);
  });
});
