import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tool } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { browserAgents } from '../fixtures/browser.config.js';
import { browserSkip, newContext, serverActions, signIn, startHarness, transcript, type Harness } from './harness.js';
import { outsideViewport, shoot, viewports } from './viewports.js';

// Cards per tool (issue 24, item 15; seed 000's tool renderers): an app registers its own card for a
// tool name or a client kind, gets the built-in cards' props (the action, answer, dismiss, the state,
// and the built-in card), and answers with it; any other tool keeps the built-in card. The console uses
// the same registry for its page tools.
let harness: Harness;
let app: { js: string; css: string };
const root = join(import.meta.dirname, '../..');
const outDir = mkdtempSync(join(tmpdir(), 'heed-tool-cards-'));

const files = {
  name: 'files',
  description: 'Asks the page which file to use.',
  model: scriptedModel(({ messages }) => {
    const last = messages.at(-1);
    if (last?.role === 'tool') {
      const part = last.content[0] as { output: { type: string; value: unknown } };
      return {
        text: part.output.type.startsWith('error')
          ? `No file: ${String(part.output.value)}`
          : `Using ${JSON.stringify(part.output.value)}`,
      };
    }
    return { toolCalls: [{ toolName: 'pick_file', input: { files: ['notes.txt', 'plan.md', 'budget.csv'] } }] };
  }),
  tools: {
    pick_file: tool({
      description: 'Ask the user which of several files to use.',
      inputSchema: z.object({ files: z.array(z.string()).min(1) }),
      outputSchema: z.object({ file: z.string() }),
      client: {
        kind: 'pick-file',
        validate: ({ input, output }) =>
          (input as { files: string[] }).files.includes((output as { file: string }).file) ||
          'Pick one of the offered files.',
      },
    }),
  },
};

/** The embedding app (test/browser/embed/tool-cards-app.tsx) bundled with the sources of heed/react, as the console is. */
async function bundle(): Promise<{ js: string; css: string }> {
  const { build } = await import('vite');
  const react = (await import('@vitejs/plugin-react')).default;
  // Vitest runs with NODE_ENV=test, which would make Vite and the React plugin build for development
  // (React's development JSX runtime, which the production React build lacks): build as an app's release is.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  await build({
    configFile: false,
    mode: 'production',
    logLevel: 'warn',
    root: join(import.meta.dirname, 'embed'),
    plugins: [react()],
    resolve: {
      alias: [
        { find: /^heed\/react$/, replacement: join(root, 'src/react/index.ts') },
        { find: /^heed\/react\/styles\.css$/, replacement: join(root, 'src/react/styles.css') },
        { find: /^heed\/client$/, replacement: join(root, 'src/client/index.ts') },
      ],
    },
    define: { 'process.env.NODE_ENV': '"production"' },
    build: {
      outDir,
      emptyOutDir: true,
      minify: false,
      rolldownOptions: {
        input: join(import.meta.dirname, 'embed/tool-cards-app.tsx'),
        output: { entryFileNames: 'app.js', assetFileNames: '[name][extname]' },
      },
    },
  }).finally(() => (process.env.NODE_ENV = nodeEnv));
  const written = readdirSync(outDir);
  const css = written.find((name) => name.endsWith('.css'));
  return { js: readFileSync(join(outDir, 'app.js'), 'utf8'), css: css ? readFileSync(join(outDir, css), 'utf8') : '' };
}

beforeAll(async () => {
  [harness, app] = await Promise.all([startHarness({ agents: [...browserAgents, files] }), bundle()]);
}, 180_000);
afterAll(async () => {
  await harness?.close();
  rmSync(outDir, { recursive: true, force: true });
});

