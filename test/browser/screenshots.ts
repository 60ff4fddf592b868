// `npm run screenshots`: the pictures of the web console in docs/, taken in headless Chromium from the
// demo agents `heed serve` runs without a config (question card, approval card, inbox).
import { fileURLToPath } from 'node:url';
import { demoAgents } from '../../src/cli/demo-agents.js';
import buildConsole from './build-console.js';
import { dock, newContext, sendMessage, signIn, startConversation, startHarness } from './harness.js';

const docs = (name: string) => fileURLToPath(new URL(`../../docs/${name}`, import.meta.url));

await buildConsole();
const harness = await startHarness({ agents: demoAgents({ chunkDelayMs: 0 }) });
try {
  const context = await newContext(harness, { width: 1100, height: 860 });
  const page = await context.newPage();
  await signIn(page, 'tok-ada');

  // A question card: the trip planner's four questions, on the first one, an option focused to show its hotkeys.
  await startConversation(page, 'trip-planner');
  await sendMessage(page, 'Plan a long weekend in spring.');
  await dock(page)
    .getByRole('heading', { name: /Question 1 of 4/ })
    .waitFor();
  await dock(page).getByRole('radio', { name: /Kyoto/ }).hover();
  await page.screenshot({ path: docs('question-card.png') });

  // An approval card with its arguments being edited.
  await page.getByRole('link', { name: 'New conversation' }).click();
  await startConversation(page, 'helpdesk');
  await sendMessage(page, 'hi');
  await dock(page).getByRole('button', { name: 'Next' }).click();
  await dock(page).getByRole('textbox', { name: 'Which email should we reply to?' }).fill('ada@example.com');
  await dock(page).getByRole('button', { name: 'Submit answers' }).click();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  await sendMessage(page, 'Please refund order 1042 for $80, the parcel arrived damaged.');
  const approval = dock(page);
  await approval.getByRole('button', { name: 'Edit arguments' }).click();
  await approval.getByRole('spinbutton', { name: 'amount' }).fill('60');
  await approval.getByRole('textbox', { name: 'Comment (optional)' }).fill('Refund the damaged item only.');
  await page.mouse.move(0, 0);
  await page.screenshot({ path: docs('approval-card.png') });

  // The inbox: what waits on ada across her conversations.
  await page.getByRole('link', { name: 'New conversation' }).click();
  await startConversation(page, 'page-helper');
  await page.getByRole('link', { name: 'New conversation' }).click();
  await startConversation(page, 'helpdesk');
  await sendMessage(page, 'hello');
  await dock(page).waitFor();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Inbox/ }).click();
  await page.getByRole('list', { name: 'Waiting on you' }).waitFor();
  await page.getByText('3 requests are waiting on you.').waitFor();
  await page.screenshot({ path: docs('inbox.png') });
  console.log('Wrote docs/question-card.png, docs/approval-card.png and docs/inbox.png.');
} finally {
  await harness.close();
}
