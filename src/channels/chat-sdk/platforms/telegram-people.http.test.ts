import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../../test/http-fixtures.js';
import { channelAgent } from '../../../../test/channels/channel-agent.js';
import { fakeApi, type ApiCall, type FakeApi } from '../../../../test/channels/fake-api.js';
import type { HeedConfig } from '../../../config.js';

/**
 * The people of a Telegram group as Heed people (docs/channels.md, "Who is who"): `channels.telegram.userId`
 * maps each to a Heed user id, so the group's conversations are listed for and read by them (and admins),
 * and requests made with `POST /api/requests` or MCP and posted to the group are answered there as them.
 */

const secretToken = 'telegram-secret-for-tests';
const chat = { id: -100123, type: 'supergroup', title: 'Ops' };
const bot = { id: 999, is_bot: true, first_name: 'Heed', username: 'heedbot' };
const people = {
  ada: { id: 111, is_bot: false, first_name: 'Ada', username: 'ada' },
  bob: { id: 222, is_bot: false, first_name: 'Bob', username: 'bob' },
  cyd: { id: 333, is_bot: false, first_name: 'Cyd', username: 'cyd' },
};
/** Telegram people known to Heed; Cyd is not. */
const heedIds: Record<string, string> = { '111': 'ada@example.com', '222': 'bob@example.com' };
const tokens = { 'tok-ada': 'ada@example.com', 'tok-bob': 'bob@example.com', 'tok-root': 'root@example.com' };

let telegram: FakeApi;
let nextMessageId: number;
let nextUpdateId: number;
const closing: Array<() => Promise<void>> = [];

beforeEach(async () => {
  nextMessageId = 500;
  nextUpdateId = 1;
  telegram = await fakeApi((call) => {
    const method = call.path.split('/').at(-1);
    if (method === 'getMe') return { body: { ok: true, result: bot } };
    if (method === 'answerCallbackQuery') return { body: { ok: true, result: true } };
    if (method === 'sendMessage' || method === 'sendRichMessage' || method === 'editMessageText')
      return {
        body: {
          ok: true,
          result: {
            message_id: method === 'editMessageText' ? call.body.message_id : nextMessageId++,
            chat,
            from: bot,
            date: 1_700_000_000,
            text: call.body.text,
          },
        },
      };
    return undefined;
  });
  closing.push(() => telegram.close());
});
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function start(config: Partial<HeedConfig> = {}): Promise<TestServer> {
  const server = await startServer({
    agents: [channelAgent(new Map())],
    auth: { tokens, admins: ['root@example.com'] },
    channels: {
      telegram: {
        agent: 'support',
        botToken: '123:abc',
        secretToken,
        apiUrl: telegram.url,
        userId: (user) => heedIds[user.id],
      },
    },
    notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
    ...config,
  });
  closing.push(() => server.close());
  return server;
}

