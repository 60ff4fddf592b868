import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { memoryStore } from '../../../store/memory/memory-store.js';
import type { Store } from '../../../store/store.js';
import { startServer, type TestServer } from '../../../../test/http-fixtures.js';
import { channelAgent } from '../../../../test/channels/channel-agent.js';
import { fakeApi, type ApiCall, type FakeApi } from '../../../../test/channels/fake-api.js';

/**
 * Discord with `gateway: true` (docs/channels.md): Heed holds the Gateway socket itself, against a local
 * fake Gateway (Gateway v10 over a real WebSocket on loopback: HELLO, IDENTIFY → READY, heartbeat ACK,
 * then the test's MESSAGE_CREATE dispatches) whose URL the fake REST API gives at `GET /gateway/bot`.
 */

const publicKey = generateKeyPairSync('ed25519')
  .publicKey.export({ format: 'der', type: 'spki' })
  .subarray(-32)
  .toString('hex');
const applicationId = '424242';
const botToken = 'discord-bot-token';
const ada = { id: '111', username: 'ada' };

interface FakeGateway {
  url: string;
  /** The IDENTIFY payloads received, one per session started. */
  identifies: unknown[];
  /** Sends a MESSAGE_CREATE to every identified connection. */
  dispatchMessage(data: unknown): void;
  close(): Promise<void>;
}

