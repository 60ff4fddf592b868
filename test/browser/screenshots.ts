// `npm run screenshots`: the pictures of the web console in the README and docs/console.md, taken in
// headless Chromium from the demo agents `heed serve` runs without a config (question card, approval
// card, inbox, the conversations menu), each at a laptop's size (1280×800, `<name>.png`) and a phone's
// (390×844, `<name>-phone.png`).
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { demoAgents } from '../../src/cli/demo-agents.js';
import buildConsole from '../setup/console-build.js';
import { dock, newContext, sendMessage, signIn, startConversation, startHarness } from './harness.js';

const docs = (name: string) => fileURLToPath(new URL(`../../docs/${name}`, import.meta.url));

const sizes = [
  { suffix: '', viewport: { width: 1280, height: 800 } },
  { suffix: '-phone', viewport: { width: 390, height: 844 } },
];

/** Starts a conversation from the list ("New conversation": in the menu on a phone). */
async function newConversation(page: Page, agent: string): Promise<void> {
  await page.goto('/');
  await startConversation(page, agent);
}

await buildConsole();
const written: string[] = [];
for (const { suffix, viewport } of sizes) {
  // A fresh server for each size, so both show the same conversations.
  const harness = await startHarness({ agents: demoAgents({ chunkDelayMs: 0 }) });
  const shot = async (page: Page, name: string) => {
    await page.mouse.move(0, 0);
    await page.screenshot({ path: docs(`${name}${suffix}.png`) });
    written.push(`docs/${name}${suffix}.png`);
  };
  try {
    const context = await newContext(harness, viewport);
    const page = await context.newPage();
    await signIn(page, 'tok-ada');

    // A question card: the trip planner's four questions, on the first one, an option pointed at to show its preview.
    await newConversation(page, 'trip-planner');
    await sendMessage(page, 'Plan a long weekend in spring.');
    await dock(page)
      .getByRole('heading', { name: /Question 1 of 4/ })
      .waitFor();
    await dock(page).getByRole('radio', { name: /Kyoto/ }).hover();
    await page.screenshot({ path: docs(`question-card${suffix}.png`) });
    written.push(`docs/question-card${suffix}.png`);

    // An approval card with its arguments being edited, after an earlier exchange in the same conversation.
    await newConversation(page, 'helpdesk');
    await sendMessage(page, 'Hello, a parcel of mine arrived damaged.');
    await dock(page).getByRole('button', { name: 'Next' }).click();
    await dock(page).getByRole('textbox', { name: 'Which email should we reply to?' }).fill('ada@example.com');
    await dock(page).getByRole('button', { name: 'Submit answers' }).click();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await sendMessage(page, 'Please refund order 1042 for $80, the parcel arrived damaged.');
    const approval = dock(page);
    await approval.getByRole('button', { name: 'Edit arguments' }).click();
    await approval.getByRole('spinbutton', { name: 'amount' }).fill('60');
    await approval.getByRole('textbox', { name: 'Comment (optional)' }).fill('Refund the damaged item only.');
    await shot(page, 'approval-card');

    // The inbox: what waits on ada across her conversations.
    await newConversation(page, 'page-helper');
    await newConversation(page, 'helpdesk');
    await sendMessage(page, 'Where is my order 2210?');
    await dock(page).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Inbox/ }).click();
    await page.getByRole('list', { name: 'Waiting on you' }).waitFor();
    await page.getByText('3 requests are waiting on you.').waitFor();
    await shot(page, 'inbox');

    // On a phone, the menu: ada's conversations by title, the waiting ones marked.
    if (suffix === '-phone') {
      await page.getByRole('button', { name: 'Conversations' }).click();
      const menu = page.getByRole('navigation', { name: 'Conversations' });
      await menu.getByRole('link', { name: /a parcel of mine arrived damaged/ }).waitFor();
      // The drawer slides in (0.15 s): taken once it is in place.
      await page.waitForFunction((element) => element?.getBoundingClientRect().x === 0, await menu.elementHandle(), {
        timeout: 10_000,
      });
      await page.screenshot({ path: docs(`conversations-menu${suffix}.png`) });
      written.push(`docs/conversations-menu${suffix}.png`);
    }
    await context.close();
  } finally {
    await harness.close();
  }
}
console.log(`Wrote ${written.join(', ')}.`);
