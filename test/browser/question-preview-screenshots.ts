// `npx tsx test/browser/question-preview-screenshots.ts`: the pictures in docs/console.md of a question card
// whose options carry previews (seed 002) and hotkeys (seed 003), on a phone (390 px) and a laptop (1280 px).
import { fileURLToPath } from 'node:url';
import { layouts } from '../fixtures/seed-questions.js';
import buildConsole from '../setup/console-build.js';
import { dock, newContext, sendMessage, signIn, startConversation, startHarness } from './harness.js';

const docs = (name: string) => fileURLToPath(new URL(`../../docs/${name}`, import.meta.url));

await buildConsole();
const harness = await startHarness({ agents: [layouts] });
try {
  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
  ]) {
    const context = await newContext(harness, viewport);
    const page = await context.newPage();
    await signIn(page, 'tok-ada');
    await startConversation(page, 'layouts');
    await sendMessage(page, 'Design the settings page');
    const card = dock(page);
    await card.getByRole('complementary', { name: 'Preview of the option' }).waitFor();
    // The focus on the first option, as a person moving up the list sees it.
    await page.keyboard.press('ArrowUp');
    await card.getByText('┌ General ┬ Billing ┬ Team ┐').waitFor();
    await page.mouse.move(0, 0);
    await page.screenshot({ path: docs(`question-preview-${viewport.width}.png`) });
    await context.close();
  }
  console.log('Wrote docs/question-preview-390.png and docs/question-preview-1280.png.');
} finally {
  await harness.close();
}
