import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layouts, refactorer } from '../fixtures/seed-questions.js';
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

// Seed 003's intake as its page writes it, and seed 002's option previews, in the console's question card
// (real headless Chromium): headers made from ids, the options' own hotkeys, the preview of the focused option.
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ agents: [refactorer, layouts] });
}, 60_000);
afterAll(async () => {
  await harness?.close();
});

async function openAgent(
  agent: string,
  viewport?: { width: number; height: number },
): Promise<{ page: Page; id: string }> {
  const context = await newContext(harness, viewport);
  const page = await context.newPage();
  await signIn(page, 'tok-ada');
  const id = await startConversation(page, agent);
  await sendMessage(page, 'Start please');
  await dock(page).waitFor();
  return { page, id };
}

const focused = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? '');

describe.skipIf(browserSkip)("seed 003's questions in the console", { timeout: 60_000 }, () => {
  it("shows the header made from the id and each option's own hotkey; the hotkey picks the option", async () => {
    const { page, id } = await openAgent('refactorer');
    const card = dock(page);
    await expect.poll(() => card.getByRole('heading').textContent()).toBe('Question 1 of 2Scope');
    await card.getByText('Three questions before I start.', { exact: false }).waitFor();
    const file = card.getByRole('radio', { name: /This file/ });
    const module = card.getByRole('radio', { name: /The whole module/ });
    // The hotkeys are on screen (a, b), not the numbers 1, 2.
    await expect.poll(() => file.getAttribute('aria-keyshortcuts')).toBe('a');
    await expect.poll(() => file.locator('kbd').textContent()).toBe('a');
    await expect.poll(() => module.locator('kbd').textContent()).toBe('b');
    await expect.poll(() => module.getAttribute('aria-checked')).toBe('true');
    await expect.poll(() => card.getByText("Space or an option's key picks · Enter confirms").count()).toBe(1);

    await page.keyboard.press('a');
    await expect.poll(() => file.getAttribute('aria-checked')).toBe('true');
    await expect.poll(() => module.getAttribute('aria-checked')).toBe('false');
    await expect.poll(() => focused(page)).toContain('This file');
    await page.keyboard.press('Enter');
    await expect.poll(() => card.getByRole('heading').textContent()).toBe('Question 2 of 2Tests');
    await page.keyboard.press('Enter');

    await transcript(page).getByText('How much should I cover? → This file').waitFor();
    const [action] = await serverActions(harness, id, 'tok-ada');
    expect(action.resolution).toEqual({ type: 'question', answers: { scope: ['file'], tests: ['unit'] } });
  });

  it("shows the focused option's preview, a sketch that keeps its lines; hotkeys move it; no free text where allowFreeText is false", async () => {
    const { page, id } = await openAgent('layouts');
    const card = dock(page);
    const preview = card.getByRole('complementary', { name: 'Preview of the option' });
    // The pre-picked option's preview is shown from the start.
    await expect.poll(() => preview.textContent()).toContain('│ General <│ Name [ Acme ]  │');
    await expect.poll(() => card.getByLabel('Or type your own answer').count()).toBe(0);

    await page.keyboard.press('ArrowUp');
    await expect.poll(() => focused(page)).toContain('Tabs');
    await expect.poll(() => preview.textContent()).toContain('┌ General ┬ Billing ┬ Team ┐');
    // Each line of the sketch stays one line: nothing wraps.
    expect(await preview.locator('pre').evaluate((element) => getComputedStyle(element).whiteSpace)).toBe('pre');

    await page.keyboard.press('o');
    await expect
      .poll(() => card.getByRole('radio', { name: /One long page/ }).getAttribute('aria-checked'))
      .toBe('true');
    await expect.poll(() => preview.textContent()).toContain('  Plan  [ Pro v ]');
    await page.keyboard.press('t');
    await expect.poll(() => card.getByRole('radio', { name: /Tabs/ }).getAttribute('aria-checked')).toBe('true');
    await page.keyboard.press('Enter');
    await expect.poll(() => card.getByRole('heading').textContent()).toBe('Question 2 of 2Density');
    await page.keyboard.press('Enter');

    await transcript(page).getByText('Which layout should the settings page use? → Tabs').waitFor();
    const [action] = await serverActions(harness, id, 'tok-ada');
    expect(action.resolution).toEqual({ type: 'question', answers: { layout: ['tabs'], density: ['comfortable'] } });
  });

  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
  ]) {
    it(`at ${viewport.width} px the card with its preview fits the width, and the sketch is shown whole`, async () => {
      const { page } = await openAgent('layouts', viewport);
      const card = dock(page);
      const preview = card.getByRole('complementary', { name: 'Preview of the option' });
      await expect.poll(() => preview.textContent()).toContain('│ General <│');
      const box = (await card.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
      const sketch = await preview
        .locator('pre')
        .evaluate((element) => ({ scrollWidth: element.scrollWidth, clientWidth: element.clientWidth }));
      expect(sketch.scrollWidth).toBeLessThanOrEqual(sketch.clientWidth);
      // Beside the options on a wide screen, under them on a phone.
      const options = (await card.getByRole('radiogroup').boundingBox())!;
      const pane = (await preview.boundingBox())!;
      if (viewport.width >= 1000) expect(pane.x).toBeGreaterThan(options.x + options.width - 1);
      else expect(pane.y).toBeGreaterThan(options.y + options.height - 1);
    });
  }
});
