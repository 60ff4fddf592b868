import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeApi, type ApiCall, type FakeApi } from '../channels/fake-api.js';
import {
  browserSkip,
  dock,
  newContext,
  sendMessage,
  signIn,
  startHarness,
  transcript,
  type Harness,
} from './harness.js';
import { outsideViewport, scrollsSideways, viewports } from './viewports.js';

// A conversation that lives in a chat platform on Chat SDK (Telegram here, docs/channels.md) as the console
// shows it, at a phone's and a laptop's width: the notice names the platform, the waiting request is read
// only, and Branch copies the history into a new console conversation. With HEED_SCREENSHOT_DIR set, the
// pictures of docs/console.md are saved there (channel-view.png, channel-view-phone.png).
const secretToken = 'telegram-secret-for-the-console';
const bot = { id: 999, is_bot: true, first_name: 'Heed', username: 'heedbot' };
const ada = { id: 111, is_bot: false, first_name: 'Ada', username: 'ada' };
let harness: Harness;
let telegram: FakeApi;
let nextId = 500;

beforeAll(async () => {
  telegram = await fakeApi((call) => {
    const method = call.path.split('/').at(-1);
    if (method === 'getMe') return { body: { ok: true, result: bot } };
    if (method === 'sendMessage' || method === 'editMessageText')
      return {
        body: {
          ok: true,
          result: { message_id: nextId++, chat: { id: Number(call.body.chat_id), type: 'group' }, from: bot, date: 1 },
        },
      };
    return undefined;
  });
  harness = await startHarness({
    channels: {
      telegram: {
        agent: 'refunds',
        botToken: '123:abc',
        secretToken,
        apiUrl: telegram.url,
        // The Telegram user who mentions the bot is Ada in Heed: the group's conversation is hers to read.
        userId: (user) => (user.id === String(ada.id) ? 'ada' : undefined),
      },
    },
    notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
  });
}, 60_000);
afterAll(async () => {
  await harness?.close();
  await telegram?.close();
});

/** A mention of the bot in a Telegram group of its own, through Heed's signed webhook; the conversation's id. */
async function mentionInTelegram(chatId: number, text: string): Promise<string> {
  const response = await fetch(`${harness.url}/api/channels/telegram/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secretToken },
    body: JSON.stringify({
      update_id: nextId++,
      message: {
        message_id: nextId++,
        from: ada,
        chat: { id: chatId, type: 'group', title: 'Support' },
        date: 1_700_000_000,
        text: `@heedbot ${text}`,
        entities: [{ type: 'mention', offset: 0, length: 8 }],
      },
    }),
  });
  expect(response.status).toBe(200);
  const posted = (call: ApiCall) =>
    call.path.endsWith('/sendMessage') &&
    call.body.chat_id === String(chatId) &&
    (call.body.reply_markup?.inline_keyboard?.length ?? 0) > 0;
  await telegram.until((calls) => calls.some(posted));
  const conversation = (await harness.server.heed.listConversations({})).find(
    (entry) => entry.channel === `telegram:${chatId}`,
  )!;
  expect(conversation.status).toBe('requires_action');
  return conversation.id;
}

async function texts(conversationId: string): Promise<string[]> {
  const { messages } = await harness.server.heed.conversation(conversationId).get();
  return messages
    .filter((message) => message.role !== 'tool')
    .map((message) => message.parts.map((part) => (part.type === 'text' ? part.text : '')).join(''))
    .filter(Boolean);
}

async function waitForOtherConversation(page: Page, from: string): Promise<string> {
  await page.waitForURL((url) => /\/c\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith(encodeURIComponent(from)));
  return decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
}

describe.skipIf(browserSkip)('a Telegram conversation in the console', { timeout: 60_000 }, () => {
  for (const viewport of viewports) {
    it(`names Telegram, shows the waiting approval without controls, and branches into a console chat (${viewport.name})`, async () => {
      const id = await mentionInTelegram(-100000 - viewport.width, 'refund order 42 for $30');
      const sent = telegram.calls.length;

      const context = await newContext(harness, viewport);
      const page = await context.newPage();
      await signIn(page, 'tok-ada');
      await page.goto(`/c/${encodeURIComponent(id)}`);
      const notice = page.getByRole('note').filter({
        hasText: 'This conversation happens in Telegram. Continue it there, or branch it into a new chat.',
      });
      await notice.waitFor();
      await transcript(page).getByText('refund order 42 for $30').waitFor();
      const waiting = page.getByRole('region', {
        name: /^Waiting for an answer in Telegram: Refund \$30 on order 42\?/,
      });
      await waiting.waitFor();
      await expect
        .poll(() => waiting.getByRole('definition').allTextContents())
        .toEqual(['42', '30', 'customer request']);
      await expect
        .poll(() => page.getByRole('status').filter({ hasText: 'Waiting for an answer in Telegram' }).count())
        .toBeGreaterThan(0);
      // Read only: no Allow or Deny, no message box, no Edit; nothing says Slack.
      await expect.poll(() => page.getByRole('button', { name: /^(Allow|Deny|Edit|Send)$/ }).count()).toBe(0);
      await expect.poll(() => page.getByRole('textbox', { name: 'Message' }).count()).toBe(0);
      await expect.poll(() => dock(page).count()).toBe(0);
      await expect.poll(() => page.getByText('Slack').count()).toBe(0);
      expect(
        await outsideViewport(page, page.locator('.channel-dock').locator('section, .channel-notice, button')),
      ).toEqual([]);
      expect(await scrollsSideways(page)).toBe(false);
      const shots = process.env.HEED_SCREENSHOT_DIR;
      if (shots) {
        await page.mouse.move(0, 0);
        await notice.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(shots, `channel-view${viewport.width < 760 ? '-phone' : ''}.png`) });
      }

      await notice.getByRole('button', { name: 'Branch' }).click();
      const branched = await waitForOtherConversation(page, id);
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      await transcript(page).getByText('refund order 42 for $30').waitFor();
      await expect.poll(() => page.getByRole('note').count()).toBe(0);
      const copy = await harness.server.heed.conversation(branched).get();
      expect(copy.conversation).toMatchObject({
        ownerId: 'ada',
        channel: null,
        metadata: { branchedFrom: id },
      });
      await expect.poll(() => texts(branched)).toEqual(await texts(id));
      await expect.poll(() => texts(branched)).toContain('refund order 42 for $30');
      // The branch is a console chat: its request is answered here, and nothing reaches Telegram.
      await sendMessage(page, 'refund order 7 for $3');
      await dock(page).getByRole('button', { name: 'Allow' }).click();
      await transcript(page)
        .getByText(/Refund done/)
        .waitFor();
      expect(telegram.calls.length).toBe(sent);
      expect((await harness.server.heed.conversation(id).get()).runtime.status).toBe('requires_action');
      await context.close();
    });
  }
});
