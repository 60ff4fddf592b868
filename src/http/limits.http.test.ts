import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { scriptedModel } from '../testing/index.js';
import { clientKey, RateLimiter } from './rate-limit.js';
import { engineOf } from '../heed.js';
import { memoryStore } from '../store/memory/memory-store.js';
import type { Store } from '../store/store.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const conversationCount = async (s: TestServer) => (await engineOf(s.heed).store.listConversations({})).length;

// An anonymous caller once made 50 conversations with 1 MiB of metadata each in 1.3 s.
describe('quotas', () => {
  it('limits.streamsPerCaller in the config of heed serve caps the streams one caller holds open', async () => {
    server = await startServer({ limits: { streamsPerCaller: 1 } });
    const created = await server.api('POST', '/api/conversations', { body: { agent: 'support' } });
    const path = `${server.url}/api/conversations/${created.body.id}/events/stream`;
    const first = new AbortController();
    const open = await fetch(path, { signal: first.signal });
    expect(open.status).toBe(200);
    const second = await fetch(path);
    expect(second.status).toBe(429);
    expect((await second.json()).error.code).toBe('rate_limited');
    first.abort();
    await open.body?.cancel().catch(() => undefined);
    // Once the server has seen the first one go, the slot is free again.
    await expect
      .poll(async () => {
        const again = await fetch(path, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
        await again?.body?.cancel().catch(() => undefined);
        return again?.status;
      })
      .toBe(200);
  });

  // Issue 38: a conversation grown to 15 MB cost 15 MB more per branch, as often as the rate limit allowed.
  it('a branch that would copy more than limits.maxBranchBytes gets 413 and makes nothing; from an earlier message it fits', async () => {
    server = await startServer({ limits: { maxBranchBytes: 30_000 } });
    const created = await server.api('POST', '/api/conversations', { body: { agent: 'support' } });
    const id = created.body.id;
    for (let index = 0; index < 4; index++) {
      const sent = await server.api('POST', `/api/conversations/${id}/messages`, {
        body: { content: `${index} ${'x'.repeat(10_000)}` },
      });
      expect(sent.status).toBe(200);
    }
    const read = await server.api('GET', `/api/conversations/${id}`);
    const firstUserMessage = read.body.messages.find((message: { role: string }) => message.role === 'user').id;
    expect(await conversationCount(server)).toBe(1);

    const refused = await server.api('POST', `/api/conversations/${id}/branch`, { body: {} });
    expect(refused.status).toBe(413);
    expect(refused.body.error).toMatchObject({
      code: 'payload_too_large',
      details: { limit: 'maxBranchBytes', maxBytes: 30_000 },
    });
    expect(refused.body.error.message).toContain('branch from an earlier message');
    expect(await conversationCount(server)).toBe(1);

    const fits = await server.api('POST', `/api/conversations/${id}/branch`, {
      body: { fromMessageId: firstUserMessage },
    });
    expect(fits.status).toBe(201);
    expect(await conversationCount(server)).toBe(2);
  });

  it('metadata over 16 KiB of JSON gets 413 metadata_too_large and creates nothing', async () => {
    server = await startServer();
    const refused = await server.api('POST', '/api/conversations', {
      body: { agent: 'support', metadata: { pad: 'x'.repeat(16 * 1024) } },
    });
    expect(refused.status).toBe(413);
    expect(refused.body.error).toMatchObject({
      code: 'metadata_too_large',
      details: { field: 'metadata', maxBytes: 16384 },
    });
    expect(refused.body.error.message).toContain('limits.maxMetadataBytes');
    expect(await conversationCount(server)).toBe(0);
    const fits = await server.api('POST', '/api/conversations', {
      body: { agent: 'support', metadata: { pad: 'x'.repeat(16 * 1024 - 20) } },
    });
    expect(fits.status).toBe(201);
  });

  it('60 anonymous conversations in a minute: the first 30 are made, the rest get 429 with Retry-After', async () => {
    server = await startServer();
    const statuses: number[] = [];
    let refusal: Awaited<ReturnType<TestServer['api']>> | undefined;
    const started = Date.now();
    for (let index = 0; index < 60; index++) {
      const response = await server.api('POST', '/api/conversations', { body: { agent: 'support' } });
      statuses.push(response.status);
      if (response.status === 429) refusal ??= response;
    }
    // The bucket gives one back every 2 s: on a slow machine a few more may get through, never more than that.
    const refilled = Math.floor((Date.now() - started) / 2000);
    const made = statuses.filter((status) => status === 201).length;
    expect(statuses.slice(0, 30).every((status) => status === 201)).toBe(true);
    expect(made).toBeLessThanOrEqual(30 + refilled);
    expect(statuses.filter((status) => status === 429)).toHaveLength(60 - made);
    expect(await conversationCount(server)).toBe(made);
    expect(refusal!.body.error.code).toBe('rate_limited');
    expect(refusal!.body.error.message).toContain('limits.conversationsPerMinute');
    // One token comes back every 2 s at 30 a minute.
    expect(Number(refusal!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refusal!.headers.get('retry-after'))).toBeLessThanOrEqual(2);

    // Branches and new AI SDK chats are new conversations too; reading and writing go on.
    const [first] = await engineOf(server.heed).store.listConversations({});
    expect((await server.api('POST', `/api/conversations/${first.id}/branch`, { body: {} })).status).toBe(429);
    const chat = await server.api('POST', '/api/ai-sdk/chat/support', {
      body: {
        id: 'chat_limited',
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
        trigger: 'submit-message',
      },
    });
    expect(chat.status).toBe(429);
    await expect(engineOf(server.heed).store.getConversation('chat_limited')).resolves.toBeUndefined();
    expect(
      (await server.api('POST', `/api/conversations/${first.id}/messages`, { body: { content: 'hello' } })).status,
    ).toBe(200);
  });

  it('counts each user on their own, and is configurable under limits (0 turns it off)', async () => {
    server = await startServer({ limits: { conversationsPerMinute: 3 } });
    const create = (token: string) => server!.api('POST', '/api/conversations', { token, body: { agent: 'support' } });
    const ada = [];
    for (let index = 0; index < 5; index++) ada.push((await create('ada')).status);
    expect(ada).toEqual([201, 201, 201, 429, 429]);
    expect((await create('bob')).status).toBe(201);
    await server.close();

    server = await startServer({ limits: { conversationsPerMinute: 0 } });
    for (let index = 0; index < 40; index++)
      expect((await server.api('POST', '/api/conversations', { body: { agent: 'support' } })).status).toBe(201);
  });

  it('a conversation holds at most limits.maxMessagesPerConversation messages: past it 400 message_limit_reached and no model call', async () => {
    let calls = 0;
    server = await startServer({
      agents: [{ name: 'echo', model: scriptedModel(() => (calls++, { text: 'Echo.' })) }],
      limits: { maxMessagesPerConversation: 4 },
    });
    const { body: created } = await server.api('POST', '/api/conversations', { body: { agent: 'echo' } });
    const send = () => server!.api('POST', `/api/conversations/${created.id}/messages`, { body: { content: 'hi' } });
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    const refused = await send();
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'message_limit_reached',
      details: { messages: 4, maxMessages: 4 },
    });
    expect(calls).toBe(2);
    expect(await engineOf(server.heed).store.listMessages(created.id)).toHaveLength(4);
  });
});

