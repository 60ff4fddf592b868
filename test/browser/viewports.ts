import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';

/** The two sizes every card screen is checked at: a phone held upright, and a laptop. */
export const viewports = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'laptop', width: 1280, height: 800 },
] as const;

/**
 * The elements of `locator` whose box, once scrolled into view, is not wholly inside the viewport's
 * width (described by their text); empty when all fit. Heights may scroll; widths must not.
 */
export async function outsideViewport(page: Page, locator: Locator): Promise<string[]> {
  const width = page.viewportSize()!.width;
  const outside: string[] = [];
  for (const element of await locator.all()) {
    if (!(await element.isVisible())) continue;
    await element.scrollIntoViewIfNeeded();
    const box = await element.boundingBox();
    if (box && (box.x < 0 || box.x + box.width > width + 0.5))
      outside.push(
        `${(await element.textContent())?.slice(0, 40)} at x=${Math.round(box.x)} w=${Math.round(box.width)}`,
      );
  }
  return outside;
}

/** Whether the page scrolls sideways (something wider than the viewport). */
export async function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1);
}

/** Saves a screenshot under $HEED_SHOTS (when set), to look at the screens a test walks through. */
export async function shoot(page: Page, name: string): Promise<void> {
  const dir = process.env.HEED_SHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}-${page.viewportSize()!.width}.png`), fullPage: false });
}
