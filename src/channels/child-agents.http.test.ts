import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { deliver, platformFake, type PlatformFake, type PlatformName } from '../../test/channels/platforms.js';
import { click, fakeSlack, mention, sendToHeed, type FakeSlack, type SlackCall } from '../../test/slack/fake-slack.js';
import { scriptedModel, type ScriptedPrompt } from '../testing/scripted-model.js';
import { tool } from '../tool.js';
import type { AgentConfig } from '../config.js';
import { memoryStore } from '../store/memory/memory-store.js';

/**
 * Agents that call agents in a chat thread (docs/concepts.md, docs/channels.md): the thread's agent calls a
 * child agent whose refund needs approval. The child's request is posted in the parent's thread, naming the
 * child agent; an answer there settles it once, the child's reply is the parent's tool result, and the
 * parent replies in the thread. Over real HTTP, with a local fake of each platform's API
 * (test/channels/platforms.ts): buttons (Telegram, Discord) and comment commands (GitHub).
 */

let server: TestServer | undefined;
let fake: PlatformFake | undefined;
let slack: FakeSlack | undefined;
afterEach(async () => {
  await server?.close();
  await fake?.close();
  await slack?.close();
  server = fake = slack = undefined;
});

/** The text of the last tool result the model was sent. */
function lastToolResult(messages: ScriptedPrompt): string | undefined {
  const last = messages.at(-1);
  if (last?.role !== 'tool') return undefined;
  const value = (last.content[0] as { output: { value: unknown } }).output.value;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function agents(ran: { refunds: number }): AgentConfig[] {
  const lead: AgentConfig = {
    name: 'lead',
    agents: ['refunds'],
    model: scriptedModel(({ messages }) => {
      const result = lastToolResult(messages);
      if (result !== undefined) return { text: `Lead: ${result}` };
      return { toolCalls: [{ toolName: 'agent_refunds', input: { task: 'Refund order 42.' } }] };
    }),
  };
  const refunds: AgentConfig = {
    name: 'refunds',
    description: 'Issues refunds.',
    tools: {
      issue_refund: tool({
        inputSchema: z.object({ orderId: z.number().int(), amount: z.number() }),
        needsApproval: true,
        execute: async (input) => {
          ran.refunds++;
          return { refunded: input.amount };
        },
      }),
    },
    model: scriptedModel(({ messages }) => {
      const result = lastToolResult(messages);
      if (result === undefined) return { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42, amount: 5 } }] };
      return { text: result.includes('refunded') ? 'Refunded 5.' : 'Not refunded.' };
    }),
  };
  return [lead, refunds];
}

const platforms: PlatformName[] = ['telegram', 'discord', 'github'];

describe.each(platforms)("a child agent's request in its parent's %s thread", (name) => {
  it('is posted there naming the child agent; an answer there settles it once and the parent replies in the thread', async () => {
    const ran = { refunds: 0 };
    fake = await platformFake(name);
    const store = memoryStore();
    server = await startServer({
      store,
      agents: agents(ran),
      channels: { [name]: { agent: 'lead', ...fake.config } },
      notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
    });
    const url = server.url;
    const platform = fake;

    expect((await deliver(url, name, platform.mention())).status).toBe(200);
    await platform.api.until(() => platform.requests().length === 1);
    const [request] = platform.requests();
    const posted = JSON.stringify(request.body);
    expect(posted).toContain('Asked by the agent refunds');
    expect(posted).toMatch(/orderId.{0,8}42/);

    // The click (or command), and the platform's retry of it: the refund runs once.
    const approve = platform.approve(request);
    expect((await deliver(url, name, approve)).status).toBe(200);
    expect((await deliver(url, name, approve)).status).toBe(200);
    await platform.api.until(() => platform.posted('Lead: Refunded 5.').length === 1);
    await platform.api.until(() => platform.edits().some((edit) => edit.includes('Allowed by @bob')));
    expect(ran.refunds).toBe(1);
    // The child's own reply is the parent's tool result, not a post in the thread.
    expect(platform.posted('Refunded 5.')).toHaveLength(0);
    expect(platform.requests()).toHaveLength(1);

    // The record: the child's action settled from the platform, by Bob; both conversations at rest.
    const [thread] = (await store.listConversations({})).filter((entry) => entry.agent === 'lead');
    const [child] = (await store.listConversations({})).filter((entry) => entry.agent === 'refunds');
    expect(thread).toMatchObject({ agent: 'lead', status: 'idle' });
    expect(child).toMatchObject({ status: 'idle' });
    const [action] = await store.listActions(child.id);
    expect(action).toMatchObject({ status: 'resolved', channel: name, resolvedBy: expect.stringMatching(`^${name}:`) });
    expect(await store.listActions(thread.id)).toEqual([]);
  });
});

