import { generateKeyPairSync, sign } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../../test/http-fixtures.js';
import { channelAgent, expectInert } from '../../../../test/channels/channel-agent.js';
import { fakeApi, type ApiCall, type FakeApi } from '../../../../test/channels/fake-api.js';

/**
 * Discord end to end (docs/channels.md): messages arrive as Gateway events forwarded with the bot token,
 * clicks as interactions the test signs with its own Ed25519 key, and Heed talks to a local fake of the
 * REST API (`channels.discord.apiUrl`).
 */

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const publicKeyHex = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');
const applicationId = '424242';
const botToken = 'discord-bot-token';
const people = {
  ada: { id: '111', username: 'ada' },
  bob: { id: '222', username: 'bob' },
  cyd: { id: '333', username: 'cyd' },
};

let discordApi: FakeApi;
let server: TestServer;
let ran: Map<string, number>;
let nextId: number;

beforeEach(async () => {
  nextId = 7000;
  discordApi = await fakeApi((call) => {
    const message = (id: string, channel: string) => ({
      id,
      channel_id: channel,
      content: call.body?.content ?? '',
      components: call.body?.components ?? [],
      embeds: call.body?.embeds ?? [],
      author: { id: applicationId, username: 'heed', bot: true },
      timestamp: '2026-12-02T10:00:00.000Z',
      attachments: [],
      mentions: [],
    });
    if (call.method === 'POST' && /^\/channels\/c1\/messages\/\d+\/threads$/.test(call.path))
      return { body: { id: 'th1', parent_id: 'c1', type: 11, name: 'thread' } };
    if (call.method === 'GET' && call.path === '/channels/th1')
      return { body: { id: 'th1', parent_id: 'c1', type: 11 } };
    const posted = /^\/channels\/(\w+)\/messages$/.exec(call.path);
    if (call.method === 'POST' && posted) return { body: message(String(nextId++), posted[1]) };
    const edited = /^\/channels\/(\w+)\/messages\/(\w+)$/.exec(call.path);
    if (call.method === 'PATCH' && edited) return { body: message(edited[2], edited[1]) };
    return undefined;
  });
  ran = new Map();
  server = await startServer({
    agents: [channelAgent(ran)],
    channels: {
      discord: { agent: 'support', botToken, publicKey: publicKeyHex, applicationId, apiUrl: discordApi.url },
    },
    notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
  });
});
afterEach(async () => {
  await server.close();
  await discordApi.close();
});

/** A message as the Gateway gives it, forwarded to Heed with the bot token. */
function forward(from: (typeof people)[keyof typeof people], content: string, extra: Record<string, unknown> = {}) {
  const inThread = extra.channel_id === 'th1';
  const data = {
    id: String(nextId++),
    channel_id: 'c1',
    guild_id: 'g1',
    channel_type: inThread ? 11 : 0,
    author: from,
    content,
    mentions: content.includes(`<@${applicationId}>`) ? [{ id: applicationId, username: 'heed', bot: true }] : [],
    timestamp: '2026-12-02T10:00:00.000Z',
    attachments: [],
    ...extra,
  };
  return { type: 'GATEWAY_MESSAGE_CREATE', timestamp: Date.now(), data };
}

function sendGateway(event: unknown, token = botToken) {
  return fetch(`${server.url}/api/channels/discord/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-discord-gateway-token': token },
    body: JSON.stringify(event),
  });
}

function sendInteraction(interaction: unknown, key = privateKey) {
  const body = JSON.stringify(interaction);
  const timestamp = String(Math.floor(Date.now() / 1000));
  return fetch(`${server.url}/api/channels/discord/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-signature-timestamp': timestamp,
      'x-signature-ed25519': sign(null, Buffer.from(timestamp + body), key).toString('hex'),
    },
    body,
  });
}

type Button = { type: number; label?: string; custom_id?: string };
function click(from: (typeof people)[keyof typeof people], posted: ApiCall, label: string) {
  const buttons = (posted.body.components ?? []).flatMap((row: { components: Button[] }) => row.components);
  const button = buttons.find((entry: Button) => entry.label === label);
  if (!button?.custom_id) throw new Error(`No button "${label}" on ${JSON.stringify(posted.body)}`);
  return {
    id: `i${nextId++}`,
    application_id: applicationId,
    type: 3,
    token: 'interaction-token',
    version: 1,
    guild_id: 'g1',
    channel_id: 'th1',
    channel: { id: 'th1', type: 11, parent_id: 'c1' },
    member: { user: from },
    message: { id: posted.answer.id, channel_id: 'th1' },
    data: { custom_id: button.custom_id, component_type: 2 },
  };
}

