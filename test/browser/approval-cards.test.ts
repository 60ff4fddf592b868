import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAgents } from '../fixtures/browser.config.js';
import { quorumAgent, quorumTokens } from '../fixtures/quorum-agent.js';
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

// The approval cards of issue 26: who decides a four-eyes approval (item 5), and how an edited or denied
// approval reads once settled (item 6), at a phone's and a laptop's width.
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    agents: [...browserAgents, quorumAgent(() => undefined)],
    auth: { tokens: quorumTokens },
  });
}, 60_000);
afterAll(async () => {
  await harness?.close();
});

async function vote(token: string, conversationId: string, actionId: string, decision: 'allow' | 'deny') {
  const response = await fetch(`${harness.url}/api/conversations/${conversationId}/actions/${actionId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ resolution: { type: 'approval', decision } }),
  });
  return { status: response.status, body: await response.json() };
}

async function openAs(token: string, viewport: { width: number; height: number }, path?: string): Promise<Page> {
  const page = await (await newContext(harness, viewport)).newPage();
  await signIn(page, token);
  if (path) await page.goto(path);
  return page;
}

const status = (page: Page) => page.locator('.chat-head').getByRole('status');

describe.skipIf(browserSkip)('approval cards', { timeout: 60_000 }, () => {
  for (const viewport of viewports) {
    it(`four eyes: the requester sees whom it waits on and no controls; an approver who voted too; the one left decides (${viewport.name})`, async () => {
      const ada = await openAs('ada', viewport);
      const id = await startConversation(ada, 'payments');
      await sendMessage(ada, 'pay acme for the March invoice');
      const waiting = ada.getByRole('region', { name: /^Waiting for 2 of: bob, cat, dan: Pay 100 to acme\?/ });
      await waiting.waitFor();
      await expect
        .poll(() => waiting.textContent())
        .toContain('You asked for this, so someone else must approve it (four eyes).');
      await expect.poll(() => waiting.getByRole('definition').allTextContents()).toEqual(['acme', '100']);
      await expect.poll(() => status(ada).textContent()).toBe('Waiting for 2 of: bob, cat, dan');
      // Nothing to press: no card to answer, no Allow or Deny, no message box while the pause is open.
      await expect.poll(() => dock(ada).count()).toBe(0);
      await expect.poll(() => ada.getByRole('button', { name: /^(Allow|Deny)$/ }).count()).toBe(0);
      await expect.poll(() => ada.getByRole('textbox', { name: 'Message' }).count()).toBe(0);
      expect(await outsideViewport(ada, waiting.locator('h3, p, dl'))).toEqual([]);
      await shoot(ada, 'four-eyes-requester');

      // bob allows over HTTP: ada's page follows at once.
      const actionId = (
        await (
          await fetch(`${harness.url}/api/conversations/${id}/actions`, { headers: { authorization: 'Bearer ada' } })
        ).json()
      ).actions[0].id;
      expect((await vote('bob', id, actionId, 'allow')).status).toBe(200);
      const afterBob = ada.getByRole('region', { name: /^Waiting for 1 of: cat, dan: / });
      await afterBob.waitFor();
      await expect.poll(() => afterBob.textContent()).toContain('1 of 2 approvals: bob allowed · waiting on cat, dan');

      // bob, who owns nothing here, is known by the server's word (GET /api/me): his vote is given, so no controls.
      const bob = await openAs('bob', viewport, `/c/${encodeURIComponent(id)}`);
      const bobSees = bob.getByRole('region', { name: /^Waiting for 1 of: cat, dan: / });
      await bobSees.waitFor();
      await expect.poll(() => bobSees.textContent()).toContain('You allowed it; the others decide the rest.');
      await expect.poll(() => bob.getByRole('button', { name: /^(Allow|Deny)$/ }).count()).toBe(0);

      // cat may vote: the ordinary card, with the line saying whom it waits on.
      const cat = await openAs('cat', viewport, `/c/${encodeURIComponent(id)}`);
      const card = dock(cat);
      await card.getByRole('heading', { name: 'Pay 100 to acme?' }).waitFor();
      await expect.poll(() => card.textContent()).toContain('1 of 2 approvals: bob allowed · waiting on cat, dan');
      await expect.poll(() => status(cat).textContent()).toBe('Waiting for you');
      // A named approver may vote, not write or branch ada's conversation: no Edit, no Branch from here.
      await expect
        .poll(() =>
          transcript(cat)
            .getByRole('button', { name: /^(Edit|Branch from here)$/ })
            .count(),
        )
        .toBe(0);
      expect(await outsideViewport(cat, card.getByRole('button'))).toEqual([]);
      await shoot(cat, 'four-eyes-approver');
      await card.getByRole('button', { name: 'Allow' }).click();
      await transcript(cat).getByText('Done.').waitFor();

      // The requester's page ends with the settled card, naming the deciding approver.
      await transcript(ada).getByText('Done.').waitFor();
      await expect
        .poll(() =>
          transcript(ada)
            .getByRole('region', { name: /^Allowed: Pay 100 to acme\?/ })
            .textContent(),
        )
        .toContain('Allowed by cat');
      await Promise.all([ada, bob, cat].map((page) => page.context().close()));
    });

    it(`an edited approval reads as a diff of what was asked and what was approved; a deny says denied, with the comment (${viewport.name})`, async () => {
      const page = await openAs('ada', viewport);
      await startConversation(page, 'refunds');
      await sendMessage(page, 'refund order 42 for $30');
      const card = dock(page);
      await card.getByRole('button', { name: 'Edit arguments' }).click();
      await card.getByRole('spinbutton', { name: 'amount' }).fill('20');
      await card.getByRole('button', { name: 'Allow with changes' }).click();
      await transcript(page)
        .getByText(/Refund done: .*"refunded":20/)
        .waitFor();

      const settled = transcript(page).getByRole('region', {
        name: /^Allowed with changes: Refund \$30 on order 42\?/,
      });
      // The title was written for $30: it is marked as what was asked, and the table says what ran.
      await expect
        .poll(() => settled.locator('.heed-settled-title').textContent())
        .toBe('Asked: Refund $30 on order 42?');
      const diff = settled.getByRole('table', { name: 'What was asked, and what was approved' });
      const rows = await diff
        .getByRole('row')
        .evaluateAll((elements) => elements.map((row) => Array.from(row.children, (cell) => cell.textContent)));
      expect(rows).toEqual([
        ['Argument', 'Asked', 'Approved'],
        ['orderId', '42', '42'],
        ['amount', '30', '20'],
        ['reason', 'customer request', 'customer request'],
      ]);
      await expect.poll(() => diff.locator('del').allTextContents()).toEqual(['30']);
      await expect.poll(() => diff.locator('ins').allTextContents()).toEqual(['20']);
      expect(await outsideViewport(page, diff.locator('th, td'))).toEqual([]);
      await settled.scrollIntoViewIfNeeded();
      await shoot(page, 'settled-diff');

      await sendMessage(page, 'refund order 9 for $10');
      await card.getByRole('textbox', { name: 'Comment (optional)' }).fill('Not without a receipt.');
      await card.getByRole('button', { name: 'Deny' }).click();
      await transcript(page)
        .getByText(/No refund: .*Not without a receipt\./)
        .waitFor();
      // The call reads as denied, with the comment, never as a failure.
      const chips = () => transcript(page).locator('.message-tool summary').allTextContents();
      await expect.poll(async () => (await chips()).at(-1)).toBe('issue_refund denied: “Not without a receipt.”');
      await expect.poll(async () => (await chips()).some((text) => text.includes('failed'))).toBe(false);
      await expect
        .poll(() =>
          transcript(page)
            .getByRole('region', { name: /^Denied: Refund \$10 on order 9\?/ })
            .textContent(),
        )
        .toContain('Not without a receipt.');
      await shoot(page, 'denied');
      await page.context().close();
    });
  }
});
