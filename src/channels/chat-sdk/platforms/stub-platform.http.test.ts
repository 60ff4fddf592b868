import { Message, parseMarkdown, type Adapter, type ChatInstance, type WebhookOptions } from 'chat';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from '../../../../test/http-fixtures.js';
import { channelAgent } from '../../../../test/channels/channel-agent.js';
import { channelCommon, secretString, strict } from '../../../config-shapes.js';
import { createHeed } from '../../../heed.js';
import type { ChatPlatform } from '../chat-channel.js';
import { markdownCardText } from '../escape.js';
import { addChatPlatform } from '../platforms.js';

/*
 * docs/architecture.md, "Adding a platform": a new chat platform is one record plus its config shape,
 * with no other file touched. "Relay" is made up here, with an adapter of a few lines: its webhook is
 * JSON `{ thread, id, user, text }` proved by a shared secret in `x-relay-secret`, and what Heed posts
 * is kept in `posted`.
 */

const relayConfig = strict({
  ...channelCommon,
  secret: secretString('the relay secret').describe('The secret every webhook carries in `x-relay-secret`.'),
});
type RelayConfig = z.input<typeof relayConfig>;
declare module '../../../config-schema.js' {
  interface ChannelsConfig {
    relay?: RelayConfig;
  }
}

const posted: Array<{ threadId: string; text: string }> = [];

function relayAdapter(secret: string): Adapter {
  let chat: ChatInstance | undefined;
  const sent = (threadId: string, message: unknown) => {
    const text = typeof message === 'string' ? message : JSON.stringify(message);
    posted.push({ threadId, text });
    return { id: `out-${posted.length}`, threadId, raw: { text } };
  };
  return {
    name: 'relay',
    userName: 'heed',
    async initialize(instance) {
      chat = instance;
    },
    async handleWebhook(request: Request, options?: WebhookOptions) {
      if (request.headers.get('x-relay-secret') !== secret) return new Response('bad secret', { status: 401 });
      const body = (await request.json()) as { thread: string; id: string; user: string; text: string };
      const threadId = `relay:${body.thread}`;
      const message = new Message({
        id: body.id,
        threadId,
        text: body.text,
        formatted: parseMarkdown(body.text),
        raw: body,
        author: { userId: body.user, userName: body.user, fullName: body.user, isBot: false, isMe: false },
        metadata: { dateSent: new Date(), edited: false },
        attachments: [],
        isMention: true,
      });
      await chat!.processMessage(this, threadId, message, options);
      return new Response('ok');
    },
    postMessage: async (threadId, message) => sent(threadId, message),
    editMessage: async (threadId, _id, message) => sent(threadId, message),
    parseMessage: (raw) => raw as never,
    encodeThreadId: (data) => `relay:${String(data)}`,
    decodeThreadId: (threadId) => threadId.slice('relay:'.length),
    channelIdFromThreadId: (threadId) => threadId,
    renderFormatted: () => '',
    fetchMessages: async () => ({ messages: [] }),
    fetchThread: async (threadId) => ({ id: threadId, channelId: threadId, metadata: {} }),
    startTyping: async () => {},
    addReaction: async () => {},
    removeReaction: async () => {},
    deleteMessage: async () => {},
  };
}

const relay: ChatPlatform<RelayConfig> = {
  name: 'relay',
  title: 'Relay',
  package: 'chat',
  config: relayConfig,
  about: 'A made-up platform of this test.',
  adapter: (_module, config) => relayAdapter(config.secret),
  typed: { how: 'Or reply with', commands: false, buttons: false },
  cardText: markdownCardText,
};
// Test files share a worker's modules (vitest.config.ts): the platform is taken off once these are done.
afterAll(addChatPlatform(relay));

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  posted.length = 0;
});

function send(body: Record<string, string>, secret = 'relay-secret') {
  return fetch(`${server!.url}/api/channels/relay/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-relay-secret': secret },
    body: JSON.stringify(body),
  });
}

describe('a new platform is one record and its config shape', () => {
  it('its entry of `channels` is checked against its own shape', () => {
    expect(() =>
      createHeed({ agents: [channelAgent(new Map())], channels: { relay: { agent: 'support' } as RelayConfig } }),
    ).toThrow(/channels\.relay\.secret/);
  });

  it('its endpoint proves, records and answers through the one route; the agent replies there', async () => {
    server = await startServer({
      agents: [channelAgent(new Map())],
      channels: { relay: { agent: 'support', secret: 'relay-secret' } },
      notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
    });
    expect((await send({ thread: 't1', id: 'm1', user: 'ada', text: 'hi' }, 'wrong')).status).toBe(401);
    expect((await send({ thread: 't1', id: 'm1', user: 'ada', text: 'hi' })).status).toBe(200);
    await expect
      .poll(() => posted.map(({ threadId, text }) => [threadId, text.includes('Hello.')]))
      .toEqual([['relay:t1', true]]);
  });
});