const posts = () => discordApi.calls.filter((call) => call.method === 'POST' && call.path === '/channels/th1/messages');
const withButtons = (call: ApiCall) => (call.body.components ?? []).length > 0;
const text = (call: ApiCall) => JSON.stringify(call.body);

describe('Discord', () => {
  it('a bad Ed25519 signature or gateway token is 401 and records nothing', async () => {
    const other = generateKeyPairSync('ed25519').privateKey;
    const forged = await sendInteraction({ type: 1, id: 'p', application_id: applicationId }, other);
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    expect((await sendGateway(forward(people.ada, `<@${applicationId}> refund order 42`), 'wrong')).status).toBe(401);
    expect(await server.heed.listConversations({})).toEqual([]);
    expect(discordApi.calls).toEqual([]);
    // Discord's endpoint check: a signed PING is answered with a PONG.
    const ping = await sendInteraction({ type: 1, id: 'p', application_id: applicationId });
    expect(await ping.json()).toEqual({ type: 1 });
  });

  it('a mention pauses on an approval posted with its tool and arguments; Allow by another person runs the tool once, the reply comes, the message says who; a late click runs nothing', async () => {
    const mention = forward(people.ada, `<@${applicationId}> please refund order 42`);
    expect((await sendGateway(mention)).status).toBe(200);
    const [conversation] = await server.heed.listConversations({});
    expect(conversation).toMatchObject({ channel: 'discord:g1:c1:th1' });
    expect((await sendGateway(mention)).status).toBe(200);

    await discordApi.until(() => posts().some(withButtons));
    const request = posts().find(withButtons)!;
    expect(request.headers.authorization).toBe(`Bot ${botToken}`);
    expect(text(request)).toContain('issue_refund');
    expect(text(request)).toContain('orderId');
    const snapshot = await server.heed.conversation(conversation.id).get();
    expect(snapshot.messages.filter((entry) => entry.role === 'user')).toHaveLength(1);

    expect((await sendInteraction(click(people.bob, request, 'Allow'))).status).toBe(200);
    await discordApi.until(() => posts().some((call) => text(call).includes('Done.')));
    expect(ran.get('issue_refund')).toBe(1);
    const [action] = await server.heed.conversation(conversation.id).actions();
    expect(action).toMatchObject({ status: 'resolved', resolvedBy: 'discord:222', channel: 'discord' });

    await discordApi.until(() => discordApi.calls.some((call) => call.method === 'PATCH'));
    const edit = discordApi.calls.find((call) => call.method === 'PATCH')!;
    expect(edit.path).toBe(`/channels/th1/messages/${request.answer.id}`);
    expect(text(edit)).toContain('Allowed by @bob');

    expect((await sendInteraction(click(people.cyd, request, 'Deny'))).status).toBe(200);
    await discordApi.until(() => posts().some((call) => text(call).includes('already settled')));
    // The note mentions Cyd as Discord mentions people, by id.
    expect(posts().find((call) => text(call).includes('already settled'))!.body.content).toMatch(
      new RegExp(`^<@${people.cyd.id}>: This request was already settled`),
    );
    expect(ran.get('issue_refund')).toBe(1);
  });

  it('a question with options is answered by its button; typed questions by a reply to the request', async () => {
    await sendGateway(forward(people.ada, `<@${applicationId}> pick a size`));
    await discordApi.until(() => posts().some(withButtons));
    await sendInteraction(click(people.bob, posts().find(withButtons)!, 'Large'));
    const [conversation] = await server.heed.listConversations({});
    expect((await server.heed.conversation(conversation.id).actions())[0]).toMatchObject({
      status: 'resolved',
      resolution: { answers: { size: ['l'] } },
    });
    await discordApi.until(() => posts().some((call) => text(call).includes('Done.')));

    await sendGateway(forward(people.ada, `<@${applicationId}> ask me`, { channel_id: 'th1' }));
    await discordApi.until(() => posts().some((call) => text(call).includes('How many?')));
    const asked = posts().find((call) => text(call).includes('How many?'))!;
    await sendGateway(
      forward(people.bob, 'size=2 qty=3', { channel_id: 'th1', message_reference: { message_id: asked.answer.id } }),
    );
    const actions = await server.heed.conversation(conversation.id).actions();
    expect(actions[1]).toMatchObject({
      status: 'resolved',
      resolvedBy: 'discord:222',
      resolution: { answers: { size: ['l'], qty: ['3'] } },
    });
  });
});

describe('Discord: what an agent writes stays words', () => {
  it('links, addresses and mentions (@everyone, <@id>) in a question arrive escaped', async () => {
    await sendGateway(forward(people.ada, `<@${applicationId}> spoof`));
    await discordApi.until(() => posts().some(withButtons));
    expectInert(text(posts().find(withButtons)!));
  });
});
