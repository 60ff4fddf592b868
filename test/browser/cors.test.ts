/**
 * A `useChat` page served from another origin (a second loopback server, on another port) talking to
 * Heed in Chromium: with `cors: { origins: [that origin] }` the page loads the (empty) chat and
 * completes a turn with a bearer token; against a server without it, the browser refuses the call and
 * the page shows the failure, and the server never saw the message.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../src/cli/serve.js';
import type { AgentConfig } from '../../src/config.js';
import { scriptedModel } from '../../src/testing/index.js';
import { browserSkip, startHarness, type Harness } from './harness.js';

const root = join(import.meta.dirname, '..', '..');

/** The page: loads the chat's messages (a new chat has none), then renders the chat of test/use-chat. */
const entry = `
import { createElement as h } from 'react';
import { createRoot } from 'react-dom/client';
import { ChatApp, sdk6 } from './test/use-chat/chat-app.ts';

const params = new URLSearchParams(location.search);
const api = params.get('api');
const id = params.get('id');
const token = params.get('token');
const loaded = document.getElementById('loaded');
fetch(api + '/' + id + '/messages', { headers: { authorization: 'Bearer ' + token } })
  .then((response) => response.json())
  .then((body) => {
    loaded.textContent = JSON.stringify(body);
    return body.messages;
  })
  .catch((error) => {
    loaded.textContent = 'load failed: ' + error.message;
    return [];
  })
  .then((messages) => createRoot(document.getElementById('root')).render(h(ChatApp, { sdk: sdk6, api, id, token, messages })));
`;

const echo: AgentConfig = {
  name: 'echo',
  model: scriptedModel(({ messages }) => {
    const last = messages.at(-1);
    const said =
      last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
    return { text: `You said: ${said}` };
  }),
};

let pageServer: Server;
let pageOrigin: string;
let harness: Harness;
let plain: RunningServer;

beforeAll(async () => {
  if (browserSkip) return;
  const bundled = await build({
    stdin: { contents: entry, resolveDir: root, sourcefile: 'cors-page.ts', loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const script = bundled.outputFiles[0].text;
  const html =
    '<!doctype html><meta charset="utf-8"><title>Chat</title><pre id="loaded"></pre><div id="root"></div><script type="module" src="/page.js"></script>';
  pageServer = createServer((request, response) => {
    const isScript = request.url === '/page.js';
    response.writeHead(200, { 'content-type': isScript ? 'text/javascript' : 'text/html; charset=utf-8' });
    response.end(isScript ? script : html);
  });
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  harness = await startHarness({ agents: [echo], cors: { origins: [pageOrigin] } });
  plain = await serve({
    config: { agents: [echo], auth: { tokens: { 'tok-ada': { userId: 'ada' } } } },
    db: ':memory:',
    port: 0,
    host: '127.0.0.1',
    console: false,
    env: {},
    log: () => undefined,
  });
}, 60_000);

afterAll(async () => {
  await harness?.close();
  await plain?.close();
  await new Promise((resolve) => pageServer?.close(resolve));
});

async function openChat(server: string) {
  const context = await harness.browser.newContext();
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const id = `cors-${randomUUID()}`;
  const query = new URLSearchParams({ api: `${server}/api/ai-sdk/chat/echo`, id, token: 'tok-ada' });
  await page.goto(`${pageOrigin}/?${query}`);
  await page.getByRole('textbox').waitFor();
  return { page, id, context };
}

describe.skipIf(browserSkip)('a useChat page on another origin', () => {
  it('with cors.origins listing it: loads an empty new chat, sends a message and shows the reply', async () => {
    expect(new URL(pageOrigin).port).not.toBe(new URL(harness.url).port);
    const { page, id, context } = await openChat(harness.url);
    await expect.poll(() => page.locator('#loaded').textContent()).toBe('{"messages":[]}');
    await page.getByRole('textbox').fill('hello from another origin');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('You said: hello from another origin').waitFor();
    await expect.poll(() => page.getByTestId('status').textContent()).toBe('ready');
    const stored = await fetch(`${harness.url}/api/conversations/${id}`, {
      headers: { authorization: 'Bearer tok-ada' },
    });
    expect(((await stored.json()) as { conversation: { ownerId: string } }).conversation.ownerId).toBe('ada');
    await context.close();
  });

  it('without it: the browser blocks the calls, the page shows the failure, and nothing reaches the server', async () => {
    const { page, id, context } = await openChat(plain.url);
    await expect.poll(() => page.locator('#loaded').textContent()).toBe('load failed: Failed to fetch');
    await page.getByRole('textbox').fill('hello');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.getByTestId('status').textContent()).toBe('error');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Failed to fetch');
    const stored = await fetch(`${plain.url}/api/conversations/${id}`, {
      headers: { authorization: 'Bearer tok-ada' },
    });
    expect(stored.status).toBe(404);
    await context.close();
  });
});
