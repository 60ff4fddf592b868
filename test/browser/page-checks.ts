import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/*
 * Checks a browser test runs on any page of the console: axe-core's accessibility rules, and whether
 * the layout fits the viewport (nothing wider than the screen, one scrollbar at most).
 */

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations on the page as it is now, one line each (rule, impact,
 * the elements); empty when there are none. The script is run in the page through the DevTools protocol
 * (the console's Content-Security-Policy, kept on, refuses inline scripts).
 */
export async function axeProblems(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run: (context: Document, options: object) => Promise<{ violations: Array<AxeViolation> }> };
      }
    ).axe;
    interface AxeViolation {
      id: string;
      impact?: string | null;
      help: string;
      nodes: Array<{ target: unknown[]; failureSummary?: string }>;
    }
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? '',
      help: violation.help,
      nodes: violation.nodes.map(
        (node) => `${JSON.stringify(node.target)} ${node.failureSummary?.split('\n').slice(1).join(' ').trim() ?? ''}`,
      ),
    }));
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes.join('; ')}`);
}

export interface LayoutReport {
  /** The page's own scroll size against the viewport: equal when the page itself never scrolls. */
  scrollWidth: number;
  scrollHeight: number;
  width: number;
  height: number;
  /** Visible elements that reach past the left or right edge of the viewport, by tag, class and text. */
  overflowing: string[];
}

/** How the page's boxes sit in the viewport. */
export async function layoutReport(page: Page): Promise<LayoutReport> {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const overflowing: string[] = [];
    for (const element of Array.from(document.body.querySelectorAll<HTMLElement>('*'))) {
      const style = getComputedStyle(element);
      if (style.visibility !== 'visible' || style.display === 'none') continue;
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      if (box.left < -0.5 || box.right > width + 0.5) {
        overflowing.push(
          `${element.tagName.toLowerCase()}.${Array.from(element.classList).join('.')} "${(element.textContent ?? '').trim().slice(0, 40)}" (${Math.round(box.left)}–${Math.round(box.right)})`,
        );
      }
    }
    const root = document.scrollingElement ?? document.documentElement;
    return {
      scrollWidth: root.scrollWidth,
      scrollHeight: root.scrollHeight,
      width,
      height: window.innerHeight,
      overflowing,
    };
  });
}

/**
 * The transcript's height as a share of the viewport's (0 to 1), and the share its messages would take
 * shown whole.
 */
export async function transcriptShare(page: Page): Promise<{ shown: number; content: number }> {
  return page.evaluate(() => {
    const transcript = document.querySelector('.transcript-scroll');
    if (!transcript) return { shown: 0, content: 0 };
    const content = Array.from(transcript.children).reduce(
      (sum, child) => sum + (child as HTMLElement).offsetHeight,
      0,
    );
    return {
      shown: transcript.getBoundingClientRect().height / window.innerHeight,
      content: content / window.innerHeight,
    };
  });
}

/** Whether the element lies wholly inside the viewport (and is not hidden). */
export async function wholeInView(page: Page, selector: string): Promise<boolean> {
  return page.locator(selector).evaluate((element) => {
    const box = element.getBoundingClientRect();
    const style = getComputedStyle(element);
    return (
      style.visibility === 'visible' &&
      box.width > 0 &&
      box.left >= 0 &&
      box.top >= 0 &&
      box.right <= window.innerWidth &&
      box.bottom <= window.innerHeight
    );
  });
}

/** The two sizes every console page is tested at: a phone and a laptop. */
export const SIZES = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'laptop', width: 1280, height: 800 },
] as const;
