import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tool } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { browserAgents } from '../fixtures/browser.config.js';
import { webhookReceiver } from '../notify/receivers.js';
import {
  browserSkip,
  dock,
  newContext,
  sendMessage,
  signIn,
  startConversation,
  startHarness,
  type Harness,
} from './harness.js';
import { axeProblems, layoutReport, SIZES, transcriptShare, wholeInView } from './page-checks.js';
import type { Page } from 'playwright-core';

// Every page of the console at a phone's size (390×844) and a laptop's (1280×800): the boxes fit the
// screen (nothing wider than it, the page itself never scrolls: one scrollbar, the transcript's or the
// page's), the transcript keeps room while a card is docked, and axe-core finds no serious or critical
// violation.

/**
 * With a card docked (any kind, arguments being edited too), the transcript keeps this share of the
 * screen's height, or shows all its messages when they take less.
 */
const TRANSCRIPT_SHARE = 0.45;

async function expectTranscriptKept(page: Page, where: string): Promise<void> {
  const { shown, content } = await transcriptShare(page);
  expect(
    shown,
    `${where}: the transcript's share of the screen (its messages need ${content.toFixed(2)})`,
  ).toBeGreaterThanOrEqual(Math.min(TRANSCRIPT_SHARE, content - 0.002));
}

/**
 * Waits until the page is at rest: no CSS transition runs (the phone's drawer slides), and the room the
 * transcript keeps (set from its messages' height by a ResizeObserver, ui/src/pages/conversation.tsx)
 * matches what its messages need now.
 */
async function layoutAtRest(page: Page): Promise<void> {
  await expect
    .poll(() =>
      page.evaluate(() => {
        if (document.getAnimations().some((animation) => animation instanceof CSSTransition))
          return 'a transition runs';
        const element = document.querySelector<HTMLElement>('.transcript-scroll');
        if (!element) return 'no transcript';
        const content = Array.from(element.children).reduce(
          (sum, child) => sum + (child as HTMLElement).offsetHeight,
          0,
        );
        const kept = element.style.getPropertyValue('--transcript-keep');
        return kept === `min(46dvh, ${Math.ceil(content)}px)` ? 'at rest' : `keeps ${kept} for ${content}px`;
      }),
    )
    .toBe('at rest');
}

const secret = `whsec_${Buffer.from('a test secret of thirty-two bytes!').toString('base64')}`;
/** An agent whose client tool no page handles: its card stays docked. */
const kiosk = {
  name: 'kiosk',
  description: 'Asks the page for its kiosk id (no page here can tell).',
  model: scriptedModel(() => ({ toolCalls: [{ toolName: 'kiosk_id', input: { why: 'label the receipt' } }] })),
  tools: {
    kiosk_id: tool({
      inputSchema: z.object({ why: z.string() }),
      outputSchema: z.object({ id: z.string() }),
      client: { kind: 'kiosk' },
    }),
  },
};

let harness: Harness;
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
beforeAll(async () => {
  receiver = await webhookReceiver();
  harness = await startHarness({
    agents: [...browserAgents!, kiosk],
    notify: { webhooks: [{ url: receiver.url, secret, events: ['action.required'] }], pollIntervalMs: 50 },
  });
}, 60_000);
afterAll(async () => {
  await harness?.close();
  await receiver?.close();
});

/** Everything a page must hold to: it fits, the top bar's buttons are in view, and axe is content. */
async function expectFits(page: Page, where: string): Promise<void> {
  const layout = await layoutReport(page);
  expect(layout.overflowing, `${where}: boxes past the screen's edge`).toEqual([]);
  expect(layout.scrollWidth, `${where}: the page scrolls sideways`).toBe(layout.width);
  expect(layout.scrollHeight, `${where}: the page itself scrolls (a second scrollbar)`).toBe(layout.height);
  expect(await axeProblems(page), `${where}: axe-core`).toEqual([]);
}

