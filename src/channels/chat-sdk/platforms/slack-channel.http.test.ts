import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../../test/http-fixtures.js';
import {
  click,
  fakeSlack,
  mention,
  sendToHeed,
  type FakeSlack,
  type SlackCall,
} from '../../../../test/slack/fake-slack.js';

const secret = 'slack-signing-secret-for-tests';
let slack: FakeSlack;
let server: TestServer;

beforeEach(async () => {
  slack = await fakeSlack();
  server = await startServer({
    channels: {
      slack: {
        botToken: 'xoxb-test',
        signingSecret: secret,
        agent: 'support',
        apiUrl: slack.apiUrl,
        // U1 is Ada in Heed: the threads she writes in are hers to read in the console.
        userId: (user) => (user.id === 'U1' ? 'ada' : undefined),
      },
    },
    notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
  });
});
afterEach(async () => {
  await server.close();
  await slack.close();
});

const send = (payload: unknown, options?: Parameters<typeof sendToHeed>[3]) =>
  sendToHeed(server.url, secret, payload, options);
const posts = () => slack.of('chat.postMessage');
const withButtons = (call: SlackCall) =>
  (call.body.blocks ?? []).some((block: { type: string }) => block.type === 'actions');
const postedMessage = (call: SlackCall) => ({ ts: call.answer.ts as string, blocks: call.body.blocks });

async function conversationOfThread(): Promise<{ id: string; channel: string }> {
  const [conversation] = await server.heed.listConversations({});
  return conversation as { id: string; channel: string };
}

