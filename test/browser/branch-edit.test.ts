import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeSlack, mention, sendToHeed, type FakeSlack } from '../slack/fake-slack.js';
import { browserAgents } from '../fixtures/browser.config.js';
import { scriptedModel } from '../../src/testing/index.js';
import {
  browserSkip,
  dock,
  newContext,
  sendMessage,
  signIn,
  startConversation,
  startHarness,
  transcript,
  type Harness,
} from './harness.js';
import { outsideViewport, shoot, viewports } from './viewports.js';

// Branch and edit in the console (issue 24, item 10; seed 000), at a phone's and a laptop's width: a web
// chat branches from any assistant message and edits a message of its own into a new chat; a Slack
// thread's conversation is read-only here, says where it lives, and branches into a private chat.
const secret = 'slack-signing-secret-for-the-console';
let harness: Harness;
let slack: FakeSlack;

/** Says back what it was told, so a transcript shows which messages a branch holds. */
const echo = {
  name: 'echo',
  description: 'Says back what you wrote.',
  model: scriptedModel(({ messages }) => {
    const last = messages.at(-1);
    const text =
      last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
    return { text: `You said: ${text}` };
  }),
};

beforeAll(async () => {
  slack = await fakeSlack();
  harness = await startHarness({
    agents: [...browserAgents, echo],
    channels: {
      slack: {
        botToken: 'xoxb-test',
        signingSecret: secret,
        agent: 'refunds',
        apiUrl: slack.apiUrl,
        // The Slack user who mentions the bot is Ada in Heed: the thread is hers to read in the console.
        userId: (user) => (user.id === 'U1' ? 'ada' : undefined),
      },
    },
    notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
  });
}, 60_000);
afterAll(async () => {
  await harness?.close();
  await slack?.close();
});

