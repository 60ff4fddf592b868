import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../../test/http-fixtures.js';
import { channelAgent } from '../../../../test/channels/channel-agent.js';
import { fakeApi, type ApiCall, type FakeApi } from '../../../../test/channels/fake-api.js';
import { dropPrefix, redisClient, redisServer, testPrefix } from '../../../../test/redis.js';

/**
 * Telegram with Chat SDK's state in Redis (`channels.state.redis`, docs/channels.md), end to end: a local
 * fake of the Bot API, a real Redis server, keys under a prefix of this test's own.
 */

const secretToken = 'telegram-secret-for-tests';
const chat = { id: -100123, type: 'supergroup', title: 'Ops' };
const bot = { id: 999, is_bot: true, first_name: 'Heed', username: 'heedbot' };
const ada = { id: 111, is_bot: false, first_name: 'Ada', username: 'ada' };
const bob = { id: 222, is_bot: false, first_name: 'Bob', username: 'bob' };

let telegram: FakeApi;
let server: TestServer;
let ran: Map<string, number>;
let prefix: string;
let nextMessageId = 500;

beforeEach(async () => {
  prefix = testPrefix();
  telegram = await fakeApi((call) => {
    const method = call.path.split('/').at(-1);
    if (method === 'getMe') return { body: { ok: true, result: bot } };
    if (method === 'answerCallbackQuery') return { body: { ok: true, result: true } };
    if (method === 'sendMessage' || method === 'editMessageText')
      return {
        body: {
          ok: true,
          result: {
            message_id: method === 'editMessageText' ? call.body.message_id : nextMessageId++,
            chat,
            from: bot,
            date: 1_700_000_000,
            text: call.body.text,
          },
        },
      };
    return undefined;
  });
  ran = new Map();
  server = await startServer({
    agents: [channelAgent(ran)],
    channels: {
      telegram: { agent: 'support', botToken: '123:abc', secretToken, apiUrl: telegram.url },
      state: { redis: redisServer ?? 'redis://127.0.0.1:6379', keyPrefix: prefix },
    },
    notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
  });
});
afterEach(async () => {
  await server?.close();
  await telegram.close();
  if (redisServer) await dropPrefix(prefix);
});

const send = (update: Record<string, unknown>) =>
  fetch(`${server.url}/api/channels/telegram/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secretToken },
    body: JSON.stringify(update),
  });
const calls = (method: string) => telegram.calls.filter((call) => call.path.endsWith(`/${method}`));
const withKeyboard = (call: ApiCall) => (call.body.reply_markup?.inline_keyboard?.length ?? 0) > 0;
const shown = (call: ApiCall) => String(call.body.text ?? '').replace(/\\(\S)/g, '$1');

describe.skipIf(!redisServer)('Telegram with channels.state.redis', () => {
  it('answers a mention with the approval, keeps its subscription in Redis, and settles a click once', async () => {
    const mention = {
      update_id: 1,
      message: {
        message_id: nextMessageId++,
        from: ada,
        chat,
        date: 1_700_000_000,
        text: '@heedbot please refund order 42',
        entities: [{ type: 'mention', offset: 0, length: 8 }],
      },
    };
    expect((await send(mention)).status).toBe(200);
    // Sent again (Telegram retries until it has a 200): recorded once, by Heed, not refused by a claim in Redis.
    expect((await send(mention)).status).toBe(200);
    const [conversation] = await server.heed.listConversations({});
    expect(conversation).toMatchObject({ channel: `telegram:${chat.id}` });
    const snapshot = await server.heed.conversation(conversation.id).get();
    expect(snapshot.messages.filter((entry) => entry.role === 'user')).toHaveLength(1);

    await telegram.until(() => calls('sendMessage').some(withKeyboard));
    const request = calls('sendMessage').find(withKeyboard)!;
    expect(shown(request)).toContain('Approval needed: Run issue_refund?');

    // Chat SDK's state is in Redis, under the configured prefix; Heed's store holds none of it.
    const { client, close } = await redisClient();
    try {
      expect(await client.sIsMember(`${prefix}:subscriptions`, `telegram:${chat.id}`)).toBe(1);
      const keys: string[] = [];
      for await (const batch of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 100 })) keys.push(...batch);
      expect(keys.some((key) => key.includes('webhook-update'))).toBe(false);
    } finally {
      await close();
    }
    expect(await server.heed.store!.listValues(`chat:sub:telegram:${chat.id}`)).toEqual([]);

    const button = (request.body.reply_markup.inline_keyboard.flat() as { text: string; callback_data: string }[]).find(
      (entry) => entry.text === 'Allow',
    )!;
    const click = (updateId: number) => ({
      update_id: updateId,
      callback_query: {
        id: `cb${updateId}`,
        from: bob,
        chat_instance: 'ci',
        data: button.callback_data,
        message: { message_id: request.answer.result.message_id, chat, from: bot, date: 1_700_000_000, text: 'x' },
      },
    });
    expect((await send(click(2))).status).toBe(200);
    await telegram.until(() => calls('sendMessage').some((call) => shown(call).includes('Done.')));
    // Bob's same click again (a new update id, as a double click makes): it counted already; nothing runs or is said.
    expect((await send(click(3))).status).toBe(200);
    expect(ran.get('issue_refund')).toBe(1);
    const [action] = await server.heed.conversation(conversation.id).actions();
    expect(action).toMatchObject({ status: 'resolved', resolvedBy: 'telegram:222', channel: 'telegram' });
    await telegram.until(() => calls('editMessageText').length === 1);
    expect(calls('sendMessage').filter((call) => shown(call).includes('already settled'))).toEqual([]);
    expect(shown(calls('editMessageText')[0])).toContain('Allowed by @bob');
  });
});
