import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { freshDatabase, pgServer, pgSkipReason, type TestDatabase } from '../../../test/pg.js';
import { postgresStore } from '../../store/postgres/postgres-store.js';

/** An MCP call waits on one instance; the person's answer lands on the other (one PostgreSQL database). */

let database: TestDatabase | undefined;
const closing: Array<() => Promise<void>> = [];

beforeAll(async () => {
  if (pgServer) database = await freshDatabase('heed_mcp');
});
afterAll(async () => {
  for (const close of closing.reverse()) await close();
  await database?.drop();
});

async function instance(): Promise<TestServer> {
  const server = await startServer({
    store: postgresStore({ connectionString: database!.url, schema: 'mcp', max: 4 }),
    auth: { tokens: { 'tok-ada': 'ada' } },
    mcp: { server: true },
  });
  closing.push(() => server.close());
  return server;
}

describe.skipIf(!pgServer)(`the MCP server on PostgreSQL ${pgServer ? '' : `(${pgSkipReason})`}`, () => {
  it('a call waiting on one instance returns the answer given on the other', async () => {
    const a = await instance();
    const b = await instance();
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), {
        requestInit: { headers: { authorization: 'Bearer tok-ada' } },
      }),
    );
    closing.push(() => client.close());
    const call = client.callTool({ name: 'request_approval', arguments: { title: 'Rotate the keys?' } }, undefined, {
      timeout: 30_000,
    });
    await expect
      .poll(async () => (await b.api('GET', '/api/inbox', { token: 'tok-ada' })).body.actions.length, {
        timeout: 15_000,
      })
      .toBe(1);
    const action = (await b.api('GET', '/api/inbox', { token: 'tok-ada' })).body.actions[0];
    const answered = await b.api('POST', `/api/conversations/${action.conversationId}/actions/${action.id}`, {
      token: 'tok-ada',
      body: { resolution: { type: 'approval', decision: 'allow', comment: 'Go.' } },
    });
    expect(answered.status).toBe(200);
    expect((await call).structuredContent).toEqual({ decision: 'allow', comment: 'Go.', answeredBy: 'ada' });
  });
});
