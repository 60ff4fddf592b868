import { afterEach, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { channelAgent } from '../../../test/channels/channel-agent.js';
import { fakeApi, type ApiCall, type FakeApi } from '../../../test/channels/fake-api.js';

/**
 * Silence is not an answer (docs/channels.md): on a Chat SDK platform (Telegram here; every platform posts
 * through the same adapter code), a turn that fails and a request that lapses say so in the thread in one
 * plain sentence. Over real HTTP against a local fake of Telegram's Bot API, on a fake clock.
 */

const t0 = Date.parse('2026-03-02T09:00:00.000Z');
const chat = { id: -100123, type: 'supergroup', title: 'Ops' };
const bot = { id: 999, is_bot: true, first_name: 'Heed', username: 'heedbot' };
const ada = { id: 111, is_bot: false, first_name: 'Ada', username: 'ada' };
const secretToken = 'telegram-secret-for-tests';
let api: FakeApi | undefined;
let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  await api?.close();
});

async function start() {
  let nextMessageId = 500;
  let nextUpdateId = 1;
  api = await fakeApi((call) => {
    const method = call.path.split('/').at(-1);
    if (method === 'getMe') return { body: { ok: true, result: bot } };
    if (method === 'sendMessage' || method === 'sendRichMessage' || method === 'editMessageText')
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
  const clock = { now: t0 };
  server = await startServer({
    now: () => new Date(clock.now),
    agents: [channelAgent(new Map())],
    hitl: { timeoutMinutes: 30 },
    channels: { telegram: { agent: 'support', botToken: '123:abc', secretToken, apiUrl: api.url } },
    notify: { pollIntervalMs: 20, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
  });
  const say = async (text: string) => {
    const mention = { type: 'mention', offset: 0, length: 8 };
    const message = { message_id: nextMessageId++, from: ada, chat, date: 1_700_000_000, text, entities: [mention] };
    const response = await fetch(`${server!.url}/api/channels/telegram/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secretToken },
      body: JSON.stringify({ update_id: nextUpdateId++, message }),
    });
    expect(response.status).toBe(200);
  };
  return { clock, say };
}

const posts = () => api!.calls.filter((call) => /\/(sendMessage|sendRichMessage)$/.test(call.path));
// What a post reads, without MarkdownV2's escapes.
const shown = (call: ApiCall) =>
  String(call.body.text ?? call.body.rich_message?.markdown ?? '').replace(/\\(\S)/g, '$1');

it('Telegram: a turn whose model fails says so in the chat', async () => {
  const { say } = await start();
  await say('@heedbot please fail');
  await api!.until(() => posts().length === 1);
  expect(shown(posts()[0])).toBe(
    'The agent stopped before it could answer (error: model_error). Send your message again to retry.',
  );
});

it('Telegram: a request that lapses says so in the chat, besides its card', async () => {
  const { clock, say } = await start();
  await say('@heedbot please refund order 42');
  await api!.until(() => posts().length === 1);
  clock.now = t0 + 31 * 60_000;
  expect((await server!.heed.expireDue()).lapsed).toBe(1);
  await api!.until(() => posts().length === 2);
  expect(shown(posts()[1])).toBe('Nobody answered this request in time, so it lapsed.');
  expect(api!.calls.filter((call) => call.path.endsWith('/editMessageText'))).toHaveLength(1);
});
