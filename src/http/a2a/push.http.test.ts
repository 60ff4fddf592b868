/**
 * A2A push notifications with the real `@a2a-js/sdk` client over loopback: a config set on a task gets its
 * state changes POSTed from the outbox (token, signature); a URL the operator does not allow is refused
 * the way a request's callback is, and nothing is stored.
 */
import { StreamResponse } from '@a2a-js/sdk';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, send, statusData, TaskState, textPart, userMessage } from '../../../test/a2a-fixtures.js';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { webhookReceiver } from '../../../test/notify/receivers.js';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
let server: TestServer;
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
beforeAll(async () => {
  receiver = await webhookReceiver();
  const port = new URL(receiver.url).port;
  server = await startServer({
    notify: {
      // Loopback is allowed here only because the test lists it, as an operator would list a receiver.
      callbackHosts: [`127.0.0.1:${port}`],
      callbackSecret: secret,
      pollIntervalMs: 50,
    },
  });
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});

const stateOf = (body: string) => StreamResponse.fromJSON(JSON.parse(body)).payload;

describe('A2A push notifications', () => {
  it('POSTs the task state changes of a config set on an auth-required task, signed, with its token', async () => {
    const client = await a2aClient(server, { token: 'ada' });
    const paused = await send(client, userMessage([textPart('refund 5')]));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    const config = await client.createTaskPushNotificationConfig({
      tenant: '',
      id: '',
      taskId: paused.id,
      url: receiver.url,
      token: 'tok-1',
      authentication: undefined,
    });
    // The receiver's token is the server's to send, never shown back.
    expect(config).toMatchObject({ taskId: paused.id, url: receiver.url, token: '' });
    const listed = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: paused.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(listed.configs.map((entry) => entry.id)).toEqual([config.id]);
    // The config is the server's own business: the conversation's metadata does not show it.
    const conversation = await server.api('GET', `/api/conversations/${paused.contextId}`, { token: 'ada' });
    expect(JSON.stringify(conversation.body)).not.toContain('tok-1');

    const [pending] = statusData(paused);
    await server.api('POST', `/api/conversations/${paused.contextId}/actions/${String(pending.actionId)}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'allow' } },
    });
    const calls = await receiver.until((all) =>
      all.some((call) => {
        const payload = stateOf(call.body);
        return payload?.$case === 'statusUpdate' && payload.value.status?.state === TaskState.TASK_STATE_COMPLETED;
      }),
    );
    const last = calls.at(-1)!;
    expect(last.headers['x-a2a-notification-token']).toBe('tok-1');
    new Webhook(secret).verify(last.body, {
      'webhook-id': String(last.headers['webhook-id']),
      'webhook-timestamp': String(last.headers['webhook-timestamp']),
      'webhook-signature': String(last.headers['webhook-signature']),
    });
    const payload = stateOf(last.body);
    expect(payload?.$case === 'statusUpdate' && payload.value.taskId).toBe(paused.id);
    // Each state is posted once: no two calls carry the same state.
    const states = calls.map((call) => {
      const entry = stateOf(call.body);
      return entry?.$case === 'statusUpdate' ? entry.value.status?.state : undefined;
    });
    expect(new Set(states).size).toBe(states.length);

    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: paused.id, id: config.id });
    const after = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: paused.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(after.configs).toEqual([]);
  });

  it('refuses a push URL on a host the operator did not list, as callbacks are refused, and stores nothing', async () => {
    const client = await a2aClient(server, { token: 'ada' });
    const task = await send(client, userMessage([textPart('hi')]));
    for (const url of ['http://169.254.169.254/latest', 'http://127.0.0.1:1/elsewhere', 'file:///etc/passwd']) {
      const refused = await client
        .createTaskPushNotificationConfig({
          tenant: '',
          id: '',
          taskId: task.id,
          url,
          token: '',
          authentication: undefined,
        })
        .then(
          () => undefined,
          (error: { data: Array<{ metadata: Record<string, string> }> }) => error,
        );
      expect(refused?.data[0].metadata.code).toBe('callback_not_allowed');
    }
    const listed = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(listed.configs).toEqual([]);
  });

  it('keeps at most 10 configs per conversation: an 11th is refused with a readable error, and 10 stay', async () => {
    const client = await a2aClient(server, { token: 'ada' });
    const task = await send(client, userMessage([textPart('hi')]));
    const create = (id: string) =>
      client.createTaskPushNotificationConfig({
        tenant: '',
        id,
        taskId: task.id,
        url: receiver.url,
        token: '',
        authentication: undefined,
      });
    for (let i = 0; i < 10; i++) await create(`c${i}`);
    // The same id again replaces its config, so it is not an 11th.
    await create('c3');
    const refused = await create('c10').then(
      () => undefined,
      (error: { message: string; data: Array<{ metadata: Record<string, string> }> }) => error,
    );
    expect(refused?.data[0].metadata.code).toBe('invalid_request');
    expect(refused?.message).toContain('at most 10 A2A push configs');
    const listed = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(listed.configs.map((entry) => entry.id).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `c${i}`).sort(),
    );
  });
});