describe('Slack: conversations in threads', () => {
  it('a mention pauses on an approval posted in the thread; Allow by another person runs the tool once and the reply comes in the thread', async () => {
    const event = mention('please refund order 42', { user: 'U1', ts: '1700000000.000001', eventId: 'Ev1' });
    const first = await send(event);
    expect(first.status).toBe(200);
    // Slack retries an event it thinks was lost: the same event_id is handled once.
    expect((await send(event)).status).toBe(200);

    await slack.until(() => posts().some(withButtons));
    const request = posts().find(withButtons)!;
    expect(request.token).toBe('xoxb-test');
    expect(request.body).toMatchObject({ channel: 'C1', thread_ts: '1700000000.000001' });
    const text = JSON.stringify(request.body.blocks);
    expect(text).toContain('Approval needed:');
    expect(text).toContain('\\"orderId\\": 42');
    expect(request.body.blocks.at(-2) ?? request.body.blocks.at(-1)).toBeDefined();

    const conversation = await conversationOfThread();
    expect(conversation.channel).toBe('slack:T1:C1:1700000000.000001');
    const snapshot = await server.heed.conversation(conversation.id).get();
    expect(snapshot.messages.filter((message) => message.role === 'user')).toHaveLength(1);
    expect(snapshot.runtime.status).toBe('requires_action');
    const actionId = snapshot.runtime.pendingActionIds[0];

    // Its participant reads it in the console, but writes go through Slack only.
    expect((await server.api('GET', `/api/conversations/${conversation.id}`, { token: 'ada' })).status).toBe(200);
    const refused = await server.api('POST', `/api/conversations/${conversation.id}/actions/${actionId}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('channel_chat');
    expect(
      (
        await server.api('POST', `/api/conversations/${conversation.id}/messages`, {
          token: 'ada',
          body: { content: 'hi' },
        })
      ).body.error.code,
    ).toBe('channel_chat');
    await expect(server.heed.conversation(conversation.id).send('hi')).rejects.toMatchObject({ code: 'channel_chat' });

    // Another person in the thread allows it.
    expect((await send(click(postedMessage(request), 'Allow', 'U2'), { form: true })).status).toBe(200);
    await slack.until(() => posts().some((call) => call.body.text === 'Done.'));
    const reply = posts().find((call) => call.body.text === 'Done.')!;
    expect(reply.body).toMatchObject({ channel: 'C1', thread_ts: '1700000000.000001' });
    expect(server.ran.get('issue_refund')).toBe(1);

    // The request's message now says who answered what.
    await slack.until(() => slack.of('chat.update').length === 1);
    const update = slack.of('chat.update')[0];
    expect(update.body).toMatchObject({ channel: 'C1', ts: request.answer.ts });
    expect(JSON.stringify(update.body.blocks)).toContain('Allowed by <@U2>');
    expect(update.body.blocks.some((block: { type: string }) => block.type === 'actions')).toBe(false);

    const [action] = await server.heed.conversation(conversation.id).actions();
    expect(action).toMatchObject({ status: 'resolved', resolvedBy: 'slack:U2', channel: 'slack' });
    const events = await server.heed.conversation(conversation.id).events();
    expect(
      events.find((entry) => entry.type === 'message.created' && (entry.data as { role: string }).role === 'user')!
        .data,
    ).toMatchObject({ by: 'slack:U1' });

    // A late click: an ephemeral note naming who answered first, and nothing runs again.
    expect((await send(click(postedMessage(request), 'Deny', 'U3'), { form: true })).status).toBe(200);
    await slack.until(() => slack.of('chat.postEphemeral').length === 1);
    const note = slack.of('chat.postEphemeral')[0];
    expect(note.body).toMatchObject({ channel: 'C1', user: 'U3', thread_ts: '1700000000.000001' });
    expect(note.body.text).toContain('Allowed by <@U2>');
    expect(server.ran.get('issue_refund')).toBe(1);

    // Each thing was posted once: the request, the reply; one update. The outbox is done (every delivery
    // marked delivered after its call), so nothing more is to come.
    await expect
      .poll(async () =>
        (await server.heed.store!.listDeliveries({})).every((delivery) => delivery.status === 'delivered'),
      )
      .toBe(true);
    expect(posts().filter(withButtons)).toHaveLength(1);
    expect(posts().filter((call) => call.body.text === 'Done.')).toHaveLength(1);
    expect(slack.of('chat.update')).toHaveLength(1);
    expect(
      (await server.heed.conversation(conversation.id).get()).messages.filter((message) => message.role === 'user'),
    ).toHaveLength(1);
    const deliveries = await server.heed.store!.listDeliveries({});
    expect(deliveries.every((delivery) => delivery.status === 'delivered')).toBe(true);
  });

  it('a typed question is answered in a modal; the server refuses a bad value under its field first', async () => {
    await send(mention('ask me', { user: 'U1', ts: '1700000000.000002' }));
    await slack.until(() => posts().some(withButtons));
    const request = posts().find(withButtons)!;
    expect(JSON.stringify(request.body.blocks)).toContain('How many?');

    await send(click(postedMessage(request), 'Answer…', 'U2'), { form: true });
    await slack.until(() => slack.of('views.open').length === 1);
    const opened = slack.of('views.open')[0].body;
    expect(opened.trigger_id).toMatch(/^trigger-/);
    const view = opened.view;
    expect(view.blocks.map((block: { type: string; element?: { type: string } }) => block.element?.type)).toEqual([
      'static_select',
      'plain_text_input',
      'number_input',
    ]);

    const submit = (quantity: string) => ({
      type: 'view_submission',
      user: { id: 'U2', team_id: 'T1' },
      team: { id: 'T1' },
      view: {
        callback_id: view.callback_id,
        private_metadata: view.private_metadata,
        state: {
          values: {
            q0: { value: { type: 'static_select', selected_option: { value: '1' } } },
            q0_own: { value: { type: 'plain_text_input', value: null } },
            q1: { value: { type: 'number_input', value: quantity } },
          },
        },
      },
    });
    // 12 is over the question's max of 9: the modal shows the server's sentence under the quantity field.
    const wrong = await send(submit('12'), { form: true });
    expect(wrong.status).toBe(200);
    expect(wrong.body).toMatchObject({ response_action: 'errors' });
    const errors = (wrong.body as { errors: Record<string, string> }).errors;
    expect(Object.keys(errors)).toEqual(['q1']);
    expect(errors.q1).toMatch(/9/);
    const conversation = await conversationOfThread();
    expect((await server.heed.conversation(conversation.id).actions())[0].status).toBe('pending');

    const right = await send(submit('3'), { form: true });
    expect(right).toMatchObject({ status: 200, text: '' });
    const [action] = await server.heed.conversation(conversation.id).actions();
    expect(action).toMatchObject({
      status: 'resolved',
      resolvedBy: 'slack:U2',
      channel: 'slack',
      resolution: { answers: { size: ['l'], qty: ['3'] } },
    });
    await slack.until(() => slack.of('chat.update').length === 1);
    const shown = JSON.stringify(slack.of('chat.update')[0].body.blocks);
    expect(shown).toContain('Answered by <@U2>');
    expect(shown).toContain('Large');
    await slack.until(() => posts().some((call) => call.body.text === 'Done.'));
  });

  it('refuses a bad or stale signature with 401 and changes nothing; answers url_verification', async () => {
    const bad = await send(mention('refund'), { signature: 'v0=0000' });
    expect(bad.status).toBe(401);
    expect((bad.body as { error: { code: string } }).error.code).toBe('unauthorized');
    const stale = await send(mention('refund'), { timestamp: Math.floor(Date.now() / 1000) - 600 });
    expect(stale.status).toBe(401);
    const unsigned = await fetch(`${server.url}/api/channels/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(mention('refund')),
    });
    expect(unsigned.status).toBe(401);
    // A mention is recorded before Slack has its answer, and what it posts is in the outbox from then: a
    // refused one left neither.
    expect(await server.heed.listConversations({})).toEqual([]);
    expect(await server.heed.store!.listDeliveries({})).toEqual([]);
    expect(slack.calls).toEqual([]);

    const challenge = await send({ type: 'url_verification', token: 'x', challenge: 'abc123' });
    expect(challenge).toMatchObject({ status: 200, body: { challenge: 'abc123' } });
  });
});