async function api(method: string, path: string, body?: unknown, token = 'tok-ada') {
  const response = await fetch(`${harness.url}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return response.json();
}

async function paused(agent: string, content: string): Promise<string> {
  const { id } = await api('POST', '/api/conversations', { agent });
  expect((await api('POST', `/api/conversations/${id}/messages`, { content })).status).toBe('requires_action');
  return id as string;
}

/** Opens the embedding app on a conversation, served from the Heed server's own origin (so no CORS is involved). */
async function openApp(viewport: { width: number; height: number }, conversationId: string): Promise<Page> {
  const page = await (await newContext(harness, viewport)).newPage();
  await page.route(/\/embed(\/app\.(js|css))?(\?.*)?$/, (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path.endsWith('.js')) return route.fulfill({ contentType: 'text/javascript', body: app.js });
    if (path.endsWith('.css')) return route.fulfill({ contentType: 'text/css', body: app.css });
    return route.fulfill({
      contentType: 'text/html',
      body: '<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/embed/app.css"></head><body><div id="root"></div><script type="module" src="/embed/app.js"></script></body></html>',
    });
  });
  await page.goto(`/embed?c=${encodeURIComponent(conversationId)}&token=tok-ada&me=ada`);
  return page;
}

const region = (page: Page) => page.getByRole('region', { name: 'Waiting for your answer' });

describe.skipIf(browserSkip)('cards registered per tool', { timeout: 60_000 }, () => {
  for (const viewport of viewports) {
    it(`a client kind's card answers with the page's choice, or dismisses; a tool's card answers its approval (${viewport.name})`, async () => {
      // By client kind, registered when the app loads: the person's pick is the tool's output.
      const picked = await paused('files', 'which file?');
      const page = await openApp(viewport, picked);
      const card = region(page).getByRole('region', { name: 'Pick a file' });
      await card.waitFor();
      await expect
        .poll(() => card.getByRole('button').allTextContents())
        .toEqual(['notes.txt', 'plan.md', 'budget.csv', 'None of these']);
      // Nothing of the built-in client tool card ("Page action").
      await expect.poll(() => page.getByText('Page action').count()).toBe(0);
      expect(await outsideViewport(page, card.getByRole('button'))).toEqual([]);
      await shoot(page, 'tool-card-kind');
      await card.getByRole('button', { name: 'plan.md' }).click();
      await page.getByRole('list', { name: 'Messages' }).getByText('Using {"file":"plan.md"}').waitFor();
      expect((await serverActions(harness, picked, 'tok-ada'))[0]).toMatchObject({
        status: 'resolved',
        resolution: { type: 'client_tool', outputBytes: expect.any(Number) },
      });

      // Its dismiss: the kind's own decline, here an error the model reads.
      const declined = await paused('files', 'which file now?');
      await page.goto(`/embed?c=${encodeURIComponent(declined)}&token=tok-ada&me=ada`);
      await region(page).getByRole('button', { name: 'None of these' }).click();
      await page.getByRole('list', { name: 'Messages' }).getByText('No file: No file fits.').waitFor();
      expect((await serverActions(harness, declined, 'tok-ada'))[0].resolution).toEqual({
        type: 'client_tool',
        error: 'No file fits.',
      });

      // By tool name, registered by a component once mounted: the approval of issue_refund.
      const refund = await paused('refunds', 'refund order 42 for $30');
      await page.goto(`/embed?c=${encodeURIComponent(refund)}&token=tok-ada&me=ada`);
      const mine = region(page).getByRole('region', { name: 'Refund request' });
      await mine.getByRole('heading', { name: 'Give back $30 for order 42?' }).waitFor();
      await shoot(page, 'tool-card-name');
      // The built-in card is one press away, as the registered card chooses.
      await mine.getByRole('button', { name: 'Show the usual card' }).click();
      await region(page).getByRole('heading', { name: 'Refund $30 on order 42?' }).waitFor();
      await page.reload();
      await region(page).getByRole('button', { name: 'Yes, refund' }).click();
      await page
        .getByRole('list', { name: 'Messages' })
        .getByText(/Refund done/)
        .waitFor();
      expect((await serverActions(harness, refund, 'tok-ada'))[0]).toMatchObject({
        status: 'resolved',
        resolution: { decision: 'allow' },
        resolvedBy: 'ada',
      });

      // A tool with no card of its own keeps the built-in one.
      const question = await paused('confirm', 'ship it');
      await page.goto(`/embed?c=${encodeURIComponent(question)}&token=tok-ada&me=ada`);
      await region(page)
        .getByRole('radio', { name: /Ship today/ })
        .waitFor();
      await page.context().close();
    });
  }

  for (const viewport of viewports) {
    it(`the console renders its page tools through the same registry: the card shows what the tool would send before it runs (${viewport.name})`, async () => {
      const { id } = await api('POST', '/api/conversations', { agent: 'page-helper' }, '');
      expect(
        (await api('POST', `/api/conversations/${id}/messages`, { content: 'what is selected?' }, '')).status,
      ).toBe('requires_action');
      const page = await (await newContext(harness, viewport)).newPage();
      await signIn(page, 'tok-bob');
      await page.goto(`/c/${encodeURIComponent(id)}`);
      const preview = page.getByRole('figure', { name: 'What get_selection would send' });
      await preview.waitFor();
      await expect.poll(() => preview.textContent()).toContain('Nothing is selected');
      // The heading's line under the title: the agent's name and its description, whatever the page shows there.
      const selected = await page.locator('.agent-description').evaluate((element) => {
        const range = document.createRange();
        range.selectNodeContents(element);
        document.getSelection()!.removeAllRanges();
        document.getSelection()!.addRange(range);
        return document.getSelection()!.toString();
      });
      expect(selected).toContain('Reads the text you selected in the page (a client tool).');
      await preview.getByText('Reads the text you selected in the page (a client tool).').waitFor();
      expect(await outsideViewport(page, page.locator('.page-tool-card').locator('section, figure, button'))).toEqual(
        [],
      );
      await shoot(page, 'console-page-card');
      // The built-in card is still there, asking before it runs.
      await page.getByRole('button', { name: 'Run get_selection' }).click();
      await transcript(page)
        .getByText(`You selected: ${JSON.stringify({ text: selected })}`)
        .waitFor();
    });
  }
});
