import { createHmac } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { channelAgent } from '../../../test/channels/channel-agent.js';
import { fakeApi, type ApiCall, type FakeApi } from '../../../test/channels/fake-api.js';

/**
 * A reminder before a request lapses (hitl.remind, docs/approvals.md) in the Chat SDK thread the request was
 * posted in (docs/channels.md), on a fake clock: a reply saying it still waits and when it lapses, sent once;
 * none once the request is answered. Over real HTTP against local fakes of Telegram's and GitHub's APIs.
 */

const t0 = Date.parse('2026-03-02T09:00:00.000Z');
const hitl = { timeoutMinutes: 120, remind: { beforeMinutes: [60, 30] } };
const notify = { pollIntervalMs: 20, retry: { firstDelayMs: 50, maxDelayMs: 200 } };
const lapses = 'It lapses at 2026-03-02 11:00 UTC if nobody answers.';
let api: FakeApi | undefined;
let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  await api?.close();
});

it('Telegram: the reminder is a reply in the request’s chat, sent once; none after the request is answered', async () => {
  const chat = { id: -100123, type: 'supergroup', title: 'Ops' };
  const bot = { id: 999, is_bot: true, first_name: 'Heed', username: 'heedbot' };
  const ada = { id: 111, is_bot: false, first_name: 'Ada', username: 'ada' };
  const bob = { id: 222, is_bot: false, first_name: 'Bob', username: 'bob' };
  let nextMessageId = 500;
  let nextUpdateId = 1;
  api = await fakeApi((call) => {
    const method = call.path.split('/').at(-1);
    if (method === 'getMe') return { body: { ok: true, result: bot } };
    if (method === 'answerCallbackQuery') return { body: { ok: true, result: true } };
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
  const secretToken = 'telegram-secret-for-tests';
  server = await startServer({
    now: () => new Date(clock.now),
    agents: [channelAgent(new Map())],
    hitl,
    channels: { telegram: { agent: 'support', botToken: '123:abc', secretToken, apiUrl: api.url } },
    notify,
  });
  const send = (update: Record<string, unknown>) =>
    fetch(`${server!.url}/api/channels/telegram/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secretToken },
      body: JSON.stringify(update),
    });
  const posts = () => api!.calls.filter((call) => /\/(sendMessage|sendRichMessage)$/.test(call.path));
  // What a post reads, without MarkdownV2's escapes.
  const shown = (call: ApiCall) =>
    String(call.body.text ?? call.body.rich_message?.markdown ?? '').replace(/\\(\S)/g, '$1');
  const text = '@heedbot please refund order 42';
  const mention = { type: 'mention', offset: 0, length: 8 };
  const message = { message_id: nextMessageId++, from: ada, chat, date: 1_700_000_000, text, entities: [mention] };
  expect((await send({ update_id: nextUpdateId++, message })).status).toBe(200);
  await api.until(() => posts().length === 1);
  const request = posts()[0];

  clock.now = t0 + 60 * 60_000;
  expect((await server.heed.expireDue()).reminded).toBe(1);
  expect((await server.heed.expireDue()).reminded).toBe(0);
  await api.until(() => posts().length === 2);
  const reminder = posts()[1];
  expect(reminder.body.chat_id).toBe(String(chat.id));
  expect(shown(reminder)).toContain('Reminder:');
  expect(shown(reminder)).toContain('Run issue_refund?');
  expect(shown(reminder)).toContain(lapses);
  // The posted request is left as it is: a reminder edits nothing.
  expect(api.calls.filter((call) => call.path.endsWith('/editMessageText'))).toEqual([]);

  // Answered: the second reminder's time comes, and nothing more is sent for it.
  const allow = (request.body.reply_markup.inline_keyboard.flat() as { text: string; callback_data: string }[]).find(
    (button) => button.text === 'Allow',
  )!;
  const answer = {
    id: 'cb1',
    from: bob,
    chat_instance: 'ci',
    data: allow.callback_data,
    message: { message_id: request.answer.result.message_id, chat, from: bot, date: 1_700_000_000, text: 'x' },
  };
  expect((await send({ update_id: nextUpdateId++, callback_query: answer })).status).toBe(200);
  await api.until(() => posts().some((call) => shown(call).includes('Done.')));
  clock.now = t0 + 90 * 60_000;
  expect((await server.heed.expireDue()).reminded).toBe(0);
  // The outbox holds the one reminder, sent; nothing is planned for the answered request.
  const reminders = (await server.heed.store!.listDeliveries({})).filter((entry) => entry.event === 'action.reminder');
  expect(reminders.map((entry) => [entry.target.type, entry.status])).toEqual([['channel', 'delivered']]);
  expect(posts().filter((call) => shown(call).includes('Reminder:'))).toHaveLength(1);
});

it('GitHub: the reminder is a comment on the request’s issue, sent once', async () => {
  const bot = { id: 999, login: 'heed-bot', type: 'Bot' };
  const ada = { id: 111, login: 'ada', type: 'User' };
  let nextCommentId = 9000;
  api = await fakeApi((call) => {
    const comment = (id: number) => ({
      id,
      body: call.body?.body,
      user: bot,
      created_at: '2026-03-02T09:00:00Z',
      updated_at: '2026-03-02T09:00:00Z',
      html_url: `https://github.com/acme/shop/issues/7#issuecomment-${id}`,
    });
    if (call.method === 'GET' && call.path === '/user') return { body: bot };
    if (call.method === 'POST' && /^\/repos\/acme\/shop\/issues\/\d+\/comments$/.test(call.path))
      return { status: 201, body: comment(nextCommentId++) };
    return undefined;
  });
  const clock = { now: t0 };
  const webhookSecret = 'github-webhook-secret-for-tests';
  server = await startServer({
    now: () => new Date(clock.now),
    agents: [channelAgent(new Map())],
    hitl,
    channels: {
      github: { agent: 'support', token: 'ghp_test', webhookSecret, userName: 'heed-bot', apiUrl: api.url },
    },
    notify,
  });
  const body = JSON.stringify({
    action: 'created',
    issue: { number: 7, title: 'Refund order 42', user: ada },
    comment: {
      id: 100,
      body: '@heed-bot please refund order 42',
      user: ada,
      created_at: '2026-03-02T09:00:00Z',
      updated_at: '2026-03-02T09:00:00Z',
      html_url: 'https://github.com/acme/shop/issues/7#issuecomment-100',
    },
    repository: { id: 1, name: 'shop', full_name: 'acme/shop', owner: { id: 5, login: 'acme' } },
    sender: ada,
  });
  const sent = await fetch(`${server.url}/api/channels/github/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issue_comment',
      'x-github-delivery': 'd-1',
      'x-hub-signature-256': `sha256=${createHmac('sha256', webhookSecret).update(body).digest('hex')}`,
    },
    body,
  });
  expect(sent.status).toBe(200);
  const posts = () => api!.calls.filter((call) => call.method === 'POST' && call.path.endsWith('/comments'));
  await api.until(() => posts().length === 1);

  clock.now = t0 + 60 * 60_000;
  expect((await server.heed.expireDue()).reminded).toBe(1);
  expect((await server.heed.expireDue()).reminded).toBe(0);
  await api.until(() => posts().length === 2);
  const reminder = posts()[1];
  expect(reminder.path).toBe('/repos/acme/shop/issues/7/comments');
  expect(reminder.body.body).toContain('Reminder:');
  expect(reminder.body.body).toContain(lapses);
  expect(api.calls.filter((call) => call.method === 'PATCH')).toEqual([]);
});
