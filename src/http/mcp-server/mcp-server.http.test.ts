import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HeedConfig } from '../../config.js';
import { sqliteStore } from '../../store/sqlite/sqlite-store.js';

/** Heed as an MCP server (`mcp.server`), driven by the MCP SDK's own client over streamable HTTP. */

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function start(config: Partial<HeedConfig> = {}): Promise<TestServer> {
  const server = await startServer({
    auth: { tokens: { 'tok-ada': 'ada', 'tok-bob': 'bob' } },
    mcp: { server: true, progressSeconds: 1 },
    ...config,
  });
  closing.push(() => server.close());
  return server;
}

async function connect(server: TestServer, token = 'tok-ada'): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  closing.push(() => client.close());
  return client;
}

/** The one request waiting on `token`'s person, once it is there. */
async function waitingAction(server: TestServer, token = 'tok-ada') {
  await expect
    .poll(async () => (await server.api('GET', '/api/inbox', { token })).body.actions.length, { timeout: 10_000 })
    .toBe(1);
  return (await server.api('GET', '/api/inbox', { token })).body.actions[0];
}

function answer(server: TestServer, action: { id: string; conversationId: string }, resolution: object) {
  return server.api('POST', `/api/conversations/${action.conversationId}/actions/${action.id}`, {
    token: 'tok-ada',
    body: { resolution },
  });
}

