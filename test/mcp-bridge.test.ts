import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, root } from './cli.js';
import { startServer, type TestServer } from './http-fixtures.js';

// `heed mcp` as an MCP client starts it: a stdio MCP server (the real CLI, a process) forwarding to a Heed
// server's /mcp, driven by the MCP SDK's own stdio client.
let server: TestServer | undefined;
let client: Client | undefined;

afterAll(async () => {
  await client?.close();
  await server?.close();
});

describe('heed mcp (the stdio bridge)', () => {
  it('lists the tools of /mcp and forwards a call until the person answers', { timeout: 60_000 }, async () => {
    server = await startServer({ auth: { tokens: { 'tok-ada': 'ada' } }, mcp: { server: true, progressSeconds: 1 } });
    client = new Client({ name: 'a-coding-agent', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', '--url', server.url, '--token', 'tok-ada'],
        cwd: root,
        stderr: 'pipe',
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['ask_person', 'permission_prompt', 'request_approval']);

    const progress: number[] = [];
    const call = client.callTool(
      { name: 'permission_prompt', arguments: { tool_name: 'Bash', input: { command: 'npm publish' } } },
      undefined,
      { onprogress: (note) => progress.push(note.progress), timeout: 30_000, resetTimeoutOnProgress: true },
    );
    await expect
      .poll(async () => (await server!.api('GET', '/api/inbox', { token: 'tok-ada' })).body.actions.length, {
        timeout: 15_000,
      })
      .toBe(1);
    await expect.poll(() => progress.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const action = (await server.api('GET', '/api/inbox', { token: 'tok-ada' })).body.actions[0];
    const answered = await server.api('POST', `/api/conversations/${action.conversationId}/actions/${action.id}`, {
      token: 'tok-ada',
      body: { resolution: { type: 'approval', decision: 'deny', comment: 'Not from a laptop.' } },
    });
    expect(answered.status).toBe(200);
    const result = await call;
    expect(JSON.parse((result.content as Array<{ text: string }>)[0].text)).toEqual({
      behavior: 'deny',
      message: 'Not from a laptop.',
    });
  });
});