describe('what a refused answer costs', () => {
  it('an answer replayed on a settled action, or aimed at a hidden conversation, reads none of its messages', async () => {
    // A store that counts the message rows it hands out.
    const store = memoryStore();
    let messagesRead = 0;
    const counted: Store = {
      ...store,
      async listMessages(id, page) {
        const messages = await store.listMessages(id, page);
        messagesRead += messages.length;
        return messages;
      },
      async readConversation(id, parts) {
        const read = await store.readConversation(id, parts);
        messagesRead += read?.messages?.length ?? 0;
        return read;
      },
    };
    server = await startServer({ store: counted });
    const created = await server.api('POST', '/api/conversations', { body: { agent: 'support' }, token: 'ada' });
    const id = created.body.id;
    const paused = await server.api('POST', `/api/conversations/${id}/messages`, {
      body: { content: 'refund please' },
      token: 'ada',
    });
    const path = `/api/conversations/${id}/actions/${paused.body.pendingActions[0].id}`;
    const answer = { resolution: { type: 'approval', decision: 'allow' } };
    expect((await server.api('POST', path, { body: answer, token: 'ada' })).body.status).toBe('completed');

    messagesRead = 0;
    for (let i = 0; i < 20; i++) {
      const replayed = await server.api('POST', path, { body: answer, token: 'ada' });
      expect(replayed.status).toBe(409);
      expect(replayed.body.error.code).toBe('action_not_pending');
      const hidden = await server.api('POST', path, { body: answer, token: 'bob' });
      expect(hidden.status).toBe(404);
    }
    expect(messagesRead).toBe(0);
  });
});

describe('the rate limiter', () => {
  it('refills over the minute and says how long to wait', () => {
    let now = 0;
    const limiter = new RateLimiter(6, () => now);
    for (let index = 0; index < 6; index++) expect(limiter.take('a').ok).toBe(true);
    expect(limiter.take('a')).toEqual({ ok: false, retryAfterSeconds: 10 });
    now += 4_000;
    expect(limiter.take('a')).toEqual({ ok: false, retryAfterSeconds: 6 });
    now += 6_000;
    expect(limiter.take('a').ok).toBe(true);
    expect(limiter.take('a').ok).toBe(false);
    expect(limiter.take('b').ok).toBe(true);
  });

  it('keeps a bounded number of callers in memory however many addresses come by', () => {
    let now = 0;
    const limiter = new RateLimiter(30, () => now);
    for (let index = 0; index < 100_000; index++) {
      limiter.take(`address:${index}`);
      now += 1;
    }
    expect(limiter.size).toBeLessThanOrEqual(20_001);
  });

  it('counts an anonymous IPv6 caller by its /64 and an IPv4-mapped one by its IPv4 address', () => {
    expect(clientKey(null, '2001:db8:1:2:aaaa::1')).toBe(clientKey(null, '2001:db8:1:2:bbbb:cccc:dddd:eeee'));
    expect(clientKey(null, '2001:db8:1:2::1')).not.toBe(clientKey(null, '2001:db8:1:3::1'));
    expect(clientKey(null, '::ffff:10.0.0.1')).toBe('address:10.0.0.1');
    expect(clientKey('ada', '10.0.0.1')).toBe('user:ada');
  });
});
