/**
 * A2A approvals with the real `@a2a-js/sdk` client over loopback: the task is auth-required, a person
 * decides through the normal HTTP route, and the task moves on by itself, as GetTask polling,
 * SubscribeToTask and SendStreamingMessage each see.
 */
import type { StreamResponse, Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, send, statusData, TaskState, textPart, userMessage } from '../../../test/a2a-fixtures.js';
import { z } from 'zod';
import { startServer, supportAgent, type TestServer } from '../../../test/http-fixtures.js';
import { tool } from '../../tool.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});

const ran = () => server.ran.get('issue_refund') ?? 0;
const getTask = (client: Client, id: string) => client.getTask({ tenant: '', id, historyLength: undefined });

async function allow(task: Task, token = 'ada') {
  const [pending] = statusData(task);
  return server.api('POST', `/api/conversations/${task.contextId}/actions/${String(pending.actionId)}`, {
    token,
    body: { resolution: { type: 'approval', decision: 'allow' } },
  });
}

/** Collects a stream's events until it ends; `onEvent` may act on each. */
async function collect(events: AsyncGenerator<StreamResponse>, onEvent?: (event: StreamResponse) => Promise<void>) {
  const seen: StreamResponse[] = [];
  for await (const event of events) {
    seen.push(event);
    await onEvent?.(event);
  }
  return seen;
}

const stateOf = (event: StreamResponse) =>
  event.payload?.$case === 'task'
    ? event.payload.value.status?.state
    : event.payload?.$case === 'statusUpdate'
      ? event.payload.value.status?.state
      : undefined;

describe('A2A approval decided elsewhere', () => {
  it('is auth-required, and GetTask sees it complete once a person allows it over HTTP', async () => {
    const client = await a2aClient(server, { token: 'ada' });
    const before = ran();
    const paused = await send(client, userMessage([textPart('Please refund order 42')]));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    expect(statusData(paused)[0]).toMatchObject({ kind: 'approval', answeredHere: false, toolName: 'issue_refund' });
    expect(ran()).toBe(before);

    expect((await allow(paused)).status).toBe(200);
    await expect
      .poll(async () => (await getTask(client, paused.id)).status?.state)
      .toBe(TaskState.TASK_STATE_COMPLETED);
    expect(ran()).toBe(before + 1);
    expect((await getTask(client, paused.id)).artifacts[0].parts[0].content).toEqual({ $case: 'text', value: 'Done.' });
  });

  it('SubscribeToTask streams the task on to completed after the approval', async () => {
    const client = await a2aClient(server, { token: 'ada' });
    const paused = await send(client, userMessage([textPart('refund please')]));
    const events = client.resubscribeTask({ tenant: '', id: paused.id });
    let allowed = false;
    const seen = await collect(events, async (event) => {
      if (!allowed && stateOf(event) === TaskState.TASK_STATE_AUTH_REQUIRED) {
        allowed = true;
        expect((await allow(paused)).status).toBe(200);
      }
    });
    expect(seen[0].payload?.$case).toBe('task');
    const states = seen.map(stateOf).filter((state) => state !== undefined);
    expect(states[0]).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(seen.some((event) => event.payload?.$case === 'artifactUpdate')).toBe(true);
  });

  it('SendStreamingMessage streams working, auth-required, then completed once a person allows', async () => {
    const client = await a2aClient(server, { token: 'ada' });
    let allowed = false;
    const seen = await collect(
      client.sendMessageStream({
        tenant: '',
        message: userMessage([textPart('refund now')]),
        configuration: undefined,
        metadata: undefined,
      }),
      async (event) => {
        if (!allowed && stateOf(event) === TaskState.TASK_STATE_AUTH_REQUIRED) {
          allowed = true;
          const value = event.payload!.value;
          const task = await getTask(client, 'taskId' in value ? value.taskId : value.id);
          expect((await allow(task)).status).toBe(200);
        }
      },
    );
    const states = seen.map(stateOf).filter((state) => state !== undefined);
    expect(states).toContain(TaskState.TASK_STATE_AUTH_REQUIRED);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('refuses the caller its own approval where the policy says four eyes, and nothing is consumed', async () => {
    const agent = supportAgent(new Map());
    const guarded = await startServer({
      agents: [
        {
          ...agent,
          tools: {
            ...agent.tools,
            issue_refund: tool({
              inputSchema: z.object({ orderId: z.number(), amount: z.number() }),
              needsApproval: true,
              approval: { excludeRequester: true },
              execute: async (input) => ({ refunded: input.amount }),
            }),
          },
        },
      ],
    });
    try {
      const client = await a2aClient(guarded, { token: 'ada' });
      const paused = await send(client, userMessage([textPart('refund 42')]));
      expect(paused.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
      const [pending] = statusData(paused);
      const refused = await send(
        client,
        userMessage([textPartless({ decision: 'allow' }, String(pending.actionId))], { taskId: paused.id }),
      ).catch((error: { data?: Array<{ metadata: { code: string } }>; message: string }) => error);
      expect((refused as { data: Array<{ metadata: { code: string } }> }).data[0].metadata.code).toBe(
        'action_forbidden',
      );
      expect((await getTask(client, paused.id)).status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    } finally {
      await guarded.close();
    }
  });
});

function textPartless(data: unknown, actionId: string) {
  return { content: { $case: 'data' as const, value: data }, metadata: { actionId }, filename: '', mediaType: '' };
}