async function expectTopBar(page: Page, phone: boolean): Promise<void> {
  for (const selector of ['.brand', '.topnav a[href="/inbox"]', '.sign-out'])
    expect(await wholeInView(page, selector), selector).toBe(true);
  await expect.poll(() => page.locator('.menu-button').isVisible()).toBe(phone);
  await expect.poll(() => page.locator('.topbar > .who').isVisible()).toBe(!phone);
}

describe.skipIf(browserSkip)('the console fits the screen', { timeout: 90_000 }, () => {
  for (const size of SIZES) {
    const phone = size.width < 760;
    describe(`at ${size.width}×${size.height}`, () => {
      it('sign-in, home and inbox pages', async () => {
        const context = await newContext(harness, size);
        const page = await context.newPage();
        await page.goto('/sign-in');
        await page.getByLabel('Access token').waitFor();
        await expectFits(page, 'sign-in');
        await signIn(page, 'tok-ada');
        await expectTopBar(page, phone);
        await expectFits(page, 'home');
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Inbox/ }).click();
        await page.getByRole('heading', { name: 'Inbox' }).waitFor();
        await page
          .getByText(/Nothing is waiting on you|waiting on you\./)
          .first()
          .waitFor();
        await expectTopBar(page, phone);
        await expectFits(page, 'inbox');
        await context.close();

        // Anonymous, the top bar offers Sign in in the same place.
        const anonymous = await newContext(harness, size);
        const other = await anonymous.newPage();
        await signIn(other);
        await other.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
        await expectTopBar(other, phone);
        await expectFits(other, 'home, anonymous');
        await anonymous.close();
      });

      it('a conversation with each kind of card docked keeps the transcript usable', async () => {
        const context = await newContext(harness, size);
        const page = await context.newPage();
        await signIn(page, 'tok-ada');
        const cases: Array<{ agent: string; say: string; card: RegExp }> = [
          { agent: 'intake', say: 'hello', card: /Question 1 of 3/ },
          { agent: 'confirm', say: 'ship order 7', card: /Ship the order today\?/ },
          { agent: 'multi', say: 'a pizza', card: /Which toppings do you want\?/ },
          { agent: 'refunds', say: 'Refund order 1042 for $80', card: /Refund \$80 on order 1042\?/ },
          { agent: 'linker', say: 'connect me', card: /Connect your Example account/ },
          { agent: 'kiosk', say: 'print a receipt', card: /kiosk_id/ },
        ];
        for (const { agent, say, card } of cases) {
          await page.goto('/');
          await startConversation(page, agent);
          // A few messages first, so the transcript has something to show.
          if (agent === 'refunds') {
            for (const amount of [11, 12]) {
              await sendMessage(page, `Refund order ${amount} for $${amount}`);
              await dock(page).getByRole('button', { name: 'Allow' }).click();
              await page.getByRole('textbox', { name: 'Message' }).waitFor();
            }
          }
          await sendMessage(page, say);
          await dock(page).getByText(card).first().waitFor();
          await layoutAtRest(page);
          await expectTranscriptKept(page, agent);
          await expectTopBar(page, phone);
          await expectFits(page, `${agent}'s card`);
          if (agent === 'refunds') {
            await dock(page).getByRole('button', { name: 'Edit arguments' }).click();
            await dock(page).getByRole('spinbutton', { name: 'amount' }).waitFor();
            // Two exchanges before it: more than the transcript's share, which it keeps.
            const { shown, content } = await transcriptShare(page);
            expect(content).toBeGreaterThan(TRANSCRIPT_SHARE);
            expect(shown, 'editing arguments').toBeGreaterThanOrEqual(TRANSCRIPT_SHARE);
            await expectFits(page, 'editing arguments');
            // The card scrolls inside the dock; its buttons stay in view.
            expect(await wholeInView(page, '.dock .heed-actions')).toBe(true);
            await dock(page).getByRole('spinbutton', { name: 'amount' }).fill('60');
            await dock(page).getByRole('button', { name: 'Allow with changes' }).click();
            await page.getByText('Refund done: {"refunded":60,"orderId":1042}').waitFor();
          }
        }
        await context.close();
      });

      it("the answer link's page", async () => {
        const conversation = await (
          await fetch(`${harness.url}/api/conversations`, {
            method: 'POST',
            headers: { authorization: 'Bearer tok-ada', 'content-type': 'application/json' },
            body: JSON.stringify({ agent: 'refunds' }),
          })
        ).json();
        await fetch(`${harness.url}/api/conversations/${conversation.id}/messages`, {
          method: 'POST',
          headers: { authorization: 'Bearer tok-ada', 'content-type': 'application/json' },
          body: JSON.stringify({ content: `refund order ${size.width} for $25` }),
        });
        const calls = await receiver.until((entries) =>
          entries.some((entry) => JSON.parse(entry.body).data.action.conversationId === conversation.id),
        );
        const body = JSON.parse(
          calls.find((entry) => JSON.parse(entry.body).data.action.conversationId === conversation.id)!.body,
        );
        const context = await newContext(harness, size);
        const page = await context.newPage();
        await page.goto(body.data.links.allow);
        await page.getByRole('heading', { name: `Refund $25 on order ${size.width}?` }).waitFor();
        await expectFits(page, 'answer link page');
        await context.close();
      });

      if (phone) {
        it('the menu opens the conversations, a waiting one is a tap away, and the inbox is in the top bar', async () => {
          const context = await newContext(harness, size);
          const page = await context.newPage();
          await signIn(page, 'tok-bob');
          await startConversation(page, 'confirm');
          await sendMessage(page, 'Ship the blue chairs');
          await dock(page).waitFor();
          await page.goto('/');
          await startConversation(page, 'typed');
          // The list is out of the way until the menu opens it.
          const list = page.getByRole('navigation', { name: 'Conversations' });
          await expect.poll(() => list.isVisible()).toBe(false);
          const menu = page.getByRole('button', { name: 'Conversations' });
          await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('false');
          await menu.click();
          await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('true');
          await list.waitFor();
          await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('conversation-search');
          // The drawer slides in (0.15 s): measured once it is in place.
          await expect.poll(async () => (await list.boundingBox())?.x).toBe(0);
          await expectFits(page, 'the open menu');
          const waiting = list.getByRole('link', { name: /Ship the blue chairs.*Waiting/ });
          await waiting.waitFor();
          // Escape closes it and gives the keyboard back to the menu button.
          await page.keyboard.press('Escape');
          await expect.poll(() => list.isVisible()).toBe(false);
          await expect
            .poll(() => page.evaluate(() => document.activeElement?.classList.contains('menu-button')))
            .toBe(true);
          await menu.click();
          await waiting.click();
          await page.getByRole('heading', { name: 'Ship the blue chairs', level: 1 }).waitFor();
          await expect.poll(() => list.isVisible()).toBe(false);
          await dock(page)
            .getByRole('radio', { name: /Ship today/ })
            .waitFor();
          // The inbox: one tap from anywhere.
          await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Inbox/ }).click();
          await page.getByRole('list', { name: 'Waiting on you' }).getByText('Ship the order today?').waitFor();
          await context.close();
        });
      } else {
        it('the conversations sit beside the page, with no menu', async () => {
          const context = await newContext(harness, size);
          const page = await context.newPage();
          await signIn(page, 'tok-ada');
          await page
            .getByRole('navigation', { name: 'Conversations' })
            .getByRole('link', { name: 'New conversation' })
            .waitFor();
          await expect.poll(() => page.getByRole('navigation', { name: 'Conversations' }).isVisible()).toBe(true);
          await expect.poll(() => page.locator('.menu-button').isVisible()).toBe(false);
          await context.close();
        });
      }
    });
  }
});
