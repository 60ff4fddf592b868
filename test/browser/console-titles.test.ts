import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserAgents } from '../fixtures/browser.config.js';
import { quorumAgent } from '../fixtures/quorum-agent.js';
import {
  browserSkip,
  dock,
  newContext,
  sendMessage,
  serverActions,
  signIn,
  startConversation,
  startHarness,
  transcript,
  type Harness,
} from './harness.js';
import { axeProblems, layoutReport, SIZES } from './page-checks.js';

// Conversations named by what they are about (their first message, or a title given), found by a
// search, and an inbox whose rows say what is asked, by whom and when, with Allow / Deny on the row
// for an approval one answer decides.

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({
    agents: [...browserAgents!, quorumAgent(() => undefined)],
    auth: {
      tokens: {
        'tok-ada': { userId: 'ada' },
        'tok-bob': { userId: 'bob' },
        'tok-cat': { userId: 'cat' },
        'tok-dan': { userId: 'dan' },
      },
    },
  });
}, 60_000);
afterAll(() => harness?.close());

async function api(method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(`${harness.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return response.json();
}

/** Opens the conversation list (the menu, on a phone). */
async function conversationList(page: Page, phone: boolean) {
  // Asked of the menu button, not the drawer: a drawer that is closing is still visible for 0.15 s.
  const menu = page.getByRole('button', { name: 'Conversations' });
  if (phone && (await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
  const list = page.getByRole('navigation', { name: 'Conversations' });
  await list.waitFor();
  return list;
}

const rowTitles = (page: Page) => page.locator('.conversation-list .conversation-title').allTextContents();

describe.skipIf(browserSkip)('titles, search and the inbox', { timeout: 90_000 }, () => {
  for (const size of SIZES) {
    const phone = size.width < 760;
    describe(`at ${size.width}×${size.height}`, () => {
      it('names each conversation by its first message (or the title it was given) and finds them by title or agent', async () => {
        const user = phone ? 'tok-cat' : 'tok-dan';
        const context = await newContext(harness, size);
        const page = await context.newPage();
        await signIn(page, user);
        const firsts = [
          'Refund order 1042 for $80, the parcel was damaged',
          'Refund order 7 for $12',
          'Where is my PARCEL?',
        ];
        for (const text of firsts) {
          await page.goto('/');
          await startConversation(page, 'refunds');
          await sendMessage(page, text);
          await dock(page).waitFor();
        }
        // One named by whoever started it.
        await api('POST', '/api/conversations', user, {
          agent: 'confirm',
          metadata: { title: 'Chairs for the new office' },
        });
        await page.goto('/');
        await startConversation(page, 'typed');
        await page.reload();

        // The conversation's own heading is its title, with the agent beside.
        await page.getByRole('heading', { name: 'typed', level: 1 }).waitFor();
        let list = await conversationList(page, phone);
        await expect
          .poll(() => rowTitles(page))
          .toEqual(['typed', 'Chairs for the new office', ...firsts.slice().reverse()]);
        await expect
          .poll(() => list.getByRole('link', { name: /Where is my PARCEL\?.*Waiting.*refunds/ }).count())
          .toBe(1);
        await list.getByRole('link', { name: /Refund order 7 for \$12/ }).click();
        await page.getByRole('heading', { name: 'Refund order 7 for $12', level: 1 }).waitFor();
        await expect.poll(() => page.locator('.chat-agent').textContent()).toBe('refunds');

        // Search: the title, ignoring case, or the agent's name.
        list = await conversationList(page, phone);
        const search = list.getByRole('searchbox', { name: 'Search conversations' });
        await search.fill('parcel');
        await expect.poll(() => rowTitles(page)).toEqual(['Where is my PARCEL?', firsts[0]]);
        await list.getByRole('list', { name: 'Conversations matching “parcel”' }).waitFor();
        await search.fill('CONFIRM');
        await expect.poll(() => rowTitles(page)).toEqual(['Chairs for the new office']);
        await search.fill('no such thing');
        await list.getByText('No conversation matches “no such thing”.').waitFor();
        expect(await axeProblems(page)).toEqual([]);
        expect((await layoutReport(page)).overflowing).toEqual([]);
        await search.fill('');
        await expect.poll(() => rowTitles(page)).toHaveLength(5);
        await context.close();
      });

      it('inbox rows say what is asked, by whom and when; Allow or Deny on the row answers through the normal route', async () => {
        const user = phone ? 'tok-ada' : 'tok-bob';
        const me = user.slice(4);
        const ask = async (agent: string, content: string, token = user) => {
          const { id } = await api('POST', '/api/conversations', token, { agent });
          const sent = await api('POST', `/api/conversations/${id}/messages`, token, { content });
          expect(sent.status).toBe('requires_action');
          return { id: id as string, actionId: sent.pendingActions[0].id as string };
        };
        const big = await ask('refunds', `Refund order 1042 for $${size.width % 400}`);
        const small = await ask('refunds', 'Refund order 9 for $9');
        await ask('confirm', 'ship it');
        // A four-eyes payment someone else asked for: the user is among those who vote on it.
        const requester = phone ? 'cat' : 'dan';
        await ask('payments', 'pay acme', `tok-${requester}`);

        const context = await newContext(harness, size);
        const page = await context.newPage();
        await signIn(page, user);
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Inbox/ }).click();
        const rows = page.getByRole('list', { name: 'Waiting on you' }).getByRole('listitem');
        const bigRow = rows.filter({ hasText: `Refund $${size.width % 400} on order 1042?` });
        await bigRow.waitFor();
        await expect
          .poll(() => bigRow.textContent())
          .toContain(`issue_refund: orderId 1042 · amount ${size.width % 400} · reason “customer request”`);
        await expect
          .poll(() => bigRow.textContent())
          .toMatch(
            new RegExp(
              `refunds · “Refund order 1042 for \\$${size.width % 400}” · asked by you · (just now|\\d+ min ago)`,
            ),
          );
        const question = rows.filter({ hasText: 'Ship the order today?' });
        await expect.poll(() => question.getByRole('button').count()).toBe(0);
        const vote = rows.filter({ hasText: 'Pay 100 to acme?' }).filter({ hasText: `asked by ${requester}` });
        await vote.waitFor();
        const approvers = ['ada', 'bob', 'cat', 'dan'].filter((name) => name !== requester).join(', ');
        await expect
          .poll(() => vote.textContent())
          .toContain(`0 of 2 approvals · waiting on ${approvers}. Open it to vote.`);
        await expect.poll(() => vote.getByRole('button').count()).toBe(0);
        expect(await axeProblems(page)).toEqual([]);
        const layout = await layoutReport(page);
        expect(layout.overflowing).toEqual([]);
        expect(layout.scrollHeight).toBe(layout.height);

        await bigRow.getByRole('button', { name: 'Allow' }).click();
        await expect
          .poll(async () => (await serverActions(harness, big.id, user))[0])
          .toMatchObject({ status: 'resolved', resolution: { decision: 'allow' }, resolvedBy: me });
        await expect.poll(() => bigRow.count()).toBe(0);
        await rows.filter({ hasText: 'Refund $9 on order 9?' }).getByRole('button', { name: 'Deny' }).click();
        await expect
          .poll(async () => (await serverActions(harness, small.id, user))[0])
          .toMatchObject({ status: 'resolved', resolution: { decision: 'deny' }, resolvedBy: me });
        await expect.poll(() => rows.filter({ hasText: 'Refund $9 on order 9?' }).count()).toBe(0);

        // The turn went on: the conversation shows the refund done.
        await page.goto(`/c/${big.id}`);
        await transcript(page)
          .getByText(`Refund done: {"refunded":${size.width % 400},"orderId":1042}`)
          .waitFor();
        await context.close();
      });
    });
  }
});
