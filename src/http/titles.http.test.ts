import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { quorumAgent, quorumTokens } from '../../test/fixtures/quorum-agent.js';
import { startServer, supportAgent, tokens, type TestServer } from '../../test/http-fixtures.js';
import { conversationsResponse, inboxResponse } from '../protocol/responses.js';
import { conversationView } from '../protocol/views.js';
import { sqliteStore } from '../store/sqlite/sqlite-store.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { tool } from '../tool.js';
import type { AgentConfig } from '../config.js';

/** Conversation titles, the list's search and what the inbox says of each conversation, over real HTTP. */

const servers: TestServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `namer`: a tool that names the conversation with `ctx.setTitle` (a blank name when asked to "blank"). */
const namer: AgentConfig = {
  name: 'namer',
  model: scriptedModel(({ messages }) => {
    const last = messages.at(-1);
    if (last?.role === 'tool') {
      const part = last.content[0];
      return {
        text:
          part?.type === 'tool-result' && part.output.type === 'error-text' ? `Failed: ${part.output.value}` : 'Named.',
      };
    }
    const text =
      last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
    return {
      toolCalls: [
        {
          toolName: 'name_it',
          input: { title: text.startsWith('blank') ? '   ' : `Order 1042:\n  refund   $80 ${'x'.repeat(200)}` },
        },
      ],
    };
  }),
  tools: {
    name_it: tool({
      inputSchema: z.object({ title: z.string() }),
      execute: async ({ title }, ctx) => {
        ctx.setTitle(title);
        return { ok: true };
      },
    }),
  },
};

async function start(db?: string) {
  const server = await startServer({
    agents: [supportAgent(new Map()), namer],
    ...(db ? { store: sqliteStore({ path: db }) } : {}),
  });
  servers.push(server);
  return server;
}

const create = async (
  server: TestServer,
  token: string | undefined,
  body: Record<string, unknown> = { agent: 'support' },
) => conversationView.parse((await server.api('POST', '/api/conversations', { token, body })).body);
const send = (server: TestServer, id: string, content: string, token = 'ada') =>
  server.api('POST', `/api/conversations/${id}/messages`, { token, body: { content } });
const titleOf = async (server: TestServer, id: string, token = 'ada') =>
  (await server.api('GET', `/api/conversations/${id}`, { token })).body.conversation.title;
const listed = async (server: TestServer, query: string, token = 'ada') => {
  const response = await server.api('GET', `/api/conversations${query}`, { token });
  expect(response.status).toBe(200);
  return conversationsResponse.parse(response.body).conversations;
};

describe('conversation titles', () => {
  it('are named by their first message, on one line and cut at a word, and keep that name (also after a restart)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'heed-titles-'));
    dirs.push(dir);
    const db = join(dir, 'heed.db');
    let server = await start(db);
    const created = await create(server, 'ada');
    expect(created.title).toBeNull();
    const first = `Hello,\n\n  could you look at   my order? ${'word '.repeat(30)}`;
    expect((await send(server, created.id, first)).status).toBe(200);
    const title = await titleOf(server, created.id);
    expect(title).toMatch(/^Hello, could you look at my order\? word word/);
    expect(title.length).toBeLessThanOrEqual(80);
    // Cut between words, not inside one.
    expect(title).toMatch(/ word…$/);
    await send(server, created.id, 'A second message names nothing.');
    expect(await titleOf(server, created.id)).toBe(title);
    expect((await listed(server, '')).find((item) => item.id === created.id)?.title).toBe(title);

    await server.close();
    servers.splice(0);
    server = await start(db);
    expect(await titleOf(server, created.id)).toBe(title);
    expect((await listed(server, '')).map((item) => item.title)).toEqual([title]);
  });

  it("keep the title their creator gave in metadata, and a tool's ctx.setTitle replaces it", async () => {
    const server = await start();
    const given = await create(server, 'ada', {
      agent: 'support',
      metadata: { title: '  Damaged parcel\n(order 7) ', source: 'crm' },
    });
    expect(given.title).toBe('Damaged parcel (order 7)');
    await send(server, given.id, 'hi');
    expect(await titleOf(server, given.id)).toBe('Damaged parcel (order 7)');

    const named = await create(server, 'ada', { agent: 'namer' });
    const sent = await send(server, named.id, 'name this please');
    expect(sent.body.status).toBe('completed');
    const title = await titleOf(server, named.id);
    expect(title.startsWith('Order 1042: refund $80 xxx')).toBe(true);
    expect(title).toHaveLength(120);
    const view = (await server.api('GET', `/api/conversations/${named.id}`, { token: 'ada' })).body.conversation;
    expect(view.metadata.title).toBe(title);

    // A blank title is refused: the tool fails with a sentence the model reads, and the title stays.
    const blank = await send(server, named.id, 'blank it');
    expect(blank.body.messages.at(-1).parts[0].text).toBe(
      'Failed: name_it failed: ctx.setTitle needs a title with some text.',
    );
    expect(await titleOf(server, named.id)).toBe(title);
  });

  it('a metadata title that is not text is no title, and the first message leaves it alone', async () => {
    const server = await start();
    const odd = await create(server, 'ada', { agent: 'support', metadata: { title: 42 } });
    expect(odd.title).toBeNull();
    await send(server, odd.id, 'hi');
    const view = (await server.api('GET', `/api/conversations/${odd.id}`, { token: 'ada' })).body.conversation;
    expect(view).toMatchObject({ title: null, metadata: { title: 42 } });
  });
});

