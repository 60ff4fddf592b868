// `npx tsx test/browser/push-screenshots.ts`: the pictures of "Notify this device" in docs/notifications.md,
// taken in headless Chromium at a phone's width and a laptop's, on an inbox with one request waiting.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import buildConsole from '../setup/console-build.js';
import { newContext, signIn, startHarness } from './harness.js';
import { viewports } from './viewports.js';

const shots = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
mkdirSync(shots, { recursive: true });

await buildConsole();
const harness = await startHarness({ notify: { push: { subject: 'mailto:ops@example.com' } } });
const api = async (method: string, path: string, body?: unknown) =>
  (
    await fetch(`${harness.url}${path}`, {
      method,
      headers: { authorization: 'Bearer tok-ada', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  ).json();
try {
  const refund = await api('POST', '/api/conversations', { agent: 'refunds' });
  await api('POST', `/api/conversations/${refund.id}/messages`, { content: 'refund order 1042 for $80' });
  for (const viewport of viewports) {
    const context = await newContext(harness, viewport);
    const page = await context.newPage();
    await signIn(page, 'tok-ada');
    await page.goto('/inbox');
    const panel = page.locator('.push-panel');
    await page.getByRole('button', { name: 'Notify this device' }).waitFor();
    await panel.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${shots}push-notify-${viewport.width}.png` });
    await context.close();
  }
  console.log('saved docs/screenshots/push-notify-390.png and push-notify-1280.png');
} finally {
  await harness.close();
}