describe("a child agent's request in its parent's Slack thread", () => {
  it('is posted with Block Kit naming the child agent; Allow settles it once, and a late click is told who answered', async () => {
    const ran = { refunds: 0 };
    const secret = 'slack-signing-secret-for-tests';
    slack = await fakeSlack();
    const fakeOf = slack;
    server = await startServer({
      agents: agents(ran),
      channels: { slack: { botToken: 'xoxb-test', signingSecret: secret, agent: 'lead', apiUrl: fakeOf.apiUrl } },
      notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
    });
    const url = server.url;
    const send = (payload: unknown, form = false) => sendToHeed(url, secret, payload, { form });
    const posts = () => fakeOf.of('chat.postMessage');
    const withButtons = (call: SlackCall) =>
      (call.body.blocks ?? []).some((block: { type: string }) => block.type === 'actions');

    expect((await send(mention('refund order 42', { user: 'U1', ts: '1700000000.000001' }))).status).toBe(200);
    await fakeOf.until(() => posts().some(withButtons));
    const request = posts().find(withButtons)!;
    expect(request.body).toMatchObject({ channel: 'C1', thread_ts: '1700000000.000001' });
    expect(JSON.stringify(request.body.blocks)).toContain('Asked by the agent *refunds*');

    const posted = { ts: request.answer.ts as string, blocks: request.body.blocks };
    expect((await send(click(posted, 'Allow', 'U2'), true)).status).toBe(200);
    await fakeOf.until(() => posts().some((call) => call.body.text === 'Lead: Refunded 5.'));
    const reply = posts().find((call) => call.body.text === 'Lead: Refunded 5.')!;
    expect(reply.body).toMatchObject({ channel: 'C1', thread_ts: '1700000000.000001' });
    await fakeOf.until(() => fakeOf.of('chat.update').length === 1);
    const update = JSON.stringify(fakeOf.of('chat.update')[0].body.blocks);
    expect(update).toContain('Allowed by <@U2>');
    expect(update).toContain('Asked by the agent *refunds*');
    expect(ran.refunds).toBe(1);

    // A late click: a note to that person alone, and nothing runs again.
    expect((await send(click(posted, 'Deny', 'U3'), true)).status).toBe(200);
    await fakeOf.until(() => fakeOf.of('chat.postEphemeral').length === 1);
    expect(fakeOf.of('chat.postEphemeral')[0].body.text).toContain('Allowed by <@U2>');
    expect(ran.refunds).toBe(1);
    expect(posts().filter((call) => call.body.text === 'Lead: Refunded 5.')).toHaveLength(1);
  });
});

