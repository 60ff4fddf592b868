/**
 * A2A refusals with the real `@a2a-js/sdk` client over loopback: a bad answer is a readable JSON-RPC error with
 * Heed's code in `data` and consumes nothing; an unknown task and another user's task give the same
 * not-found; CancelTask cancels an open pause, and an ended task cannot be cancelled.
 */
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, dataPart, send, statusData, TaskState, textPart, userMessage } from '../../../test/a2a-fixtures.js';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});

interface RpcFailure {
  message: string;
  envelopeCode?: number;
  data?: Array<{ reason: string; metadata: Record<string, string> }>;
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a JSON-RPC error');
    },
    (error: RpcFailure) => error,
  );
const getTask = (client: Client, id: string) => client.getTask({ tenant: '', id, historyLength: undefined });

describe('A2A refusals', () => {
  it('refuses a bad answer with a readable error and a stable code, and the question is still pending', async () => {
    const client = await a2aClient(server, { token: 'ada' });
    const paused = await send(client, userMessage([textPart('ask me')]));
    const [asked] = statusData(paused);
    const refused = await failure(
      send(client, userMessage([dataPart({ answers: { qty: 99 } })], { taskId: paused.id })),
    );
    expect(refused.envelopeCode).toBe(-32602);
    expect(refused.message).toMatch(/Quantity|qty|9/);
    expect(refused.data?.[0].metadata.code).toBe('invalid_resolution');
    const noData = await failure(send(client, userMessage([textPart('large')], { taskId: paused.id })));
    expect(noData.data?.[0].metadata.code).toBe('invalid_resolution');
    expect(noData.message).toContain('data part');
    // Nothing consumed: the same action still waits, and a good answer still completes the task.
    const actions = await server.api('GET', `/api/conversations/${paused.contextId}/actions`, { token: 'ada' });
    expect(actions.body.actions).toEqual([expect.objectContaining({ id: asked.actionId, status: 'pending' })]);
    expect((await getTask(client, paused.id)).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = await send(client, userMessage([dataPart({ answers: { size: 'Large' } })], { taskId: paused.id }));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("gives the same not-found for an unknown task and for another user's task", async () => {
    const ada = await a2aClient(server, { token: 'ada' });
    const bob = await a2aClient(server, { token: 'bob' });
    const task = await send(ada, userMessage([textPart('hi')]));
    const foreign = await failure(getTask(bob, task.id));
    const unknown = await failure(getTask(bob, `${task.contextId}.m_nothing`));
    const garbage = await failure(getTask(bob, 'not-a-task'));
    for (const error of [foreign, unknown, garbage]) {
      expect(error.envelopeCode).toBe(-32001);
      expect(error.data?.[0].metadata.code).toBe('not_found');
    }
    // The sentence differs only by the id it repeats.
    expect(foreign.message.replace(task.id, 'ID')).toBe(unknown.message.replace(`${task.contextId}.m_nothing`, 'ID'));
    const subscribe = await failure(
      (async () => {
        for await (const event of bob.resubscribeTask({ tenant: '', id: task.id })) void event;
      })(),
    );
    expect(subscribe.data?.[0].metadata.code).toBe('not_found');
    // Another user cannot answer into it either.
    const answer = await failure(send(bob, userMessage([dataPart({ answers: {} })], { taskId: task.id })));
    expect(answer.data?.[0].metadata.code).toBe('not_found');
  });

  it('CancelTask cancels an open pause; an ended task cannot be cancelled', async () => {
    const client = await a2aClient(server, { token: 'ada' });
    const paused = await send(client, userMessage([textPart('refund 7')]));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    const cancelled = await client.cancelTask({ tenant: '', id: paused.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const actions = await server.api('GET', `/api/conversations/${paused.contextId}/actions`, { token: 'ada' });
    expect(actions.body.actions[0].status).toBe('cancelled');
    expect((await getTask(client, paused.id)).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const again = await failure(client.cancelTask({ tenant: '', id: paused.id, metadata: undefined }));
    expect(again.envelopeCode).toBe(-32002);
    expect(again.data?.[0].metadata.code).toBe('task_not_cancelable');
  });

  it('refuses a body that is not JSON-RPC with a 400, and answers an unknown method with a JSON-RPC error', async () => {
    // Not JSON-RPC at all: an HTTP 400, as any route refuses a body that is not its own.
    const bad = await server.api('POST', '/api/a2a/support', { token: 'ada', body: { method: 'GetTask' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    const unknown = await server.api('POST', '/api/a2a/support', {
      token: 'ada',
      body: { jsonrpc: '2.0', id: 3, method: 'Teleport', params: {} },
    });
    expect(unknown.body).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32601 } });
    const noAgent = await server.api('POST', '/api/a2a/nobody', {
      token: 'ada',
      body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } },
    });
    expect(noAgent.status).toBe(404);
    expect((await server.api('POST', '/api/a2a/support', { token: 'wrong', body: {} })).status).toBe(401);
  });
});
