import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

// Several tabs, several people, reloads and the inbox, in real headless Chromium.
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
}, 60_000);
afterAll(async () => {
  await harness?.close();
});

describe.skipIf(browserSkip)('tabs, reloads and the inbox', { timeout: 40_000 }, () => {
  it('two tabs answer the same question: one answer wins, the other tab updates live', async () => {
    const context = await newContext(harness);
    const first = await context.newPage();
    await signIn(first, 'tok-ada');
    const id = await startConversation(first, 'confirm');
    const second = await context.newPage();
    await second.goto(`/c/${encodeURIComponent(id)}`);
    await second.getByRole('textbox', { name: 'Message' }).waitFor();

    await sendMessage(first, 'ship it');
    // The question reaches the second tab through the live event stream.
    await dock(first).waitFor();
    await dock(second).waitFor();

    // Both pick at once; the server keeps exactly one answer. (A card may already be gone when its click lands.)
    const pick = (page: typeof first, name: RegExp) =>
      dock(page)
        .getByRole('radio', { name })
        .evaluate((element: HTMLElement) => element.click(), undefined, { timeout: 1000 })
        .catch(() => undefined);
    await Promise.all([pick(first, /Ship today/), pick(second, /Wait until Monday/)]);
    for (const page of [first, second]) {
      await transcript(page)
        .getByText(/Shipping decision recorded\./)
        .waitFor();
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
    }
    const [action] = await serverActions(harness, id, 'tok-ada');
    const winner =
      (action.resolution as { answers: { Ship: string[] } }).answers.Ship[0] === 'yes'
        ? 'Ship today'
        : 'Wait until Monday';
    for (const page of [first, second]) {
      await expect
        .poll(() =>
          transcript(page)
            .getByRole('region', { name: /^Answered/ })
            .textContent(),
        )
        .toContain(winner);
      // The turn continued exactly once.
      await expect
        .poll(() =>
          transcript(page)
            .getByText(/Shipping decision recorded\./)
            .count(),
        )
        .toBe(1);
    }

    // Now one after the other: the second tab's card closes as soon as the first tab answers.
    await sendMessage(first, 'and the next one');
    await dock(second).waitFor();
    await dock(first)
      .getByRole('radio', { name: /Ship today/ })
      .click();
    await dock(second).waitFor({ state: 'detached' });
    await expect
      .poll(() =>
        transcript(second)
          .getByRole('region', { name: /^Answered/ })
          .count(),
      )
      .toBe(2);
    await context.close();
  });

  it('a request answered by someone else shows who answered it', async () => {
    // An ownerless conversation: anyone who knows its address may answer.
    const anonymous = await newContext(harness);
    const mine = await anonymous.newPage();
    await signIn(mine);
    const id = await startConversation(mine, 'refunds');
    await sendMessage(mine, 'refund order 5 for $2');
    await dock(mine).waitFor();

    const other = await newContext(harness);
    const theirs = await other.newPage();
    await signIn(theirs, 'tok-bob');
    await theirs.goto(`/c/${encodeURIComponent(id)}`);
    await dock(theirs).getByRole('button', { name: 'Allow' }).click();

    // The first page never answered; its card closes and the settled card names bob.
    await dock(mine).waitFor({ state: 'detached' });
    const settled = transcript(mine).getByRole('region', { name: /^Allowed/ });
    await settled.waitFor();
    await expect.poll(() => settled.textContent()).toContain('Allowed by bob');
    await anonymous.close();
    await other.close();
  });

  it('a reload in the middle of a pause shows the same open request, which can still be answered', async () => {
    const context = await newContext(harness);
    const page = await context.newPage();
    await signIn(page, 'tok-ada');
    const id = await startConversation(page, 'intake');
    await sendMessage(page, 'hello');
    await dock(page)
      .getByRole('heading', { name: /Question 1 of 3/ })
      .waitFor();
    await page.keyboard.press('Enter');
    await dock(page)
      .getByRole('heading', { name: /Question 2 of 3/ })
      .waitFor();

    await page.reload();
    const card = dock(page);
    await card.getByRole('heading', { name: /Question 1 of 3/ }).waitFor();
    await expect.poll(() => page.getByRole('textbox', { name: 'Message' }).count()).toBe(0);
    await expect.poll(() => card.getByRole('radio', { name: /Billing/ }).getAttribute('aria-checked')).toBe('true');
    await card.getByRole('button', { name: 'Skip' }).click();
    await transcript(page)
      .getByText(/Noted\./)
      .waitFor();
    const skipped = await transcript(page)
      .getByRole('region', { name: /^Skipped/ })
      .textContent();
    expect(skipped).toContain('Skipped by you');
    expect(skipped).toContain('(default)');
    const [action] = await serverActions(harness, id, 'tok-ada');
    expect(action.resolution).toMatchObject({ type: 'question', skip: true });
    await context.close();
  });

  it('the inbox lists what waits on the signed-in person across conversations, and leads to it', async () => {
    const context = await newContext(harness);
    const page = await context.newPage();
    await signIn(page, 'tok-bob');
    const refund = await startConversation(page, 'refunds');
    await sendMessage(page, 'refund order 77 for $12');
    await dock(page).waitFor();
    await page.getByRole('link', { name: 'New conversation' }).click();
    await startConversation(page, 'typed');
    await sendMessage(page, 'book');
    await dock(page).waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Inbox/ }).click();
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
    const list = page.getByRole('list', { name: 'Waiting on you' });
    await list.waitFor();
    const items = () => list.getByRole('listitem').allTextContents();
    await expect.poll(items).toHaveLength(2);
    await expect.poll(async () => (await items())[0]).toContain('Refund $12 on order 77?');
    await expect.poll(async () => (await items())[0]).toContain('refunds');
    await expect.poll(async () => (await items())[1]).toContain('How many seats do you need?');
    // The count shows in the navigation too.
    await expect
      .poll(() => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Inbox/ }).textContent())
      .toContain('2');

    await list.getByRole('link', { name: 'Refund $12 on order 77?' }).click();
    await page.waitForURL(new RegExp(`/c/${encodeURIComponent(refund)}$`));
    await dock(page).getByRole('button', { name: 'Allow' }).click();
    await transcript(page)
      .getByText(/Refund done/)
      .waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Inbox/ }).click();
    await expect.poll(() => page.getByRole('list', { name: 'Waiting on you' }).getByRole('listitem').count()).toBe(1);

    // Someone else's inbox does not hold bob's requests.
    const other = await newContext(harness);
    const ada = await other.newPage();
    await signIn(ada, 'tok-ada');
    await ada.goto('/inbox');
    await ada.getByText('Nothing is waiting on you.').waitFor();
    await context.close();
    await other.close();
  });
});
