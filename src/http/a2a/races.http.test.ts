/**
 * A2A replays and races with the real `@a2a-js/sdk` client over loopback: the same answer sent twice, and
 * an A2A answer racing an HTTP answer, settle once; the tool runs once and the loser sees the outcome.
 */
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

const ran = () => server.ran.get('issue_refund') ?? 0;
const allow = { decision: 'allow' };

describe('A2A replays and races', () => {
  it('the same answer sent twice (one message id, then again) settles once and both see the completed task', async () => {
    const client = await a2aClient(server, { token: 'ada' });
    const paused = await send(client, userMessage([textPart('ask me')]));
    const answer = userMessage([dataPart({ answers: { qty: 3 } })], { taskId: paused.id });
    const [first, second] = await Promise.all([send(client, answer), send(client, answer)]);
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // And once more, later: a replay, not an error.
    const third = await send(client, userMessage([dataPart({ answers: { qty: 3 } })], { taskId: paused.id }));
    expect(third.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const events = await server.api('GET', `/api/conversations/${paused.contextId}/events`, { token: 'ada' });
    const resolved = events.body.events.filter((event: { type: string }) => event.type === 'action.resolved');
    expect(resolved).toHaveLength(1);
    // Another answer after it is refused, saying how it was answered.
    const other = await send(client, userMessage([dataPart({ answers: { qty: 4 } })], { taskId: paused.id })).catch(
      (error: { data: Array<{ metadata: Record<string, string> }>; message: string }) => error,
    );
    expect((other as { data: Array<{ metadata: Record<string, string> }> }).data[0].metadata.code).toBe(
      'action_not_pending',
    );
  });

  it('an A2A approval racing an HTTP approval runs the tool once; both callers see the outcome', async () => {
    const client = await a2aClient(server, { token: 'ada' });
    const before = ran();
    const paused = await send(client, userMessage([textPart('refund 9')]));
    const actionId = String(statusData(paused)[0].actionId);
    const [viaA2a, viaHttp] = await Promise.all([
      send(client, userMessage([dataPart(allow, { actionId })], { taskId: paused.id })),
      server.api('POST', `/api/conversations/${paused.contextId}/actions/${actionId}`, {
        token: 'ada',
        body: { resolution: { type: 'approval', ...allow } },
      }),
    ]);
    // The HTTP loser gets 409 with the stored resolution; the A2A loser gets the task as it went on.
    expect([200, 409]).toContain(viaHttp.status);
    if (viaHttp.status === 409) expect(viaHttp.body.error.details.resolution).toMatchObject(allow);
    expect(viaA2a.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await expect
      .poll(async () => (await client.getTask({ tenant: '', id: paused.id, historyLength: undefined })).status?.state)
      .toBe(TaskState.TASK_STATE_COMPLETED);
    expect(ran()).toBe(before + 1);
  });

  it('an A2A answer after a deny given over HTTP is refused, and the tool never runs', async () => {
    const client = await a2aClient(server, { token: 'ada' });
    const before = ran();
    const paused = await send(client, userMessage([textPart('refund 10')]));
    const actionId = String(statusData(paused)[0].actionId);
    const denied = await server.api('POST', `/api/conversations/${paused.contextId}/actions/${actionId}`, {
      token: 'ada',
      body: { resolution: { type: 'approval', decision: 'deny' } },
    });
    expect(denied.status).toBe(200);
    const late = await send(client, userMessage([dataPart(allow, { actionId })], { taskId: paused.id })).catch(
      (error: { data: Array<{ metadata: Record<string, string> }>; message: string }) => error,
    );
    const refusal = late as { data: Array<{ metadata: Record<string, string> }>; message: string };
    expect(refusal.data[0].metadata.code).toBe('action_not_pending');
    expect(refusal.message).toContain('already answered');
    expect(ran()).toBe(before);
  });
});
