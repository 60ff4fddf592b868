import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentConfig } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { tool } from '../../src/tool.js';
import { gate } from '../http-fixtures.js';
import {
  browserSkip,
  newContext,
  sendMessage,
  signIn,
  startConversation,
  startHarness,
  transcript,
  type Harness,
} from './harness.js';

// The console with an agent whose busyPolicy is 'queue': the box stays open while the agent works, a message
// written meanwhile shows as queued in the transcript, then runs in its turn; one that will not run says why.
let harness: Harness;
let hold = gate();
const shots = process.env.HEED_SCREENSHOT_DIR;

/** Its model holds a text with "hold" until the test opens the gate, asks for approval on "refund", else replies "Noted <text>.". */
const desk: AgentConfig = {
  name: 'desk',
  description: 'Takes notes; messages sent while it works wait their turn.',
  busyPolicy: 'queue',
  model: scriptedModel(async ({ messages }) => {
    const lastUser = [...messages].reverse().find((message) => message.role === 'user');
    const text = lastUser ? lastUser.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
    if (messages.at(-1)?.role === 'tool') return { text: `Refund noted.` };
    if (text.includes('hold')) await hold.opened;
    if (text.includes('refund')) return { toolCalls: [{ toolName: 'refund', input: { orderId: 1 } }] };
    return { text: `Noted ${text}.` };
  }),
  tools: {
    refund: tool({
      inputSchema: z.object({ orderId: z.number() }),
      needsApproval: true,
      execute: async () => ({ ok: true }),
    }),
  },
};

beforeAll(async () => {
  harness = await startHarness({ agents: [desk] });
}, 60_000);
afterAll(async () => {
  // A turn still held (a test that failed midway) would keep the server from closing.
  hold.open();
  await harness?.close();
}, 30_000);

describe.skipIf(browserSkip)('queued messages in the console', { timeout: 40_000 }, () => {
  it('a message written while the agent works is shown as queued, then runs after the turn, in order', async () => {
    hold = gate();
    const context = await newContext(harness);
    const page = await context.newPage();
    await signIn(page, 'tok-ada');
    await startConversation(page, 'desk');
    await sendMessage(page, 'hold this first');
    await page.getByRole('status').getByText('Working…').waitFor();

    // The box stays open: "Queue" beside "Stop".
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('second');
    await page.getByRole('button', { name: 'Queue' }).click();
    await sendMessage(page, 'third');
    const queued = transcript(page).locator('.message-queued');
    await expect
      .poll(() => queued.allTextContents(), { timeout: 10_000 })
      .toEqual([
        expect.stringMatching(/^You \(queued, waiting for the agent\): secondQueued$/),
        expect.stringMatching(/third.*Queued · 2$/),
      ]);
    await expect.poll(() => page.getByRole('button', { name: 'Stop' }).isVisible()).toBe(true);

    if (shots) {
      mkdirSync(shots, { recursive: true });
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 800 });
        await page.screenshot({ path: join(shots, `queued-${width}.png`) });
      }
      await page.setViewportSize({ width: 1100, height: 800 });
    }

    // A reload shows the same: the queue is the server's, not the page's.
    await page.reload();
    await transcript(page).locator('.message-queued').nth(1).waitFor();
    await expect
      .poll(() => transcript(page).locator('.message-queued').allTextContents())
      .toEqual([expect.stringContaining('second'), expect.stringContaining('third')]);

    hold.open();
    await transcript(page).getByText('Noted third.').waitFor();
    await expect.poll(() => transcript(page).locator('.message-queued').count()).toBe(0);
    await expect
      .poll(async () =>
        (await transcript(page).locator('.message').allTextContents()).map((text) =>
          text.replace(/^(You|Agent): /, ''),
        ),
      )
      .toEqual(['hold this first', 'Noted hold this first.', 'second', 'Noted second.', 'third', 'Noted third.']);
    await context.close();
  });

  it('a queued message that meets a request is not sent, and the page says which and why', async () => {
    hold = gate();
    const context = await newContext(harness);
    const page = await context.newPage();
    await signIn(page, 'tok-ada');
    await startConversation(page, 'desk');
    await sendMessage(page, 'hold, then refund');
    await page.getByRole('status').getByText('Working…').waitFor();
    await sendMessage(page, 'also this');
    await transcript(page).locator('.message-queued').waitFor();
    hold.open();
    await page
      .getByRole('alert')
      .getByText('Your message “also this” was not sent. The agent asked for an answer before this message could run')
      .waitFor();
    await page.getByRole('region', { name: 'Waiting for your answer' }).waitFor();
    await expect.poll(() => transcript(page).locator('.message-queued').count()).toBe(0);
    if (shots) {
      await page.setViewportSize({ width: 390, height: 800 });
      await page.screenshot({ path: join(shots, 'queued-dropped-390.png') });
    }
    await context.close();
  });
});
