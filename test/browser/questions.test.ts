import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserSkip,
  dock,
  newContext,
  unlabelledControls,
  sendMessage,
  serverActions,
  signIn,
  startConversation,
  startHarness,
  transcript,
  type Harness,
} from './harness.js';

// Questions in the web console, in real headless Chromium: keyboard and mouse, as a person would.
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
}, 60_000);
afterAll(async () => {
  await harness?.close();
});

async function openAgent(agent: string, message: string): Promise<{ page: Page; id: string }> {
  const context = await newContext(harness);
  const page = await context.newPage();
  await signIn(page, 'tok-ada');
  const id = await startConversation(page, agent);
  await sendMessage(page, message);
  await dock(page).waitFor();
  return { page, id };
}

describe.skipIf(browserSkip)('question cards', { timeout: 40_000 }, () => {
  it('an intake of three questions steps through with defaults pre-picked, hotkeys and Back; Enter confirms', async () => {
    const { page, id } = await openAgent('intake', 'hi');
    const card = dock(page);
    const composer = page.getByRole('textbox', { name: 'Message' });

    await expect.poll(() => card.getByRole('heading').textContent()).toContain('Question 1 of 3');
    await expect.poll(() => composer.count()).toBe(0);
    await expect.poll(() => card.getByText('Three quick questions before we start.').isVisible()).toBe(true);
    expect(await unlabelledControls(page)).toEqual([]);
    // The default is pre-picked and focused, so Enter confirms it.
    const billing = card.getByRole('radio', { name: /Billing/ });
    await expect.poll(() => billing.getAttribute('aria-checked')).toBe('true');
    await expect.poll(() => billing.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');

    await expect.poll(() => card.getByRole('heading').textContent()).toContain('Question 2 of 3');
    await expect.poll(() => card.getByRole('radio', { name: /Normal/ }).getAttribute('aria-checked')).toBe('true');
    await page.keyboard.press('h'); // the option's own hotkey
    await expect.poll(() => card.getByRole('radio', { name: /High/ }).getAttribute('aria-checked')).toBe('true');
    await expect.poll(() => card.getByRole('radio', { name: /Normal/ }).getAttribute('aria-checked')).toBe('false');
    await page.keyboard.press('Enter');

    await expect.poll(() => card.getByRole('heading').textContent()).toContain('Question 3 of 3');
    const seats = card.getByRole('spinbutton', { name: 'How many seats does your team have?' });
    await expect.poll(() => seats.inputValue()).toBe('3');
    // Back and forth keeps what was picked.
    await card.getByRole('button', { name: 'Back' }).click();
    await expect.poll(() => card.getByRole('radio', { name: /High/ }).getAttribute('aria-checked')).toBe('true');
    await card.getByRole('button', { name: 'Next' }).click();
    await seats.waitFor();
    await seats.press('Enter');

    // The card leaves the dock, the composer comes back (focused), and the answered card stays in the conversation.
    await composer.waitFor();
    await expect.poll(() => composer.evaluate((element) => element === document.activeElement)).toBe(true);
    const answered = transcript(page).getByRole('region', { name: /^Answered/ });
    await answered.waitFor();
    await expect.poll(() => answered.textContent()).toContain('Billing');
    await expect.poll(() => answered.textContent()).toContain('High');
    await expect.poll(() => answered.textContent()).toContain('Answered by you');
    await transcript(page).getByText('How urgent is it? → High').waitFor();

    const [action] = await serverActions(harness, id, 'tok-ada');
    expect(action.resolution).toMatchObject({
      type: 'question',
      answers: { topic: ['billing'], urgency: ['high'], seats: ['3'] },
    });
    expect(action.resolvedBy).toBe('ada');
  });

  it('the first key typed into a pre-filled number field replaces the default; the next keys add to it', async () => {
    const { page, id } = await openAgent('intake', 'hello');
    const card = dock(page);
    await page.keyboard.press('Enter');
    await expect.poll(() => card.getByRole('heading').textContent()).toContain('Question 2 of 3');
    await page.keyboard.press('Enter');
    await expect.poll(() => card.getByRole('heading').textContent()).toContain('Question 3 of 3');
    const seats = card.getByRole('spinbutton', { name: 'How many seats does your team have?' });
    await expect.poll(() => seats.inputValue()).toBe('3');
    await expect.poll(() => seats.evaluate((element) => element === document.activeElement)).toBe(true);
    // As a person types: "15" means 15, not 315.
    await page.keyboard.type('15');
    await expect.poll(() => seats.inputValue()).toBe('15');
    await page.keyboard.press('Backspace');
    await expect.poll(() => seats.inputValue()).toBe('1');
    await page.keyboard.type('2');
    await expect.poll(() => seats.inputValue()).toBe('12');
    await page.keyboard.press('Enter');
    await transcript(page)
      .getByText(/How many seats does your team have\? → 12/)
      .waitFor();
    const [action] = await serverActions(harness, id, 'tok-ada');
    expect(action.resolution).toMatchObject({ answers: { seats: ['12'] } });
  });

  it('a default clicked into keeps the same rule: the first key replaces it', async () => {
    const { page } = await openAgent('intake', 'hello again');
    const card = dock(page);
    await card.getByRole('button', { name: 'Question 3: Seats' }).click();
    const seats = card.getByRole('spinbutton', { name: 'How many seats does your team have?' });
    await seats.click();
    await page.keyboard.type('7');
    await expect.poll(() => seats.inputValue()).toBe('7');
  });

  it("a typed answer the rules refuse shows the server's sentence beside the field; a corrected one goes through", async () => {
    const { page, id } = await openAgent('typed', 'book seats');
    const card = dock(page);
    await expect.poll(() => card.getByRole('heading').textContent()).toContain('Question 1 of 2');

    const seats = card.getByRole('spinbutton', { name: 'How many seats do you need?' });
    await seats.fill('12');
    await seats.press('Enter');
    const error = card.getByText('"Seats" must be at most 9.');
    await error.waitFor();
    await expect.poll(() => seats.getAttribute('aria-invalid')).toBe('true');
    // The message is tied to the field for assistive technology.
    const describedBy = await seats.getAttribute('aria-describedby');
    await expect.poll(() => page.locator(`[id="${describedBy}"]`).textContent()).toBe('"Seats" must be at most 9.');
    await seats.fill('4');
    await error.waitFor({ state: 'hidden' });
    await seats.press('Enter');

    const email = card.getByRole('textbox', { name: 'Which email should we write to?' });
    expect(await unlabelledControls(page)).toEqual([]);
    await email.fill('not-an-email');
    await email.press('Enter');
    await card.getByText('"Contact" must be an email address, like name@example.com; "not-an-email" is not.').waitFor();
    await email.fill('ada@example.com');
    await email.press('Enter');

    await transcript(page)
      .getByText(/Booked\./)
      .waitFor();
    const answered = await transcript(page)
      .getByRole('region', { name: /^Answered/ })
      .textContent();
    expect(answered).toContain('ada@example.com');
    const [action] = await serverActions(harness, id, 'tok-ada');
    expect(action.resolution).toMatchObject({ answers: { Seats: ['4'], Contact: ['ada@example.com'] } });
  });

  it("a multi-select keeps the default, toggles with click and Space, and shows an option's preview while it is focused", async () => {
    const { page, id } = await openAgent('multi', 'pizza please');
    const card = dock(page);
    const cheese = card.getByRole('checkbox', { name: /Cheese/ });
    const basil = card.getByRole('checkbox', { name: /Basil/ });
    const olives = card.getByRole('checkbox', { name: /Olives/ });
    await expect.poll(() => cheese.getAttribute('aria-checked')).toBe('true');

    // A lone question with several answers does not submit on click.
    await basil.click();
    await expect.poll(() => basil.getAttribute('aria-checked')).toBe('true');
    await expect.poll(() => card.isVisible()).toBe(true);
    await basil.press('ArrowDown');
    await expect.poll(() => olives.evaluate((element) => element === document.activeElement)).toBe(true);
    await card
      .getByRole('complementary', { name: 'Preview of the option' })
      .getByText('Black olives, pitted.')
      .waitFor();
    await page.keyboard.press(' ');
    await expect.poll(() => olives.getAttribute('aria-checked')).toBe('true');
    await cheese.click();
    await expect.poll(() => cheese.getAttribute('aria-checked')).toBe('false');
    await card.getByRole('button', { name: 'Submit', exact: true }).click();

    await transcript(page)
      .getByText(/Coming up\./)
      .waitFor();
    const answered = await transcript(page)
      .getByRole('region', { name: /^Answered/ })
      .textContent();
    expect(answered).toContain('Basil, Olives');
    const [action] = await serverActions(harness, id, 'tok-ada');
    expect(action.resolution).toMatchObject({ answers: { Toppings: ['basil', 'olives'] } });
  });

  it('a lone single-choice question is answered by picking an option', async () => {
    const { page, id } = await openAgent('confirm', 'ship it');
    const card = dock(page);
    await expect.poll(() => card.getByRole('heading').textContent()).not.toContain('of');
    await expect.poll(() => card.getByRole('button', { name: 'Submit' }).count()).toBe(0);
    await card.getByRole('radio', { name: /Wait until Monday/ }).click();
    await transcript(page)
      .getByText(/Shipping decision recorded\./)
      .waitFor();
    const [action] = await serverActions(harness, id, 'tok-ada');
    expect(action.resolution).toMatchObject({ answers: { Ship: ['no'] } });
  });

  it('dismissing closes the card, ends the turn without calling the model again, and brings the composer back', async () => {
    const { page, id } = await openAgent('multi', 'pizza?');
    await dock(page).getByRole('button', { name: 'Dismiss' }).click();
    const dismissed = transcript(page).getByRole('region', { name: /^Dismissed/ });
    await dismissed.waitFor();
    await expect.poll(() => dismissed.textContent()).toContain('Dismissed by you');
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await expect.poll(() => dock(page).count()).toBe(0);
    // The model is not called again: no reply after the dismissal.
    await expect
      .poll(() =>
        transcript(page)
          .getByText(/Coming up|Stopped/)
          .count(),
      )
      .toBe(0);
    const [action] = await serverActions(harness, id, 'tok-ada');
    expect(action.resolution).toMatchObject({ type: 'question', dismiss: true });
  });
});