describe("a child agent's request that lapses in its parent's thread", () => {
  it('Telegram: its card turns to how it ended, the thread is told, and the parent goes on with the child’s reply', async () => {
    const ran = { refunds: 0 };
    const t0 = Date.parse('2026-03-02T09:00:00.000Z');
    const clock = { now: t0 };
    fake = await platformFake('telegram');
    const platform = fake;
    server = await startServer({
      now: () => new Date(clock.now),
      agents: agents(ran),
      hitl: { timeoutMinutes: 30 },
      channels: { telegram: { agent: 'lead', ...(platform.config as { botToken: string; secretToken: string }) } },
      notify: { pollIntervalMs: 20, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
    });
    expect((await deliver(server.url, 'telegram', platform.mention())).status).toBe(200);
    await platform.api.until(() => platform.requests().length === 1);
    clock.now = t0 + 31 * 60_000;
    expect((await server.heed.expireDue()).lapsed).toBe(1);
    const lapse = 'Nobody answered this request in time, so it lapsed.';
    await platform.api.until(() => platform.posted(lapse).length === 1);
    await platform.api.until(() => platform.posted('Lead: Not refunded.').length === 1);
    expect(platform.edits()).toHaveLength(1);
    expect(platform.edits()[0]).toContain('Asked by the agent refunds');
    expect(ran.refunds).toBe(0);
  });
});

describe("a child agent of a thread's conversation, over HTTP, with sign-in", () => {
  it("is answered, cancelled and written only in the thread, and read by the thread's participants and admins", async () => {
    const ran = { refunds: 0 };
    fake = await platformFake('telegram');
    const platform = fake;
    const store = memoryStore();
    // Telegram's Ada (111) writes in the thread and Bob (222) clicks: both are Heed people; Eve never took part.
    const heedIds: Record<string, string> = { '111': 'ada@example.com', '222': 'bob@example.com' };
    server = await startServer({
      store,
      agents: agents(ran),
      auth: {
        tokens: { 'tok-ada': 'ada@example.com', 'tok-eve': 'eve@example.com', 'tok-root': 'root@example.com' },
        admins: ['root@example.com'],
      },
      channels: {
        telegram: {
          agent: 'lead',
          ...(platform.config as { botToken: string; secretToken: string }),
          userId: (user) => heedIds[user.id],
        },
      },
      notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
    });
    const running = server;

    expect((await deliver(running.url, 'telegram', platform.mention())).status).toBe(200);
    await platform.api.until(() => platform.requests().length === 1);
    const conversations = await store.listConversations({});
    const lead = conversations.find((entry) => entry.agent === 'lead')!;
    const child = conversations.find((entry) => entry.agent === 'refunds')!;
    const [action] = await store.listActions(child.id);
    expect(action).toMatchObject({ status: 'pending' });

    // Over HTTP, the child's request is refused as the thread's own would be: through the child's route and
    // the lead's, for a participant, someone who never took part, and an admin alike.
    const allow = { resolution: { type: 'approval', decision: 'allow' } };
    for (const token of ['tok-ada', 'tok-eve', 'tok-root']) {
      for (const id of [child.id, lead.id]) {
        const answered = await running.api('POST', `/api/conversations/${id}/actions/${action.id}`, {
          token,
          body: allow,
        });
        expect(answered.status, `${token} answering through ${id === lead.id ? 'the lead' : 'the child'}`).toBe(409);
        expect(answered.body.error).toMatchObject({ code: 'channel_chat', details: { channel: lead.channel } });
      }
      const cancelled = await running.api('POST', `/api/conversations/${child.id}/cancel`, { token });
      expect(cancelled.status).toBe(409);
      expect(cancelled.body.error.code).toBe('channel_chat');
      const written = await running.api('POST', `/api/conversations/${child.id}/messages`, {
        token,
        body: { content: 'Refund order 43 too.' },
      });
      expect(written.status).toBe(409);
      expect(written.body.error.code).toBe('channel_chat');
    }
    // Read by the thread's participant and an admin, as the lead is; not by whoever holds its id.
    for (const id of [lead.id, child.id]) {
      expect((await running.api('GET', `/api/conversations/${id}`, { token: 'tok-ada' })).status).toBe(200);
      expect((await running.api('GET', `/api/conversations/${id}`, { token: 'tok-root' })).status).toBe(200);
      const hidden = await running.api('GET', `/api/conversations/${id}`, { token: 'tok-eve' });
      expect(hidden.status).toBe(404);
      expect(hidden.body.error.code).toBe('not_found');
    }
    expect(await store.listActions(child.id)).toEqual([expect.objectContaining({ id: action.id, status: 'pending' })]);
    expect(ran.refunds).toBe(0);

    // The click in the thread settles it, once; the lead replies there, and the child's reply is not posted.
    const [request] = platform.requests();
    expect((await deliver(running.url, 'telegram', platform.approve(request))).status).toBe(200);
    await platform.api.until(() => platform.posted('Lead: Refunded 5.').length === 1);
    expect(ran.refunds).toBe(1);
    expect(platform.posted('Refunded 5.')).toHaveLength(0);
    const [settled] = await store.listActions(child.id);
    expect(settled).toMatchObject({ status: 'resolved', channel: 'telegram', resolvedBy: 'telegram:222' });
    await expect.poll(async () => (await store.getConversation(lead.id))?.status).toBe('idle');
  });
});

describe("a thread's conversation whose own request lapses into a cancel while its child agent waits", () => {
  it("Telegram: the lead's cancel stops the child too, and both cards say how they ended", async () => {
    const ran = { refunds: 0 };
    const [, refunds] = agents(ran);
    const announced: string[] = [];
    const lead: AgentConfig = {
      name: 'lead',
      agents: ['refunds'],
      hitl: { timeoutMinutes: 1, onTimeout: 'cancel' },
      tools: {
        announce: tool({
          inputSchema: z.object({ note: z.string() }),
          needsApproval: true,
          execute: async ({ note }) => {
            announced.push(note);
            return 'announced';
          },
        }),
      },
      model: scriptedModel(({ messages }) => {
        if (messages.some((message) => message.role === 'tool')) return { text: 'Lead: done.' };
        return {
          toolCalls: [
            { toolName: 'agent_refunds', input: { task: 'Refund order 42.' } },
            { toolName: 'announce', input: { note: 'Refunding order 42.' } },
          ],
        };
      }),
    };
    const t0 = Date.parse('2026-03-02T09:00:00.000Z');
    const clock = { now: t0 };
    fake = await platformFake('telegram');
    const platform = fake;
    const store = memoryStore();
    server = await startServer({
      store,
      now: () => new Date(clock.now),
      agents: [lead, refunds],
      channels: { telegram: { agent: 'lead', ...(platform.config as { botToken: string; secretToken: string }) } },
      notify: { pollIntervalMs: 20, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
    });
    expect((await deliver(server.url, 'telegram', platform.mention())).status).toBe(200);
    await platform.api.until(() => platform.requests().length === 2);

    clock.now = t0 + 2 * 60_000;
    expect((await server.heed.expireDue()).lapsed).toBe(1);
    const child = (await store.listConversations({})).find((entry) => entry.agent === 'refunds')!;
    await expect.poll(async () => (await store.getConversation(child.id))?.status).toBe('idle');
    expect(await store.listActions(child.id)).toEqual([expect.objectContaining({ status: 'cancelled' })]);
    // Both cards turn to how they ended: the lead's lapsed, the child's cancelled with it.
    await platform.api.until(() => platform.edits().length === 2);
    expect(platform.posted('Nobody answered this request in time, so it lapsed.')).toHaveLength(1);
    expect(ran.refunds).toBe(0);
    expect(announced).toEqual([]);
  });
});
