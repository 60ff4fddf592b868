import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { fakeSlack, mention, sendToHeed, type FakeSlack } from '../../../test/slack/fake-slack.js';
import { scriptedModel } from '../../testing/scripted-model.js';
import { tool } from '../../tool.js';

// Silence is not an answer (docs/channels.md): a turn that fails, and a request that lapses, say so in
// the Slack thread in one plain sentence, on a fake clock, against a local fake of Slack's Web API.
const secret = 'slack-signing-secret-for-tests';
const t0 = Date.parse('2026-03-02T09:00:00.000Z');
let slack: FakeSlack | undefined;
let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  await slack?.close();
});

/** "refund" → an approval; "fail" → the model's provider errors. */
const agent = {
  name: 'support',
  model: scriptedModel(({ messages }) => {
    const last = messages.at(-1);
    if (last?.role === 'tool') return { text: 'Done.' };
    const text =
      last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
    if (text.includes('fail')) throw new Error('503 Service Unavailable from the provider');
    return { toolCalls: [{ toolName: 'issue_refund', input: { orderId: 42 } }] };
  }),
  tools: {
    issue_refund: tool({
      inputSchema: z.object({ orderId: z.number() }),
      needsApproval: true,
      execute: async () => ({ refunded: true }),
    }),
  },
};

async function start() {
  slack = await fakeSlack();
  const clock = { now: t0 };
  server = await startServer({
    agents: [agent],
    now: () => new Date(clock.now),
    hitl: { timeoutMinutes: 30 },
    channels: { slack: { botToken: 'xoxb-test', signingSecret: secret, agent: 'support', apiUrl: slack.apiUrl } },
    notify: { pollIntervalMs: 20, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
  });
  return clock;
}

it('a turn whose model fails says so in the thread', async () => {
  await start();
  const posts = () => slack!.of('chat.postMessage');
  await sendToHeed(server!.url, secret, mention('please fail', { user: 'U1', ts: '1700000000.000001' }));
  await slack!.until(() => posts().length === 1);
  expect(posts()[0].body).toMatchObject({
    channel: 'C1',
    thread_ts: '1700000000.000001',
    text: 'The agent stopped before it could answer (error: model_error). Send your message again to retry.',
  });
});

it('a request that lapses says so in its thread, besides its card', async () => {
  const clock = await start();
  const posts = () => slack!.of('chat.postMessage');
  await sendToHeed(server!.url, secret, mention('please refund order 42', { user: 'U1', ts: '1700000000.000002' }));
  await slack!.until(() => posts().length === 1);
  clock.now = t0 + 31 * 60_000;
  expect((await server!.heed.expireDue()).lapsed).toBe(1);
  await slack!.until(() => posts().length >= 2 && slack!.of('chat.update').length === 1);
  expect(posts()[1].body).toMatchObject({
    channel: 'C1',
    thread_ts: '1700000000.000002',
    text: 'Nobody answered this request in time, so it lapsed.',
  });
  expect(posts()).toHaveLength(2);
});
