/**
 * Who manages a task's A2A push configs, over raw JSON-RPC on loopback (docs/a2a.md, Push notifications): only
 * whoever may send to the task. A named approver and a delegate, who may read it, are refused every method as a
 * stranger is; nobody reads a config's token back; a config whose maker may not send to the task is not
 * delivered (one kept from a delegate, after the delegation ends), while the owner's is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { quorumAgent, quorumTokens } from '../../../test/fixtures/quorum-agent.js';
import { webhookReceiver } from '../../../test/notify/receivers.js';
import { memoryStore } from '../../store/memory/memory-store.js';

const store = memoryStore();
let server: TestServer;
let owners: Awaited<ReturnType<typeof webhookReceiver>>;
let delegates: Awaited<ReturnType<typeof webhookReceiver>>;
beforeAll(async () => {
  owners = await webhookReceiver();
  delegates = await webhookReceiver();
  server = await startServer({
    agents: [quorumAgent(() => undefined)],
    auth: { tokens: quorumTokens },
    store,
    notify: {
      callbackHosts: [new URL(owners.url).host, new URL(delegates.url).host],
      callbackSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      pollIntervalMs: 50,
    },
  });
});
afterAll(async () => {
  await server.close();
  await owners.close();
  await delegates.close();
});

let counter = 0;
async function rpc(token: string, method: string, params: unknown) {
  const response = await fetch(`${server.url}/api/a2a/payments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++counter, method, params }),
  });
  expect(response.status).toBe(200);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return (await response.json()) as { result?: any; error?: { message: string; data: Array<{ metadata: any }> } };
}

const stateOf = (body: string) =>
  (JSON.parse(body) as { statusUpdate?: { status?: { state?: string } } }).statusUpdate?.status?.state;

/** ada asks for a payment: a task waiting on 2 of bob, cat and dan; cat has handed her approvals to eve. */
async function pausedPayment() {
  const sent = await rpc('ada', 'SendMessage', {
    message: { messageId: `m-${++counter}`, role: 'ROLE_USER', parts: [{ text: 'pay acme' }] },
  });
  const task = sent.result.task as { id: string; contextId: string; status: { state: string } };
  expect(task.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
  return task;
}

describe('A2A push configs: who may manage them', () => {
  it('refuses a named approver and a delegate every push method, as a stranger, and shows nobody the token', async () => {
    expect((await server.api('PUT', '/api/me/delegation', { token: 'cat', body: { to: 'eve' } })).status).toBe(200);
    const task = await pausedPayment();
    // Both may read the task: that is not enough to manage its pushes.
    expect((await rpc('bob', 'GetTask', { id: task.id })).result?.id).toBe(task.id);
    expect((await rpc('eve', 'GetTask', { id: task.id })).result?.id).toBe(task.id);

    const made = await rpc('ada', 'CreateTaskPushNotificationConfig', {
      taskId: task.id,
      id: 'ada-1',
      url: owners.url,
      token: 'receiver-secret',
    });
    expect(made.error).toBeUndefined();
    expect(made.result).toMatchObject({ id: 'ada-1', url: owners.url });
    expect(JSON.stringify(made.result)).not.toContain('receiver-secret');

    for (const reader of ['bob', 'eve', 'erin']) {
      const attempts = [
        rpc(reader, 'ListTaskPushNotificationConfigs', { taskId: task.id }),
        rpc(reader, 'GetTaskPushNotificationConfig', { taskId: task.id, id: 'ada-1' }),
        rpc(reader, 'CreateTaskPushNotificationConfig', { taskId: task.id, id: 'ada-1', url: delegates.url }),
        rpc(reader, 'CreateTaskPushNotificationConfig', { taskId: task.id, id: `${reader}-1`, url: delegates.url }),
        rpc(reader, 'DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'ada-1' }),
      ];
      for (const answer of await Promise.all(attempts)) {
        expect(answer.result).toBeUndefined();
        expect(answer.error?.data[0].metadata.code).toBe('not_found');
        expect(answer.error?.message).toContain('There is no task');
      }
    }

    // ada's config is as she left it, the only one, and its token is not shown back.
    const listed = await rpc('ada', 'ListTaskPushNotificationConfigs', { taskId: task.id });
    expect(listed.result.configs).toEqual([{ id: 'ada-1', taskId: task.id, url: owners.url }]);
    const got = await rpc('ada', 'GetTaskPushNotificationConfig', { taskId: task.id, id: 'ada-1' });
    expect(got.result).toEqual({ id: 'ada-1', taskId: task.id, url: owners.url });
    await server.api('DELETE', '/api/me/delegation', { token: 'cat' });
  });

  it("stops delivering a config kept from a delegate once the delegation ends, while the owner's gets the next state", async () => {
    expect((await server.api('PUT', '/api/me/delegation', { token: 'cat', body: { to: 'eve' } })).status).toBe(200);
    const task = await pausedPayment();
    await rpc('ada', 'CreateTaskPushNotificationConfig', { taskId: task.id, id: 'ada-2', url: owners.url });
    // A config eve made while she stood in for cat, as stored before makers were checked.
    const conversation = (await store.getConversation(task.contextId))!;
    const kept = conversation.metadata?.['heed:a2a'] as { push: unknown[] } | undefined;
    expect(kept?.push).toHaveLength(1);
    const messageId = task.id.split('.')[1];
    const committed = await store.commit({
      conversationId: task.contextId,
      expectVersion: conversation.version,
      set: {
        metadata: {
          ...conversation.metadata,
          'heed:a2a': {
            push: [...(kept!.push as never[]), { id: 'eve-1', task: messageId, url: delegates.url, maker: 'eve' }],
          },
        },
      },
    });
    expect(committed.ok).toBe(true);
    expect((await server.api('DELETE', '/api/me/delegation', { token: 'cat' })).status).toBeLessThan(300);

    const actions = await server.api('GET', `/api/conversations/${task.contextId}/actions`, { token: 'ada' });
    const actionId = String(actions.body.actions[0].id);
    for (const voter of ['bob', 'dan']) {
      const voted = await server.api('POST', `/api/conversations/${task.contextId}/actions/${actionId}`, {
        token: voter,
        body: { resolution: { type: 'approval', decision: 'allow' } },
      });
      expect(voted.status).toBe(200);
    }
    await owners.until((calls) => calls.some((call) => stateOf(call.body) === 'TASK_STATE_COMPLETED'));
    // Every delivery the outbox wrote for eve's config has been attempted by now, and none reached her receiver.
    await expect
      .poll(async () => {
        const rows = await store.listDeliveries({ actionId: 'eve-1' });
        return rows.length > 0 && rows.every((row) => row.status !== 'pending');
      })
      .toBe(true);
    expect(delegates.calls).toEqual([]);
  });
});
