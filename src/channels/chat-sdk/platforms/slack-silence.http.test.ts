import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, type TestServer } from '../../../../test/http-fixtures.js';
import { fakeSlack, mention, sendToHeed, type FakeSlack } from '../../../../test/slack/fake-slack.js';
import { scriptedModel } from '../../../testing/scripted-model.js';
import { tool } from '../../../tool.js';
import { memoryStore } from '../../../store/memory/memory-store.js';
import type { Store } from '../../../store/store.js';
import type { HeedConfig } from '../../../config.js';
import { STORE_OUTAGE_TEXT } from '../../channel.js';

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

async function start(extra: Partial<HeedConfig> = {}) {
  slack = await fakeSlack();
  const clock = { now: t0 };
  server = await startServer({
    agents: [agent],
    now: () => new Date(clock.now),
    hitl: { timeoutMinutes: 30 },
    channels: { slack: { botToken: 'xoxb-test', signingSecret: secret, agent: 'support', apiUrl: slack.apiUrl } },
    notify: { pollIntervalMs: 20, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
    ...extra,
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
  const lapse = 'Nobody answered this request in time, so it lapsed.';
  await slack!.until(() => posts().some((post) => post.body.text === lapse) && slack!.of('chat.update').length === 1);
  expect(posts().filter((post) => post.body.text === lapse)).toEqual([
    expect.objectContaining({ body: expect.objectContaining({ channel: 'C1', thread_ts: '1700000000.000002' }) }),
  ]);
});

it('a turn the store cuts off says in the thread that it will carry on', async () => {
  const store = memoryStore();
  let cut = true;
  // The database goes away just as the agent writes its request (the person's message is recorded).
  const flaky: Store = {
    ...store,
    commit: async (change) => {
      if (cut && change.messages?.some((entry) => entry.role === 'assistant')) {
        cut = false;
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      }
      return store.commit(change);
    },
  };
  await start({ store: flaky, logger: { debug() {}, info() {}, warn() {}, error() {} } });
  const posts = () => slack!.of('chat.postMessage');
  await sendToHeed(server!.url, secret, mention('please refund order 42', { user: 'U1', ts: '1700000000.000003' }));
  await slack!.until(() => posts().length === 1);
  expect(posts()[0].body).toMatchObject({ channel: 'C1', thread_ts: '1700000000.000003', text: STORE_OUTAGE_TEXT });
});
