import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../../test/http-fixtures.js';
import { click, fakeSlack, mention, sendToHeed, type FakeSlack } from '../../../../test/slack/fake-slack.js';
import { sqliteStore } from '../../../store/sqlite/sqlite-store.js';

/*
 * A database made by the Slack channel as it ran on Bolt (test/fixtures/slack-before-chat-sdk.sql, made by
 * running that code; what Slack was sent is in its .json): served by Slack on Chat SDK, its thread goes on in
 * the same conversation and its posted cards are answered and edited as before. No migration: a thread's
 * conversation id is the same HMAC of `slack:<team>:<channel>:<thread ts>`.
 */
const fixtures = join(import.meta.dirname, '../../../../test/fixtures');
const before = JSON.parse(readFileSync(join(fixtures, 'slack-before-chat-sdk.json'), 'utf8')) as {
  threadConversation: string;
  threadCard: { ts: string; blocks: [] };
  requestId: string;
  requestCard: { ts: string; blocks: [] };
};
const secret = 'slack-signing-secret-for-tests';
// The fixture's clock: its requests were made then, and lapse a day later.
const madeAt = 1_796_518_840_232;
let slack: FakeSlack;
let server: TestServer;
let dir: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'heed-slack-before-'));
  const path = join(dir, 'heed.db');
  const db = new Database(path);
  db.exec(readFileSync(join(fixtures, 'slack-before-chat-sdk.sql'), 'utf8'));
  db.close();
  slack = await fakeSlack();
  const started = Date.now();
  server = await startServer({
    store: sqliteStore({ path }),
    now: () => new Date(madeAt + 60_000 + (Date.now() - started)),
    channels: {
      slack: {
        botToken: 'xoxb-test',
        signingSecret: secret,
        agent: 'support',
        apiUrl: slack.apiUrl,
        userId: (user) => (user.id === 'U1' ? 'ada' : undefined),
      },
    },
    notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
  });
});
afterEach(async () => {
  await server.close();
  await slack.close();
  rmSync(dir, { recursive: true, force: true });
});

const send = (payload: unknown, options?: Parameters<typeof sendToHeed>[3]) =>
  sendToHeed(server.url, secret, payload, options);

describe('Slack: a database made before Slack ran on Chat SDK', () => {
  it('a card posted then is answered and edited, and the thread goes on in the same conversation', async () => {
    // The card was posted in thread 1700000000.000001: a click on it names that thread, as Slack's does.
    const card = { ...before.threadCard, thread_ts: '1700000000.000001' };
    expect((await send(click(card, 'Allow', 'U2'), { form: true })).status).toBe(200);
    await slack.until(() => slack.of('chat.postMessage').some((call) => call.body.text === 'Done.'));
    expect(server.ran.get('issue_refund')).toBe(1);
    const [action] = await server.heed.conversation(before.threadConversation).actions();
    expect(action).toMatchObject({ status: 'resolved', resolvedBy: 'slack:U2', channel: 'slack' });
    // The card posted then (its receipt kept as `ts`) is the one edited.
    await slack.until(() => slack.of('chat.update').length === 1);
    expect(slack.of('chat.update')[0].body).toMatchObject({ channel: 'C1', ts: before.threadCard.ts });
    expect(JSON.stringify(slack.of('chat.update')[0].body.blocks)).toContain('Allowed by <@U2>');

    // A new mention in the same thread is a message of the same conversation, which its reply answers.
    const replies = slack.of('chat.postMessage').length;
    await send(mention('and order 43', { user: 'U1', ts: '1700000000.000050', threadTs: '1700000000.000001' }));
    await expect
      .poll(async () => (await server.heed.conversation(before.threadConversation).get()).messages.length)
      .toBeGreaterThan(4);
    expect((await server.heed.listConversations({})).map((entry) => entry.id)).toContain(before.threadConversation);
    expect(
      (await server.heed.listConversations({})).filter((entry) => entry.channel?.startsWith('slack:')),
    ).toHaveLength(1);
    await slack.until(() => slack.of('chat.postMessage').length > replies);
    expect(slack.of('chat.postMessage').at(-1)!.body).toMatchObject({
      channel: 'C1',
      thread_ts: '1700000000.000001',
    });
  });

  it('a request posted to a channel then is answered there by the person it asks', async () => {
    expect((await send(click(before.requestCard, 'Allow', 'U1'), { form: true })).status).toBe(200);
    await expect
      .poll(async () => (await server.api('GET', `/api/requests/${before.requestId}`, { token: 'bob' })).body)
      .toMatchObject({ status: 'resolved', resolvedBy: 'ada', channel: 'slack' });
    await slack.until(() => slack.of('chat.update').length === 1);
    expect(slack.of('chat.update')[0].body).toMatchObject({ channel: 'C1', ts: before.requestCard.ts });
  });
});
