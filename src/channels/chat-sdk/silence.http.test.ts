import { afterEach, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { channelAgent } from '../../../test/channels/channel-agent.js';
import { fakeApi, type ApiCall, type FakeApi } from '../../../test/channels/fake-api.js';
import { memoryStore } from '../../store/memory/memory-store.js';
import type { Store } from '../../store/store.js';
import type { HeedConfig } from '../../config.js';
import { STORE_OUTAGE_TEXT } from '../channel.js';

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

async function start(extra: Partial<HeedConfig> = {}) {
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
    ...extra,
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
  const lapse = 'Nobody answered this request in time, so it lapsed.';
  await api!.until(() => posts().some((post) => shown(post) === lapse));
  expect(posts().filter((post) => shown(post) === lapse)).toHaveLength(1);
  expect(api!.calls.filter((call) => call.path.endsWith('/editMessageText'))).toHaveLength(1);
});

it('Telegram: a turn the store cuts off says it will carry on', async () => {
  const store = memoryStore();
  let cut = true;
  // The database goes away just as the agent's reply is written (the person's message is recorded).
  const flaky: Store = {
    ...store,
    commit: async (change) => {
      if (cut && change.messages?.some((entry) => entry.role === 'assistant')) {
        cut = false;
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      }
      return store.commit(change);
    },
  };
  const warnings: string[] = [];
  const { say } = await start({
    store: flaky,
    logger: { debug() {}, info() {}, warn: (_fields, message) => void warnings.push(String(message)), error() {} },
  });
  await say('@heedbot hello there');
  await api!.until(() => posts().length === 1);
  expect(shown(posts()[0])).toBe(STORE_OUTAGE_TEXT);
  expect(warnings.some((line) => line.includes('cut off by a store outage'))).toBe(true);
});
