import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../../test/http-fixtures.js';
import {
  click,
  fakeSlack,
  mention,
  sendToHeed,
  type FakeSlack,
  type SlackCall,
} from '../../../../test/slack/fake-slack.js';

// `channels.slack.access(slackUserId, …)` as users write it: called with the clicker's Slack user id (the seam
// asks every platform's `access` about the person; Slack's entry keeps its own shape, docs/channels.md).
const secret = 'slack-signing-secret-for-tests';
let slack: FakeSlack;
let server: TestServer;
const asked: string[] = [];

beforeEach(async () => {
  slack = await fakeSlack();
  server = await startServer({
    channels: {
      slack: {
        botToken: 'xoxb-test',
        signingSecret: secret,
        agent: 'support',
        apiUrl: slack.apiUrl,
        access: (slackUserId, { action }) => {
          asked.push(`${slackUserId}:${action.kind}`);
          return slackUserId === 'U1';
        },
      },
    },
    notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
  });
});
afterEach(async () => {
  await server.close();
  await slack.close();
});

const withButtons = (call: SlackCall) =>
  (call.body.blocks ?? []).some((block: { type: string }) => block.type === 'actions');

it('access is asked with the Slack user id: a refused clicker is told so alone, an allowed one answers', async () => {
  await sendToHeed(server.url, secret, mention('please refund order 42', { user: 'U1', ts: '1700000000.000001' }));
  await slack.until(() => slack.of('chat.postMessage').some(withButtons));
  const posted = slack.of('chat.postMessage').find(withButtons)!;
  const card = { ts: posted.answer.ts as string, blocks: posted.body.blocks };

  await sendToHeed(server.url, secret, click(card, 'Allow', 'U2'), { form: true });
  await slack.until(() => slack.of('chat.postEphemeral').length === 1);
  expect(slack.of('chat.postEphemeral')[0].body).toMatchObject({ user: 'U2', thread_ts: '1700000000.000001' });
  const [conversation] = await server.heed.listConversations({});
  expect((await server.heed.conversation(conversation.id).actions())[0].status).toBe('pending');

  await sendToHeed(server.url, secret, click(card, 'Allow', 'U1'), { form: true });
  await expect
    .poll(async () => (await server.heed.conversation(conversation.id).actions())[0])
    .toMatchObject({ status: 'resolved', resolvedBy: 'slack:U1' });
  expect(asked).toEqual(['U2:approval', 'U1:approval']);
});