async function fakeGateway(): Promise<FakeGateway> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const identifies: unknown[] = [];
  const ready = new Set<WebSocket>();
  let sequence = 0;
  const send = (socket: WebSocket, payload: unknown) => socket.send(JSON.stringify(payload));
  server.on('connection', (socket) => {
    send(socket, { op: 10, d: { heartbeat_interval: 45_000 }, s: null, t: null });
    socket.on('message', (raw) => {
      const payload = JSON.parse(String(raw)) as { op: number; d: unknown };
      if (payload.op === 1) send(socket, { op: 11, d: null, s: null, t: null });
      if (payload.op === 2) {
        identifies.push(payload.d);
        ready.add(socket);
        send(socket, {
          op: 0,
          t: 'READY',
          s: ++sequence,
          d: {
            v: 10,
            user: { id: applicationId, username: 'heed', bot: true, discriminator: '0', avatar: null },
            guilds: [],
            session_id: `session-${identifies.length}`,
            resume_gateway_url: url,
            application: { id: applicationId, flags: 0 },
          },
        });
      }
    });
    socket.on('close', () => ready.delete(socket));
  });
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    identifies,
    dispatchMessage(data) {
      for (const socket of ready) send(socket, { op: 0, t: 'MESSAGE_CREATE', s: ++sequence, d: data });
    },
    close: () => {
      for (const client of server.clients) client.terminate();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let gateway: FakeGateway;
let discordApi: FakeApi;
let nextId: number;
const running: TestServer[] = [];

beforeEach(async () => {
  nextId = 7000;
  gateway = await fakeGateway();
  discordApi = await fakeApi((call) => {
    // Heed's apiUrl is the fake's `/api/v10`, as Discord's own is `https://discord.com/api/v10`.
    const path = call.path.replace(/^\/api\/v10/, '');
    if (call.method === 'GET' && path === '/gateway/bot')
      return {
        body: {
          url: gateway.url,
          shards: 1,
          session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
        },
      };
    if (call.method === 'GET' && path === '/channels/th1') return { body: { id: 'th1', parent_id: 'c1', type: 11 } };
    if (call.method === 'POST' && /^\/channels\/c1\/messages\/\d+\/threads$/.test(path))
      return { body: { id: 'th1', parent_id: 'c1', type: 11, name: 'thread' } };
    const posted = /^\/channels\/(\w+)\/messages$/.exec(path);
    if (call.method === 'POST' && posted)
      return {
        body: {
          id: String(nextId++),
          channel_id: posted[1],
          content: call.body?.content ?? '',
          components: call.body?.components ?? [],
          author: { id: applicationId, username: 'heed', bot: true },
          timestamp: '2026-12-02T10:00:00.000Z',
          attachments: [],
          embeds: [],
          mentions: [],
        },
      };
    return undefined;
  });
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
  await gateway.close();
  await discordApi.close();
});

function instance(store: Store, leaseMs?: number): Promise<TestServer> {
  return startServer({
    agents: [channelAgent(new Map())],
    store,
    channels: {
      discord: {
        agent: 'support',
        botToken,
        publicKey,
        applicationId,
        apiUrl: `${discordApi.url}/api/v10`,
        gateway: leaseMs ? { leaseMs } : true,
      },
    },
    notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
  }).then((server) => (running.push(server), server));
}

/** A message as the Gateway dispatches it, in channel c1. */
function mention(content: string) {
  return {
    id: String(nextId++),
    channel_id: 'c1',
    guild_id: 'g1',
    channel_type: 0,
    author: ada,
    content: `<@${applicationId}> ${content}`,
    mentions: [{ id: applicationId, username: 'heed', bot: true }],
    timestamp: '2026-12-02T10:00:00.000Z',
    attachments: [],
    embeds: [],
    type: 0,
  };
}

/** Polls until `check` holds (a generous bound: this waits for something to happen, it times nothing). */
async function until(check: () => boolean | Promise<boolean>, what: string) {
  for (let waited = 0; !(await check()); waited += 25) {
    if (waited > 15_000) throw new Error(`Never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const posts = () =>
  discordApi.calls.filter((call) => call.method === 'POST' && /\/channels\/th1\/messages$/.test(call.path));
const withButtons = (call: ApiCall) => (call.body.components ?? []).length > 0;

describe('Discord with gateway: true', { timeout: 60_000 }, () => {
  it('connects with the bot token and its intents; a mention over the socket has its approval posted once', async () => {
    const server = await instance(memoryStore());
    await until(() => gateway.identifies.length === 1, 'an IDENTIFY');
    expect(gateway.identifies[0]).toMatchObject({ token: botToken, intents: 1 | (1 << 9) | (1 << 12) | (1 << 15) });
    const gatewayInfo = discordApi.calls.find((call) => call.path.endsWith('/gateway/bot'))!;
    expect(gatewayInfo.headers.authorization).toBe(`Bot ${botToken}`);

    gateway.dispatchMessage(mention('please refund order 42'));
    await until(() => posts().some(withButtons), 'the approval posted');
    const [conversation] = await server.heed.listConversations({});
    expect(conversation).toMatchObject({ channel: 'discord:g1:c1:th1' });
    expect(JSON.stringify(posts().find(withButtons)!.body)).toContain('issue_refund');
    await until(
      async () => (await server.heed.conversation(conversation.id).actions()).length === 1,
      'the approval recorded',
    );
    expect(posts().filter(withButtons)).toHaveLength(1);
  });

  it('the same MESSAGE_CREATE dispatched twice is recorded once and its approval posted once', async () => {
    const server = await instance(memoryStore());
    await until(() => gateway.identifies.length === 1, 'an IDENTIFY');
    const message = mention('please refund order 42');
    gateway.dispatchMessage(message);
    gateway.dispatchMessage(message);
    // A later message of the same channel is handed over after both: its note says the thread waits.
    gateway.dispatchMessage(mention('hello again'));
    await until(() => posts().some((call) => String(call.body.content).includes('waiting for an answer')), 'the note');
    const [conversation] = await server.heed.listConversations({});
    const snapshot = await server.heed.conversation(conversation.id).get();
    expect(snapshot.messages.filter((entry) => entry.role === 'user')).toHaveLength(1);
    await until(() => posts().some(withButtons), 'the approval posted');
    expect(posts().filter(withButtons)).toHaveLength(1);
  });

  it('of two instances on one store only one holds the socket; when it closes, the other takes it over', async () => {
    const store = memoryStore();
    const leaseMs = 300;
    const first = await instance(store, leaseMs);
    await until(() => gateway.identifies.length === 1, 'the first IDENTIFY');
    const second = await instance(store, leaseMs);
    // Several leases go by: the second instance never connects while the first renews.
    // fixed wait kept: the scenario is time going by (leases on the wall clock, which the Gateway's lease reads)
    await new Promise((resolve) => setTimeout(resolve, leaseMs * 4));
    expect(gateway.identifies).toHaveLength(1);

    await first.close();
    running.splice(running.indexOf(first), 1);
    await until(() => gateway.identifies.length === 2, 'the second IDENTIFY');
    gateway.dispatchMessage(mention('please refund order 42'));
    await until(() => posts().some(withButtons), 'the approval posted by the second instance');
    expect(await second.heed.listConversations({})).toHaveLength(1);
  });
});
