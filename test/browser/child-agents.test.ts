import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { tool } from '../../src/tool.js';
import type { AgentConfig } from '../../src/config.js';
import {
  browserSkip,
  dock,
  newContext,
  sendMessage,
  signIn,
  startConversation,
  startHarness,
  transcript,
  type Harness,
} from './harness.js';

// Agents that call agents in the console (real headless Chromium): the child's approval shows inside the
// parent conversation with the child agent's name, and answering it there carries both on.
const shots = process.env.HEED_SCREENSHOT_DIR ?? join(tmpdir(), 'heed-child-shots');
mkdirSync(shots, { recursive: true });
const restarts: string[] = [];

function toolText(messages: Array<{ role: string; content: unknown }>): string | undefined {
  const last = messages.at(-1);
  if (last?.role !== 'tool') return undefined;
  return String((last.content as Array<{ output: { value: unknown } }>)[0].output.value);
}

const agents: AgentConfig[] = [
  {
    name: 'lead',
    agents: ['ops'],
    model: scriptedModel(({ messages }) => {
      const result = toolText(messages);
      return result
        ? { text: `Done: ${result}` }
        : { toolCalls: [{ toolName: 'agent_ops', input: { task: 'Restart web.' } }] };
    }),
  },
  {
    name: 'ops',
    description: 'Restarts services.',
    tools: {
      restart: tool({
        description: 'Restart a service.',
        inputSchema: z.object({ service: z.string() }),
        needsApproval: true,
        approvalTitle: (input) => `Restart ${input.service}?`,
        execute: async ({ service }) => {
          restarts.push(service);
          return { restarted: service };
        },
      }),
    },
    model: scriptedModel(({ messages }) =>
      toolText(messages)
        ? { text: 'Restarted web.' }
        : { toolCalls: [{ toolName: 'restart', input: { service: 'web' } }] },
    ),
  },
];

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({ agents });
}, 60_000);
afterAll(async () => {
  await harness?.close();
});

describe.skipIf(browserSkip)('a child agent’s approval in the parent conversation', { timeout: 40_000 }, () => {
  for (const width of [390, 1280]) {
    it(`shows it with the child agent's name and answers it there (${width} px)`, async () => {
      const context = await newContext(harness, { width, height: 800 });
      const page = await context.newPage();
      await signIn(page, 'tok-ada');
      await startConversation(page, 'lead');
      await sendMessage(page, 'The site is down.');
      const card = dock(page);
      await card.getByRole('heading', { name: 'Restart web?' }).waitFor();
      await card.getByText('Asked by the agent ops, working for this conversation').waitFor();
      await page.screenshot({ path: join(shots, `child-approval-${width}.png`), fullPage: true });
      const before = restarts.length;
      await card.getByRole('button', { name: 'Allow', exact: true }).click();
      await transcript(page).getByText('Done: Restarted web.').waitFor();
      expect(restarts.length).toBe(before + 1);
      await context.close();
    });
  }
});