describe('GET /api/conversations?q=', () => {
  it("finds the caller's conversations by title or agent, ignoring case, and nobody else's", async () => {
    const server = await start();
    const refund = await create(server, 'ada');
    await send(server, refund.id, 'Refund order 1042, the parcel was damaged');
    const parcel = await create(server, 'ada');
    await send(server, parcel.id, 'Where is my PARCEL?');
    const named = await create(server, 'ada', { agent: 'namer' });
    const bobs = await create(server, 'bob');
    await send(server, bobs.id, 'My parcel too', 'bob');
    const anonymous = await create(server, undefined);
    await server.api('POST', `/api/conversations/${anonymous.id}/messages`, { body: { content: 'parcel parcel' } });

    expect((await listed(server, '?q=parcel')).map((item) => item.id)).toEqual([parcel.id, refund.id]);
    expect((await listed(server, '?q=%20%20PaRcEl%20')).map((item) => item.id)).toEqual([parcel.id, refund.id]);
    expect((await listed(server, '?q=namer')).map((item) => item.id)).toEqual([named.id]);
    expect((await listed(server, '?q=parcel&limit=1')).map((item) => item.id)).toEqual([parcel.id]);
    expect((await listed(server, '?q=parcel', 'bob')).map((item) => item.id)).toEqual([bobs.id]);
    // "%" and "_" match themselves only: no wildcard reaches every conversation.
    expect(await listed(server, '?q=%25')).toEqual([]);
    expect(await listed(server, '?q=_')).toEqual([]);
    // An anonymous caller owns nothing, so finds nothing, whatever it searches.
    const anonymousList = await server.api('GET', '/api/conversations?q=parcel');
    expect(anonymousList.body).toEqual({ conversations: [] });
  });

  it('refuses a search that is blank or longer than 100 characters', async () => {
    const server = await start();
    for (const q of ['%20%20', 'x'.repeat(101)]) {
      const response = await server.api('GET', `/api/conversations?q=${q}`, { token: 'ada' });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'query.q' } });
      expect(response.body.error.message).toMatch(/q/);
    }
    expect((await server.api('GET', `/api/conversations?q=${'x'.repeat(100)}`, { token: 'ada' })).status).toBe(200);
  });
});

describe('the inbox names the conversation each request waits in', () => {
  it('gives the agent, the title and the requester, also to an approver who does not own the conversation', async () => {
    const runs: unknown[] = [];
    const server = await startServer({
      agents: [quorumAgent((name, input) => runs.push({ name, input }))],
      auth: { tokens: { ...quorumTokens, ...tokens } },
    });
    servers.push(server);
    const { id } = await create(server, 'ada', { agent: 'payments' });
    const sent = await send(server, id, 'pay acme');
    expect(sent.body.status).toBe('requires_action');
    const title = await titleOf(server, id);
    expect(title).toBe('pay acme');
    const inbox = await server.api('GET', '/api/inbox', { token: 'bob' });
    inboxResponse.parse(inbox.body);
    expect(inbox.body.actions).toHaveLength(1);
    expect(inbox.body.actions[0]).toMatchObject({
      conversationId: id,
      conversation: { agent: 'payments', title: 'pay acme', ownerId: 'ada' },
    });
    // The conversation's own views of the action do not repeat it.
    const actions = await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' });
    expect(actions.body.actions[0].conversation).toBeUndefined();
  });
});