function send(server: TestServer, update: Record<string, unknown>) {
  return fetch(`${server.url}/api/channels/telegram/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secretToken },
    body: JSON.stringify(update),
  });
}

function mention(from: (typeof people)[keyof typeof people], text: string) {
  return {
    update_id: nextUpdateId++,
    message: {
      message_id: nextMessageId++,
      from,
      chat,
      date: 1_700_000_000,
      text: `@heedbot ${text}`,
      entities: [{ type: 'mention', offset: 0, length: 8 }],
    },
  };
}

function click(from: (typeof people)[keyof typeof people], posted: ApiCall, label: string) {
  const buttons = (posted.body.reply_markup?.inline_keyboard ?? []).flat() as {
    text: string;
    callback_data?: string;
  }[];
  const button = buttons.find((entry) => entry.text === label);
  if (!button?.callback_data) throw new Error(`No button "${label}" on ${JSON.stringify(posted.body)}`);
  return {
    update_id: nextUpdateId++,
    callback_query: {
      id: `cb${nextUpdateId}`,
      from,
      chat_instance: 'ci',
      data: button.callback_data,
      message: { message_id: posted.answer.result.message_id, chat, from: bot, date: 1_700_000_000, text: 'x' },
    },
  };
}

const calls = (method: string) => telegram.calls.filter((call) => call.path.endsWith(`/${method}`));
const shown = (call: ApiCall) =>
  String(call.body.text ?? call.body.rich_message?.markdown ?? '').replace(/\\(\S)/g, '$1');
const posts = () => [...calls('sendMessage'), ...calls('sendRichMessage')];
const cards = () => posts().filter((call) => (call.body.reply_markup?.inline_keyboard?.length ?? 0) > 0);

/** The one card posted for a request, once the outbox has sent it. */
async function postedCard(): Promise<ApiCall> {
  await expect.poll(() => cards().length, { timeout: 10_000 }).toBe(1);
  return cards()[0];
}

describe('Telegram people as Heed people', () => {
  it("a group's conversation is listed for and read by its mapped participants and admins only", async () => {
    const server = await start();
    expect((await send(server, mention(people.ada, 'refund order 42'))).status).toBe(200);
    const listed = async (token: string) =>
      (await server.api('GET', '/api/conversations', { token })).body.conversations as { id: string }[];
    await expect.poll(async () => (await listed('tok-ada')).length, { timeout: 10_000 }).toBe(1);
    const [conversation] = await listed('tok-ada');
    expect(await listed('tok-bob')).toEqual([]);
    expect(await listed('tok-root')).toEqual([]);
    const read = (token: string) => server.api('GET', `/api/conversations/${conversation.id}`, { token });
    expect((await read('tok-ada')).status).toBe(200);
    expect((await read('tok-root')).status).toBe(200);
    // Bob holds the id but took no part: the same 404 as for an id that names nothing.
    const refused = await read('tok-bob');
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe('not_found');

    // A participant's writes and answers stay in the thread: 409 channel_chat, as for anyone who reads it.
    const paused = (await read('tok-ada')).body;
    const pending = paused.runtime.pendingActionIds as string[];
    expect(pending).toHaveLength(1);
    const writes = [
      server.api('POST', `/api/conversations/${conversation.id}/messages`, {
        token: 'tok-ada',
        body: { content: 'hi' },
      }),
      server.api('POST', `/api/conversations/${conversation.id}/actions/${pending[0]}`, {
        token: 'tok-ada',
        body: { resolution: { type: 'approval', decision: 'allow' } },
      }),
      server.api('POST', `/api/conversations/${conversation.id}/cancel`, { token: 'tok-ada', body: {} }),
    ];
    for (const refused of await Promise.all(writes)) expect(refused.body.error?.code).toBe('channel_chat');

    // Once Bob writes in the thread too, it is his to list and read.
    expect((await send(server, mention(people.bob, 'and order 43'))).status).toBe(200);
    await expect.poll(async () => (await listed('tok-bob')).map((entry) => entry.id)).toEqual([conversation.id]);
    expect((await read('tok-bob')).status).toBe(200);
  });

  it('a request posted to the group is answered there as the person it is assigned to, and only by them', async () => {
    const server = await start();
    const made = await server.api('POST', '/api/requests', {
      token: 'tok-root',
      body: {
        request: { kind: 'approval', title: 'Restart the cache?', toolName: 'restart', args: { host: 'cache-1' } },
        assignees: ['ada@example.com'],
        channel: 'telegram:-100123',
      },
    });
    expect(made.status).toBe(201);
    const card = await postedCard();
    expect(shown(card)).toContain('Restart the cache?');
    // The card carries no reply of an agent: a request has none.
    expect(posts()).toHaveLength(1);

    // Cyd is nobody in Heed; Bob is someone, but not asked.
    expect((await send(server, click(people.cyd, card, 'Allow'))).status).toBe(200);
    await expect.poll(() => posts().map(shown).join('\n')).toContain('not linked to a person in Heed');
    expect((await send(server, click(people.bob, card, 'Allow'))).status).toBe(200);
    await expect.poll(() => posts().map(shown).join('\n')).toContain('You may not answer this request');
    expect((await server.api('GET', `/api/requests/${made.body.id}`, { token: 'tok-root' })).body.status).toBe(
      'pending',
    );

    expect((await send(server, click(people.ada, card, 'Deny'))).status).toBe(200);
    const settled = (await server.api('GET', `/api/requests/${made.body.id}`, { token: 'tok-ada' })).body;
    expect(settled).toMatchObject({
      status: 'resolved',
      resolution: { type: 'approval', decision: 'deny' },
      resolvedBy: 'ada@example.com',
      channel: 'telegram',
    });
    // The posted card is edited to say who answered.
    await expect.poll(() => calls('editMessageText').map(shown).join('\n')).toContain('ada@example.com');
  });

  it('a request names a configured channel, or is refused with 400 and nothing stored', async () => {
    const server = await start();
    for (const channel of ['slack:T1:C1', 'telegram:', 'telegram']) {
      const refused = await server.api('POST', '/api/requests', {
        token: 'tok-ada',
        body: { request: { kind: 'url', url: 'https://example.com/form' }, channel },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'channel' } });
      expect(refused.body.error.message).toContain('telegram');
    }
    expect((await server.api('GET', '/api/inbox', { token: 'tok-ada' })).body.actions).toEqual([]);
  });

  it("each MCP tool's request is posted to mcp.channel and the tool returns the answer given there", async () => {
    const server = await start({ mcp: { server: true, progressSeconds: 1, channel: 'telegram:-100123' } });
    const client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: 'Bearer tok-ada' } },
      }),
    );
    closing.push(() => client.close());
    const call = client.callTool(
      { name: 'permission_prompt', arguments: { tool_name: 'Bash', input: { command: 'npm publish' } } },
      undefined,
      { timeout: 30_000, resetTimeoutOnProgress: true },
    );
    const card = await postedCard();
    expect(shown(card)).toContain('Bash');
    expect((await send(server, click(people.ada, card, 'Allow'))).status).toBe(200);
    const result = (await call) as { content: { type: string; text: string }[] };
    expect(JSON.parse(result.content[0].text)).toEqual({ behavior: 'allow', updatedInput: { command: 'npm publish' } });

    // ask_person: a button per option; request_approval: Deny.
    const asked = client.callTool(
      {
        name: 'ask_person',
        arguments: {
          questions: [
            {
              id: 'env',
              prompt: 'Which environment?',
              options: [
                { value: 'staging', label: 'Staging' },
                { value: 'production', label: 'Production' },
              ],
            },
          ],
        },
      },
      undefined,
      { timeout: 30_000 },
    );
    await expect.poll(() => cards().length, { timeout: 10_000 }).toBe(2);
    expect((await send(server, click(people.ada, cards()[1], 'Production'))).status).toBe(200);
    expect((await asked).structuredContent).toMatchObject({
      status: 'answered',
      answers: { env: 'production' },
      answeredBy: 'ada@example.com',
    });
    const approval = client.callTool({ name: 'request_approval', arguments: { title: 'Drop the table?' } }, undefined, {
      timeout: 30_000,
    });
    await expect.poll(() => cards().length, { timeout: 10_000 }).toBe(3);
    expect((await send(server, click(people.ada, cards()[2], 'Deny'))).status).toBe(200);
    expect((await approval).structuredContent).toMatchObject({ decision: 'deny', answeredBy: 'ada@example.com' });
  });
});
