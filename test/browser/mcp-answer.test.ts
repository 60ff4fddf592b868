import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkip, dock, newContext, signIn, startHarness, type Harness } from './harness.js';

// An agent that speaks MCP asks through Heed's /mcp; the person answers in the console's inbox, in Chromium.
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ mcp: { server: true } });
}, 60_000);
afterAll(async () => {
  await harness?.close();
});

describe.skipIf(browserSkip)('an MCP call answered in the console', { timeout: 60_000 }, () => {
  it('request_approval waits in the inbox; Allow there returns the decision to the waiting call', async () => {
    const client = new Client({ name: 'a-coding-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${harness.url}/mcp`), {
        requestInit: { headers: { authorization: 'Bearer tok-ada' } },
      }),
    );
    try {
      const call = client.callTool(
        {
          name: 'request_approval',
          arguments: { title: 'Publish 2.0 to npm?', toolName: 'npm_publish', args: { tag: 'latest' } },
        },
        undefined,
        { timeout: 45_000 },
      );
      const context = await newContext(harness);
      const page = await context.newPage();
      await signIn(page, 'tok-ada');
      await page.goto('/inbox');
      const waiting = page.getByRole('list', { name: 'Waiting on you' }).getByRole('listitem');
      await expect.poll(() => waiting.count(), { timeout: 20_000 }).toBe(1);
      await waiting.first().getByRole('link', { name: 'Publish 2.0 to npm?' }).click();
      const card = dock(page);
      await card.getByRole('heading', { name: 'Publish 2.0 to npm?' }).waitFor();
      await card.getByRole('button', { name: 'Allow', exact: true }).click();
      const result = await call;
      expect(result.structuredContent).toEqual({ decision: 'allow', answeredBy: 'ada' });
      await context.close();
    } finally {
      await client.close();
    }
  });
});
