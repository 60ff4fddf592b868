import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserSkip,
  dock,
  newContext,
  tabTo,
  unlabelledControls,
  sendMessage,
  serverActions,
  signIn,
  startConversation,
  startHarness,
  transcript,
  type Harness,
} from './harness.js';

// Approvals, client tools and URL requests in the web console, in real headless Chromium.
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
}, 60_000);
afterAll(async () => {
  await harness?.close();
});

async function open(agent: string): Promise<{ context: BrowserContext; page: Page; id: string }> {
  const context = await newContext(harness);
  const page = await context.newPage();
  await signIn(page, 'tok-ada');
  const id = await startConversation(page, agent);
  return { context, page, id };
}

describe.skipIf(browserSkip)('approval, client tool and URL cards', { timeout: 40_000 }, () => {
  it('an approval shows tool, title, summary and arguments; edited arguments are checked against the schema before they are sent', async () => {
    const { page, id } = await open('refunds');
    await sendMessage(page, 'refund order 42 for $30');
    const card = dock(page);
    await card.getByRole('heading', { name: 'Refund $30 on order 42?' }).waitFor();
    await expect.poll(() => card.getByText('issue_refund', { exact: true }).isVisible()).toBe(true);
    await expect.poll(() => card.getByText('Money goes back to the card used for the order.').isVisible()).toBe(true);
    await expect.poll(() => card.getByRole('definition').allTextContents()).toEqual(['42', '30', 'customer request']);
    await expect.poll(() => page.getByRole('textbox', { name: 'Message' }).count()).toBe(0);

    await card.getByRole('button', { name: 'Edit arguments' }).click();
    const amount = card.getByRole('spinbutton', { name: 'amount' });
    await amount.fill('900');
    await card.getByText('amount must be at most 500.').waitFor();
    await expect.poll(() => amount.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => card.getByRole('button', { name: 'Allow with changes' }).isDisabled()).toBe(true);

    // The JSON editor carries the same edit and the same check.
    await card.getByRole('button', { name: 'Edit as JSON' }).click();
    const json = card.getByRole('textbox', { name: 'Arguments (JSON)' });
    expect(JSON.parse(await json.inputValue())).toMatchObject({ orderId: 42, amount: 900 });
    expect(await unlabelledControls(page)).toEqual([]);
    await card.getByRole('button', { name: 'Edit as a form' }).click();
    expect(await unlabelledControls(page)).toEqual([]);
    await amount.fill('20');
    await card.getByText('amount must be at most 500.').waitFor({ state: 'hidden' });

    await card.getByRole('textbox', { name: 'Comment (optional)' }).fill('Partial refund: one item was fine.');
    await card.getByRole('checkbox', { name: /Don't ask again in this chat/ }).check();
    await card.getByRole('button', { name: 'Allow with changes' }).click();

    await transcript(page)
      .getByText(/Refund done: .*"refunded":20/)
      .waitFor();
    const settled = transcript(page).getByRole('region', { name: /^Allowed with changes/ });
    await expect.poll(() => settled.textContent()).toContain('Partial refund: one item was fine.');
    await expect.poll(() => settled.textContent()).toContain('Allowed with changes by you');
    const [action] = await serverActions(harness, id, 'tok-ada');
    expect(action.resolution).toMatchObject({
      type: 'approval',
      decision: 'allow',
      approvedArgs: { orderId: 42, amount: 20, reason: 'customer request' },
      comment: 'Partial refund: one item was fine.',
      remember: true,
    });

    // Remembered: the next refund in this chat runs without asking.
    await sendMessage(page, 'refund order 7 for $3');
    await transcript(page)
      .getByText(/Refund done: .*"refunded":3/)
      .waitFor();
    await expect.poll(() => dock(page).count()).toBe(0);
  });

  it('keyboard alone: sign in, start a conversation, send, edit the arguments and allow', async () => {
    const context = await newContext(harness);
    const page = await context.newPage();
    await page.goto('/sign-in');
    // The token field takes the focus once the page is up.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('token');
    await page.keyboard.type('tok-ada');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Start a conversation' }).waitFor();
    await tabTo(page, /Start a conversation with refunds/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'refunds', level: 1 }).waitFor();
    await tabTo(page, /^\s*Message/);
    await page.keyboard.type('refund order 8 for $40');
    await page.keyboard.press('Enter');

    const card = dock(page);
    await card.getByRole('heading', { name: 'Refund $40 on order 8?' }).waitFor();
    // The card has the focus, not Allow: a stray Enter approves nothing.
    await expect
      .poll(() =>
        card
          .locator('section')
          .first()
          .evaluate((element) => element === document.activeElement),
      )
      .toBe(true);
    await tabTo(page, /Edit arguments/);
    await page.keyboard.press('Enter');
    await tabTo(page, /^\s*amount/);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('25');
    await tabTo(page, /Allow with changes/);
    await page.keyboard.press('Enter');
    await transcript(page)
      .getByText(/Refund done: .*"refunded":25/)
      .waitFor();
    // The message box is back, with the focus in it.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('composer-text');
    await context.close();
  });

  it('Deny with a comment runs nothing; the model reads the refusal', async () => {
    const { page, id } = await open('refunds');
    await sendMessage(page, 'refund order 9 for $10');
    const card = dock(page);
    await card.getByRole('textbox', { name: 'Comment (optional)' }).fill('Not without a receipt.');
    await card.getByRole('button', { name: 'Deny' }).click();
    await transcript(page)
      .getByText(/No refund: .*Not without a receipt\./)
      .waitFor();
    await expect
      .poll(() =>
        transcript(page)
          .getByRole('region', { name: /^Denied/ })
          .textContent(),
      )
      .toContain('Not without a receipt.');
    const [action] = await serverActions(harness, id, 'tok-ada');
    expect(action.resolution).toMatchObject({ decision: 'deny' });
  });

  it('a client tool runs in the page through its registered handler', async () => {
    const { page, id } = await open('page-helper');
    // Select the agent's description in the page, as a person would before asking about it.
    await page.locator('.agent-description').evaluate((element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      const selection = document.getSelection()!;
      selection.removeAllRanges();
      selection.addRange(range);
    });
    await sendMessage(page, 'what did I select?');
    await transcript(page)
      .getByText('You selected: {"text":"Reads the text you selected in the page (a client tool)."}')
      .waitFor();
    // The reply can stream in before the transcript is read again with the settled request: wait for that, then count.
    const answeredByPage = transcript(page).getByRole('region', { name: /^Answered by the page/ });
    await answeredByPage.first().waitFor();
    await expect.poll(() => answeredByPage.count()).toBe(1);
    const [action] = await serverActions(harness, id, 'tok-ada');
    expect(action).toMatchObject({ status: 'resolved', resolvedBy: 'ada' });
    // The page's output itself is not kept on the record, only its size.
    expect(action.resolution).toMatchObject({ type: 'client_tool', outputBytes: expect.any(Number) });
  });

  it('a URL card shows the whole address and opens it only after an explicit click', async () => {
    const { context, page, id } = await open('linker');
    const opened: string[] = [];
    context.on('page', (popup) => opened.push(popup.url()));
    // The page never really loads: the network is closed, and no request may leave the machine.
    await context.route('https://accounts.example.com/**', (route) =>
      route.fulfill({ status: 200, body: 'connected' }),
    );
    await sendMessage(page, 'connect my account');
    const card = dock(page);
    await card.getByRole('heading', { name: 'Connect your Example account' }).waitFor();
    await expect
      .poll(() =>
        card.getByText('https://accounts.example.com/connect?client=heed&state=a1b2c3', { exact: true }).isVisible(),
      )
      .toBe(true);
    expect(opened).toEqual([]);

    const popup = context.waitForEvent('page');
    await card.getByRole('button', { name: 'Open page' }).click();
    const tab = await popup;
    await tab.waitForLoadState();
    expect(tab.url()).toBe('https://accounts.example.com/connect?client=heed&state=a1b2c3');
    await tab.close();
    await card.getByRole('button', { name: 'Done' }).click();
    await transcript(page).getByText('Connection: {"decision":"accept"}').waitFor();
    const [action] = await serverActions(harness, id, 'tok-ada');
    expect(action.resolution).toMatchObject({ type: 'url', decision: 'accept' });
  });
});
