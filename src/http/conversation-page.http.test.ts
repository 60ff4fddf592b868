/**
 * Issue 11, item 4: `GET /api/conversations/:id` returns the newest page of messages, not the whole
 * conversation at once; earlier pages are read with `?before=`. A short conversation looks as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../client/index.js';
import { createConversationStore } from '../react/state/conversation-store.js';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { MB } from '../../test/memory-probe.js';
import type { MessageRecord } from '../types.js';
import { engineOf } from '../heed.js';

describe('a conversation read a page of messages at a time', () => {
  let server: TestServer;
  let long: string;
  const MESSAGES = 400;

  beforeAll(async () => {
    server = await startServer();
    long = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } })).body.id;
    // 400 messages of 8 KB: 3.2 MB of conversation, written straight to the store.
    const text = 'z'.repeat(8 * 1024);
    for (let first = 0; first < MESSAGES; first += 100) {
      const { version } = (await engineOf(server.heed).store.getConversation(long))!;
      const messages: MessageRecord[] = Array.from({ length: 100 }, (_, index) => ({
        id: `m_${String(first + index).padStart(4, '0')}`,
        conversationId: long,
        position: first + index,
        role: 'user',
        parts: [{ type: 'text', text }],
        metadata: null,
        createdAt: new Date().toISOString(),
      }));
      expect(
        (await engineOf(server.heed).store.commit({ conversationId: long, expectVersion: version, messages })).ok,
      ).toBe(true);
    }
  });
  afterAll(() => server.close());

  it('answers with the newest 100 messages, oldest first, and says earlier ones exist', async () => {
    const response = await server.api('GET', `/api/conversations/${long}`, { token: 'ada' });
    expect(response.status).toBe(200);
    expect(response.body.messages.map((message: { id: string }) => message.id)).toEqual(
      Array.from({ length: 100 }, (_, index) => `m_${String(300 + index).padStart(4, '0')}`),
    );
    expect(response.body.hasEarlierMessages).toBe(true);
    // A quarter of the conversation, not all of it.
    expect(response.text.length).toBeLessThan(1 * MB);
    expect(response.text.length).toBeGreaterThan(0.75 * MB);
  });

  it('reads every earlier page with ?before=, each message once, in order', async () => {
    const seen: string[] = [];
    let before: string | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const query = new URLSearchParams({ limit: '150', ...(before ? { before } : {}) });
      const { status, body } = await server.api('GET', `/api/conversations/${long}?${query}`, { token: 'ada' });
      expect(status).toBe(200);
      seen.unshift(...body.messages.map((message: { id: string }) => message.id));
      if (!body.hasEarlierMessages) break;
      before = body.messages[0].id;
    }
    expect(seen).toEqual(Array.from({ length: MESSAGES }, (_, index) => `m_${String(index).padStart(4, '0')}`));
    // The typed client asks the same way.
    const client = createClient({ baseUrl: server.url, token: 'ada' });
    const page = await client.getConversation(long, { before: 'm_0002', limit: 5 });
    expect(page.messages.map((message) => message.id)).toEqual(['m_0000', 'm_0001']);
    expect(page.hasEarlierMessages).toBeUndefined();
  });

  it("the console's conversation store shows the newest page and reads earlier ones on request", async () => {
    const store = createConversationStore(createClient({ baseUrl: server.url, token: 'ada' }), long, {
      runClientTools: false,
    });
    await store.refresh();
    expect(store.getState().messages).toHaveLength(100);
    expect(store.getState().hasEarlierMessages).toBe(true);
    for (const shown of [200, 300, 400]) {
      await store.loadEarlier();
      expect(store.getState().messages).toHaveLength(shown);
    }
    expect(store.getState().hasEarlierMessages).toBeFalsy();
    // A refresh keeps what was read: the newest page again, after the earlier ones.
    await store.refresh();
    expect(store.getState().messages.map((message) => message.id)).toEqual(
      Array.from({ length: MESSAGES }, (_, index) => `m_${String(index).padStart(4, '0')}`),
    );
    store.dispose();
  });

  it('refuses a limit out of range, and a before that names no message gives none', async () => {
    expect((await server.api('GET', `/api/conversations/${long}?limit=501`, { token: 'ada' })).status).toBe(400);
    expect((await server.api('GET', `/api/conversations/${long}?limit=0`, { token: 'ada' })).status).toBe(400);
    const unknown = await server.api('GET', `/api/conversations/${long}?before=m_nope`, { token: 'ada' });
    expect(unknown.status).toBe(200);
    expect(unknown.body.messages).toEqual([]);
  });

  it('a short conversation looks exactly as before: every message, no new field', async () => {
    const id = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'support' } })).body.id;
    await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content: 'refund' } });
    const { body } = await server.api('GET', `/api/conversations/${id}`, { token: 'ada' });
    expect(Object.keys(body).sort()).toEqual(['conversation', 'messages', 'pendingActions', 'runtime']);
    expect(body.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant']);
    expect(await server.heed.conversation(id).get({ caller: { userId: 'ada' } })).toEqual(body);
  });
});