describe('Heed as an MCP server', () => {
  it('lists its three tools', async () => {
    const client = await connect(await start());
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['ask_person', 'permission_prompt', 'request_approval']);
  });

  it('request_approval waits for the person (progress meanwhile) and returns their decision with edited arguments', async () => {
    const server = await start();
    const client = await connect(server);
    const progress: number[] = [];
    const call = client.callTool(
      {
        name: 'request_approval',
        arguments: {
          title: 'Scale the API?',
          args: { replicas: 3 },
          argsSchema: { type: 'object', properties: { replicas: { type: 'integer', maximum: 5 } } },
        },
      },
      undefined,
      { onprogress: (note) => progress.push(note.progress), timeout: 30_000, resetTimeoutOnProgress: true },
    );
    const action = await waitingAction(server);
    expect(action).toMatchObject({ kind: 'approval', title: 'Scale the API?', args: { replicas: 3 } });
    await expect.poll(() => progress.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(
      (await answer(server, action, { type: 'approval', decision: 'allow', approvedArgs: { replicas: 9 } })).status,
    ).toBe(400);
    expect(
      (await answer(server, action, { type: 'approval', decision: 'allow', approvedArgs: { replicas: 4 } })).status,
    ).toBe(200);
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ decision: 'allow', approvedArgs: { replicas: 4 }, answeredBy: 'ada' });
  });

  it('ask_person returns typed answers by question id', async () => {
    const server = await start();
    const client = await connect(server);
    const call = client.callTool(
      {
        name: 'ask_person',
        arguments: {
          questions: [
            {
              id: 'env',
              prompt: 'Which environment?',
              options: [
                { value: 'staging', label: 'Staging' },
                { value: 'prod', label: 'Production' },
              ],
              defaults: ['staging'],
            },
            { id: 'replicas', prompt: 'How many replicas?', input: { type: 'number', min: 1, max: 5 } },
          ],
        },
      },
      undefined,
      { timeout: 30_000 },
    );
    const malformed = await client.callTool({
      name: 'ask_person',
      arguments: { questions: [{ id: 'env', prompt: 'Which?', options: [{ value: 'a' }] }] },
    });
    expect(malformed.isError).toBe(true);
    expect((malformed.content as Array<{ text: string }>)[0].text).toContain('needs non-empty label text');
    const action = await waitingAction(server);
    expect((await answer(server, action, { type: 'question', answers: { env: 'prod', replicas: 3 } })).status).toBe(
      200,
    );
    const result = await call;
    expect(result.structuredContent).toEqual({
      status: 'answered',
      answers: { env: 'prod', replicas: 3 },
      answeredBy: 'ada',
    });
  });

  it("permission_prompt answers Claude Code's JSON: allow with the input, or deny with the person's note", async () => {
    const server = await start();
    const client = await connect(server);
    const ask = (toolUseId: string) =>
      client.callTool(
        {
          name: 'permission_prompt',
          arguments: { tool_name: 'Bash', input: { command: 'rm -rf build' }, tool_use_id: toolUseId },
        },
        undefined,
        { timeout: 30_000 },
      );
    const allowed = ask('toolu_1');
    const first = await waitingAction(server);
    expect(first.title).toBe('Bash: {"command":"rm -rf build"}');
    await answer(server, first, { type: 'approval', decision: 'allow' });
    const allow = await allowed;
    expect(allow.isError).toBeFalsy();
    expect(JSON.parse((allow.content as Array<{ text: string }>)[0].text)).toEqual({
      behavior: 'allow',
      updatedInput: { command: 'rm -rf build' },
    });

    const denied = ask('toolu_2');
    const second = await waitingAction(server);
    await answer(server, second, { type: 'approval', decision: 'deny', comment: 'Not on Fridays.' });
    const deny = await denied;
    expect(deny.isError).toBeFalsy();
    expect(JSON.parse((deny.content as Array<{ text: string }>)[0].text)).toEqual({
      behavior: 'deny',
      message: 'Not on Fridays.',
    });
  });

  it('a cancelled call withdraws its request; past limits.mcpWaitingPerCaller a call is a tool error', async () => {
    const server = await start({ limits: { mcpWaitingPerCaller: 1 } });
    const client = await connect(server);
    const abort = new AbortController();
    const call = client.callTool({ name: 'request_approval', arguments: { title: 'Deploy?' } }, undefined, {
      signal: abort.signal,
      timeout: 30_000,
    });
    const action = await waitingAction(server);
    const second = await client.callTool({ name: 'request_approval', arguments: { title: 'And this?' } });
    expect(second.isError).toBe(true);
    expect((second.content as Array<{ text: string }>)[0].text).toContain('limits.mcpWaitingPerCaller');

    abort.abort();
    await expect(call).rejects.toThrow();
    await expect
      .poll(async () => (await server.api('GET', `/api/requests/${action.id}`, { token: 'tok-ada' })).body.status, {
        timeout: 10_000,
      })
      .toBe('cancelled');
  });

  it(
    'a thousand calls in a loop from one caller: the bounds hold, each refused call is a tool error, nothing more is stored',
    { timeout: 180_000 },
    async () => {
      /** Makes `count` calls one after another without waiting for answers; counts the tool errors as they come. */
      const loop = (client: Client, count: number) => {
        const refusals: string[] = [];
        const calls: Promise<unknown>[] = [];
        for (let index = 0; index < count; index++) {
          const call = client
            .callTool({ name: 'request_approval', arguments: { title: `Call ${index}` } }, undefined, {
              timeout: 120_000,
            })
            .then((result) => {
              if (result.isError) refusals.push((result.content as Array<{ text: string }>)[0].text);
            });
          calls.push(call.catch(() => undefined));
        }
        return { refusals, settled: () => Promise.all(calls) };
      };
      const stored = async (server: TestServer) =>
        (await server.api('GET', '/api/conversations?limit=200', { token: 'tok-ada' })).body.conversations.length;

      // The default bound of calls waiting at once (20).
      const server = await start();
      const client = await connect(server);
      const first = loop(client, 1000);
      await expect.poll(() => first.refusals.length, { timeout: 60_000 }).toBe(980);
      expect(first.refusals.every((text) => text.includes('limits.mcpWaitingPerCaller'))).toBe(true);
      await expect.poll(() => stored(server), { timeout: 10_000 }).toBe(20);
      expect((await server.api('GET', '/api/inbox?limit=200', { token: 'tok-ada' })).body.actions).toHaveLength(20);
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      await client.close();
      await first.settled();

      // With limits.conversationsPerMinute (10), what it lets through is all that is stored: 10 at once, then
      // one each 6 s it refills while the loop runs.
      const limited = await start({ limits: { mcpWaitingPerCaller: 1000, conversationsPerMinute: 10 } });
      const other = await connect(limited);
      const began = Date.now();
      const second = loop(other, 200);
      await expect.poll(async () => second.refusals.length + (await stored(limited)), { timeout: 60_000 }).toBe(200);
      const refills = Math.ceil((Date.now() - began) / 6_000);
      expect(second.refusals.every((text) => text.includes('limits.conversationsPerMinute'))).toBe(true);
      expect(await stored(limited)).toBeGreaterThanOrEqual(10);
      expect(await stored(limited)).toBeLessThanOrEqual(10 + refills);
      await other.close();
      await second.settled();
    },
  );

  it('no token is 401; another person cannot use a session that is not theirs', async () => {
    const server = await start();
    const anonymous = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
    expect(anonymous.status).toBe(401);

    const client = await connect(server);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const stolen = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer tok-bob',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(stolen.status).toBe(404);
  });

  it('a restart while a call waits: the client calls again with the same tool_use_id and finds the request already asked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'heed-mcp-'));
    closing.push(async () => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'heed.db');
    const first = await start({ store: sqliteStore({ path }) });
    const before = await connect(first);
    const args = { tool_use_id: 'toolu_9', tool_name: 'Bash', input: { command: 'make deploy' } };
    const lost = before.callTool({ name: 'permission_prompt', arguments: args }, undefined, { timeout: 30_000 });
    lost.catch(() => undefined);
    const asked = await waitingAction(first);
    await first.close();

    const second = await start({ store: sqliteStore({ path }) });
    const after = await connect(second);
    const retried = after.callTool({ name: 'permission_prompt', arguments: args }, undefined, { timeout: 30_000 });
    const again = await waitingAction(second);
    expect(again.id).toBe(asked.id);
    await answer(second, again, { type: 'approval', decision: 'allow' });
    const result = await retried;
    expect(JSON.parse((result.content as Array<{ text: string }>)[0].text)).toMatchObject({ behavior: 'allow' });
    expect((await second.api('GET', '/api/conversations', { token: 'tok-ada' })).body.conversations).toHaveLength(1);
  });

  it('arguments of several megabytes are refused before they are read or stored', async () => {
    const server = await start();
    const client = await connect(server);
    const huge = 'x'.repeat(3 * 1024 * 1024);
    await expect(
      client.callTool({ name: 'request_approval', arguments: { title: 'Big', args: { blob: huge } } }),
    ).rejects.toThrow(/413|too large/i);
    expect((await server.api('GET', '/api/conversations', { token: 'tok-ada' })).body.conversations).toHaveLength(0);
  });

  it('a request nobody answers in time lapses: request_approval is a tool error saying so, permission_prompt a deny', async () => {
    const clock = { at: Date.now() };
    const server = await start({ sweepIntervalMs: 50, now: () => new Date(clock.at) });
    const client = await connect(server);
    const approval = client.callTool(
      { name: 'request_approval', arguments: { title: 'Deploy?', timeoutSeconds: 60 } },
      undefined,
      { timeout: 30_000 },
    );
    const prompt = client.callTool(
      {
        name: 'permission_prompt',
        arguments: { tool_name: 'Bash', input: { command: 'ls' }, tool_use_id: 'toolu_late' },
      },
      undefined,
      { timeout: 30_000 },
    );
    await expect
      .poll(async () => (await server.api('GET', '/api/inbox', { token: 'tok-ada' })).body.actions.length, {
        timeout: 10_000,
      })
      .toBe(2);
    clock.at += 2 * 86_400_000; // past both: the request's own minute and the server's day
    const lapsed = await approval;
    expect(lapsed.isError).toBe(true);
    expect(lapsed.structuredContent).toEqual({ status: 'lapsed' });
    expect((lapsed.content as Array<{ text: string }>)[0].text).toBe('Nobody answered in time: the request lapsed.');
    const denied = await prompt;
    expect(JSON.parse((denied.content as Array<{ text: string }>)[0].text)).toEqual({
      behavior: 'deny',
      message: 'Nobody answered in time, so the call was not allowed.',
    });
  });
});