async function api(path: string, init: { method?: string; body?: unknown } = {}) {
  const response = await fetch(`${harness.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: 'Bearer tok-ada', 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return response.json();
}

/** The texts of a conversation's user and assistant messages, as the server holds them. */
async function texts(conversationId: string): Promise<string[]> {
  const { messages } = await api(`/api/conversations/${encodeURIComponent(conversationId)}`);
  return (messages as Array<{ role: string; parts: Array<{ type: string; text?: string }> }>)
    .filter((message) => message.role !== 'tool')
    .map((message) => message.parts.map((part) => part.text ?? '').join(''))
    .filter(Boolean);
}

async function waitForOtherConversation(page: Page, from: string): Promise<string> {
  await page.waitForURL((url) => /\/c\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith(encodeURIComponent(from)));
  return decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
}

async function twoExchanges(page: Page): Promise<string> {
  const id = await startConversation(page, 'echo');
  await sendMessage(page, 'first');
  await transcript(page).getByText('You said: first').waitFor();
  await sendMessage(page, 'second');
  await transcript(page).getByText('You said: second').waitFor();
  return id;
}

describe.skipIf(browserSkip)('branch and edit in the console', { timeout: 60_000 }, () => {
  for (const viewport of viewports) {
    it(`Branch from here copies the chat up to that answer into a new chat (${viewport.name})`, async () => {
      const context = await newContext(harness, viewport);
      const page = await context.newPage();
      await signIn(page, 'tok-ada');
      const original = await twoExchanges(page);
      const branchButtons = transcript(page).getByRole('button', { name: 'Branch from here' });
      await expect.poll(() => branchButtons.count()).toBe(2);
      await expect.poll(() => transcript(page).getByRole('button', { name: 'Edit' }).count()).toBe(2);
      expect(await outsideViewport(page, transcript(page).getByRole('button'))).toEqual([]);
      await shoot(page, 'branch-controls');

      await branchButtons.first().click();
      const branched = await waitForOtherConversation(page, original);
      await transcript(page).getByText('You said: first').waitFor();
      await expect.poll(() => transcript(page).getByText('You said: second').count()).toBe(0);
      await expect.poll(() => texts(branched)).toEqual(['first', 'You said: first']);
      expect((await api(`/api/conversations/${branched}`)).conversation).toMatchObject({
        ownerId: 'ada',
        channel: null,
        metadata: { branchedFrom: original },
      });
      // The original is as it was, and the branch carries on on its own.
      await expect.poll(() => texts(original)).toEqual(['first', 'You said: first', 'second', 'You said: second']);
      await sendMessage(page, 'third');
      await transcript(page).getByText('You said: third').waitFor();
      await expect.poll(() => texts(branched)).toEqual(['first', 'You said: first', 'third', 'You said: third']);
      await expect.poll(() => texts(original)).toHaveLength(4);
      await context.close();
    });

    it(`Edit sends the edited text in a new chat that starts just before the message (${viewport.name})`, async () => {
      const context = await newContext(harness, viewport);
      const page = await context.newPage();
      await signIn(page, 'tok-ada');
      const original = await twoExchanges(page);

      await transcript(page).getByRole('button', { name: 'Edit' }).nth(1).click();
      const box = transcript(page).getByRole('textbox', { name: 'Edit your message' });
      await expect.poll(() => box.inputValue()).toBe('second');
      expect(await outsideViewport(page, page.locator('.message-edit'))).toEqual([]);
      await shoot(page, 'edit-message');
      // Cancel leaves everything as it was.
      await transcript(page).getByRole('button', { name: 'Cancel' }).click();
      await expect.poll(() => box.count()).toBe(0);

      await transcript(page).getByRole('button', { name: 'Edit' }).nth(1).click();
      await box.fill('second, but better');
      await transcript(page).getByRole('button', { name: 'Send in a new chat' }).click();
      const edited = await waitForOtherConversation(page, original);
      await transcript(page).getByText('You said: second, but better').waitFor();
      await expect.poll(() => transcript(page).getByText('You said: second', { exact: true }).count()).toBe(0);
      await expect
        .poll(() => texts(edited))
        .toEqual(['first', 'You said: first', 'second, but better', 'You said: second, but better']);
      await expect.poll(() => texts(original)).toEqual(['first', 'You said: first', 'second', 'You said: second']);

      // Editing the first message: nothing comes before it, so the new chat holds the edited message alone.
      await transcript(page).getByRole('button', { name: 'Edit' }).first().click();
      await transcript(page).getByRole('textbox', { name: 'Edit your message' }).fill('zeroth');
      await transcript(page).getByRole('textbox', { name: 'Edit your message' }).press('Enter');
      const fresh = await waitForOtherConversation(page, edited);
      await transcript(page).getByText('You said: zeroth').waitFor();
      await expect.poll(() => texts(fresh)).toEqual(['zeroth', 'You said: zeroth']);
      expect((await api(`/api/conversations/${fresh}`)).conversation.metadata).toMatchObject({ branchedFrom: edited });
      await context.close();
    });

    it(`a Slack thread's conversation names Slack, shows its waiting request without controls, and branches into a private chat (${viewport.name})`, async () => {
      const before = (await harness.server.heed.listConversations({})).map((conversation) => conversation.id);
      const thread = `1700000${viewport.width}.000001`;
      expect((await sendToHeed(harness.url, secret, mention('refund order 42 for $30', { ts: thread }))).status).toBe(
        200,
      );
      await slack.until((calls) =>
        calls.some((call) => call.method === 'chat.postMessage' && call.body.thread_ts === thread),
      );
      const conversation = (await harness.server.heed.listConversations({})).find(
        (entry) => !before.includes(entry.id) && entry.channel?.endsWith(thread),
      )!;
      expect(conversation.status).toBe('requires_action');
      const postsBefore = slack.of('chat.postMessage').length;

      const context = await newContext(harness, viewport);
      const page = await context.newPage();
      await signIn(page, 'tok-ada');
      await page.goto(`/c/${encodeURIComponent(conversation.id)}`);
      const notice = page
        .getByRole('note')
        .filter({ hasText: 'This conversation happens in Slack. Continue it there, or branch it into a new chat.' });
      await notice.waitFor();
      const waiting = page.getByRole('region', { name: /^Waiting for an answer in Slack: Refund \$30 on order 42\?/ });
      await waiting.waitFor();
      await expect
        .poll(() => waiting.getByRole('definition').allTextContents())
        .toEqual(['42', '30', 'customer request']);
      await expect
        .poll(() => page.getByRole('status').filter({ hasText: 'Waiting for an answer in Slack' }).count())
        .toBeGreaterThan(0);
      // No controls: no Allow or Deny, no message box, no Edit (a channel's messages are written there); Branch from here stays.
      await expect.poll(() => page.getByRole('button', { name: /^(Allow|Deny|Edit|Send)$/ }).count()).toBe(0);
      await expect.poll(() => page.getByRole('textbox', { name: 'Message' }).count()).toBe(0);
      await expect.poll(() => dock(page).count()).toBe(0);
      expect(
        await outsideViewport(page, page.locator('.channel-dock').locator('section, .channel-notice, button')),
      ).toEqual([]);
      await shoot(page, 'channel-conversation');

      await notice.getByRole('button', { name: 'Branch' }).click();
      const branched = await waitForOtherConversation(page, conversation.id);
      // An ordinary private web chat now: the request arrived closed, and the message box is back.
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      await transcript(page)
        .getByRole('region', { name: /^Closed without an answer/ })
        .waitFor();
      await expect.poll(() => page.getByRole('note').count()).toBe(0);
      const copy = await api(`/api/conversations/${branched}`);
      expect(copy.conversation).toMatchObject({
        ownerId: 'ada',
        channel: null,
        status: 'idle',
        metadata: { branchedFrom: conversation.id },
      });
      expect(copy.pendingActions).toBeUndefined();
      await sendMessage(page, 'refund order 7 for $3');
      await dock(page).getByRole('heading', { name: 'Refund $3 on order 7?' }).waitFor();
      // Nothing written in the branch reached the thread, and the thread's request still waits there.
      expect(slack.of('chat.postMessage')).toHaveLength(postsBefore);
      expect((await harness.server.heed.conversation(conversation.id).get()).runtime.status).toBe('requires_action');
      await context.close();
    });
  }
});