describe('Slack: a request that lapses', () => {
  it('updates the posted request to say it lapsed, and a click after that is told so', async () => {
    let ahead = 0;
    const own = await startServer({
      channels: { slack: { botToken: 'xoxb-test', signingSecret: secret, agent: 'support', apiUrl: slack.apiUrl } },
      notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
      hitl: { timeoutMinutes: 0.001 },
      // The server's clock, moved on by the test past the request's 60 ms.
      now: () => new Date(Date.now() + ahead),
    });
    await sendToHeed(own.url, secret, mention('refund please', { ts: '1700000000.000003' }));
    await slack.until(() => posts().some(withButtons));
    const request = posts().find(withButtons)!;
    ahead = 60_000;
    await own.heed.expireDue();
    await slack.until(() => slack.of('chat.update').length === 1);
    expect(slack.of('chat.update')[0].body).toMatchObject({ ts: request.answer.ts });
    expect(JSON.stringify(slack.of('chat.update')[0].body.blocks)).toContain('Lapsed');
    await sendToHeed(own.url, secret, click(postedMessage(request), 'Allow', 'U2'), { form: true });
    await slack.until(() => slack.of('chat.postEphemeral').length === 1);
    expect(slack.of('chat.postEphemeral')[0].body.text).toContain('Lapsed');
    expect(own.ran.get('issue_refund')).toBeUndefined();
    await own.close();
  });
  it('a request made with POST /api/requests and posted to a channel is answered there by the person it is assigned to', async () => {
    const made = await server.api('POST', '/api/requests', {
      token: 'bob',
      body: {
        request: { kind: 'approval', title: 'Rotate the key?', toolName: 'rotate_key', args: { key: 'k1' } },
        assignees: ['ada'],
        channel: 'slack:T1:C1',
      },
    });
    expect(made.status).toBe(201);
    await slack.until(() => posts().some(withButtons));
    const card = posts().find(withButtons)!;
    // Posted in the channel itself, not in a thread.
    expect(card.body.channel).toBe('C1');
    expect(card.body.thread_ts).toBeUndefined();

    // U2 is nobody in Heed: told so, and nothing is recorded.
    expect((await send(click(postedMessage(card), 'Allow', 'U2'), { form: true })).status).toBe(200);
    await slack.until(() => slack.of('chat.postEphemeral').length === 1);
    expect(slack.of('chat.postEphemeral')[0].body).toMatchObject({ user: 'U2' });
    expect(slack.of('chat.postEphemeral')[0].body.text).toContain('not linked to a person in Heed');
    expect((await server.api('GET', `/api/requests/${made.body.id}`, { token: 'bob' })).body.status).toBe('pending');

    // U1 is Ada, whom it asks.
    expect((await send(click(postedMessage(card), 'Allow', 'U1'), { form: true })).status).toBe(200);
    await expect
      .poll(async () => (await server.api('GET', `/api/requests/${made.body.id}`, { token: 'bob' })).body)
      .toMatchObject({ status: 'resolved', resolvedBy: 'ada', channel: 'slack' });
    await slack.until(() => slack.of('chat.update').length === 1);
    expect(slack.of('chat.update')[0].body).toMatchObject({ channel: 'C1', ts: card.answer.ts });
  });
});
