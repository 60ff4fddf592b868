import { afterEach, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../../test/http-fixtures.js';
import { fakeSlack, mention, sendToHeed, type FakeSlack } from '../../../../test/slack/fake-slack.js';

// A reminder before a request lapses (hitl.remind, docs/approvals.md) in the Slack thread the request was
// posted in, on a fake clock: a reply that says it is a reminder and when the request lapses, sent once.
const secret = 'slack-signing-secret-for-tests';
const t0 = Date.parse('2026-03-02T09:00:00.000Z');
let slack: FakeSlack | undefined;
let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  await slack?.close();
});

it('the reminder is a reply in the request’s thread saying it still waits and when it lapses, sent once', async () => {
  slack = await fakeSlack();
  const clock = { now: t0 };
  server = await startServer({
    now: () => new Date(clock.now),
    hitl: { timeoutMinutes: 120, remind: { beforeMinutes: [60] } },
    channels: { slack: { botToken: 'xoxb-test', signingSecret: secret, agent: 'support', apiUrl: slack.apiUrl } },
    notify: { pollIntervalMs: 20, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
  });
  const posts = () => slack!.of('chat.postMessage');
  await sendToHeed(server.url, secret, mention('please refund order 42', { user: 'U1', ts: '1700000000.000001' }));
  await slack.until(() => posts().length === 1);

  clock.now = t0 + 60 * 60_000;
  expect((await server.heed.expireDue()).reminded).toBe(1);
  expect((await server.heed.expireDue()).reminded).toBe(0);
  await slack.until(() => posts().length === 2);
  const reminder = posts()[1].body;
  expect(reminder).toMatchObject({ channel: 'C1', thread_ts: '1700000000.000001' });
  const seconds = Math.floor((t0 + 120 * 60_000) / 1000);
  expect(reminder.text).toBe(
    `:alarm_clock: Reminder: *Run issue_refund?* still waits for an answer. It lapses <!date^${seconds}^{date_short_pretty} at {time}|2026-03-02T11:00:00.000Z> if nobody answers.`,
  );
});
