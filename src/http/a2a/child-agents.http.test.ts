/**
 * Agents that call agents over A2A, with the real `@a2a-js/sdk` client on loopback: the lead's task waits
 * input-required on its child's question, and a data part on that task answers it there, once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, dataPart, send, statusData, TaskState, textPart, userMessage } from '../../../test/a2a-fixtures.js';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';
import { scriptedModel } from '../../testing/scripted-model.js';
import type { AgentConfig } from '../../config.js';

const lead: AgentConfig = {
  name: 'lead',
  agents: ['clerk'],
  model: scriptedModel(({ messages }) => {
    const last = messages.at(-1);
    return last?.role === 'tool'
      ? { text: `Done: ${String((last.content[0] as { output: { value: unknown } }).output.value)}` }
      : { toolCalls: [{ toolName: 'agent_clerk', input: { task: 'Refund order 7.' } }] };
  }),
};
const answers: unknown[] = [];
const clerk: AgentConfig = {
  name: 'clerk',
  description: 'Refunds orders.',
  handler: {
    processMessage: () => ({
      pendingActions: [
        {
          kind: 'question',
          questions: [{ id: 'reason', header: 'Reason', prompt: 'Why refund order 7?', input: { type: 'text' } }],
        },
      ],
    }),
    resolveAction: ({ resolution }) => {
      answers.push(resolution);
      const reason = 'answers' in resolution ? resolution.answers.reason : [];
      return { content: `Refunded because: ${reason.join(', ')}` };
    },
  },
};

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ agents: [lead, clerk] });
});
afterAll(async () => {
  await server.close();
});

describe('A2A and a child agent', () => {
  it("the lead's task is input-required with the child's question, and answering it on the task completes the lead", async () => {
    const client = await a2aClient(server, { agent: 'lead', token: 'ada' });
    const paused = await send(client, userMessage([textPart('Refund order 7')]));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const [asked] = statusData(paused);
    expect(asked).toMatchObject({ kind: 'question', answeredHere: true, actionId: expect.any(String) });
    const action = asked.action as { via: Array<{ agent: string; conversationId: string }> };
    expect(action.via).toEqual([{ agent: 'clerk', conversationId: expect.any(String) }]);
    // The same request as the HTTP API lists it under the parent.
    const parent = (await server.api('GET', `/api/conversations/${paused.contextId}`, { token: 'ada' })).body;
    expect(parent.pendingActions.map((entry: { id: string }) => entry.id)).toEqual([asked.actionId]);

    const answered = await send(
      client,
      userMessage([dataPart({ answers: { reason: 'damaged' } })], { taskId: paused.id, contextId: paused.contextId }),
    );
    expect(answered.id).toBe(paused.id);
    await expect
      .poll(async () => (await client.getTask({ tenant: '', id: paused.id, historyLength: undefined })).status?.state)
      .toBe(TaskState.TASK_STATE_COMPLETED);
    const done = await client.getTask({ tenant: '', id: paused.id, historyLength: undefined });
    expect(JSON.stringify(done.artifacts)).toContain('Done: Refunded because: damaged');
    expect(answers).toEqual([{ type: 'question', answers: { reason: ['damaged'] } }]);

    // A client's retry of the same answer on the task (with or without naming the action) is a replay, as for
    // the task's own request: it gets the completed task, and the child runs nothing again.
    for (const metadata of [{ actionId: String(asked.actionId) }, undefined]) {
      const replayed = await send(
        client,
        userMessage([dataPart({ answers: { reason: 'damaged' } }, metadata)], {
          taskId: paused.id,
          contextId: paused.contextId,
        }),
      );
      expect(replayed.id).toBe(paused.id);
      expect(replayed.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(JSON.stringify(replayed.artifacts)).toContain('Done: Refunded because: damaged');
    }
    expect(answers).toHaveLength(1);
    // Another answer after it is refused, saying how it was answered.
    const other = await send(
      client,
      userMessage([dataPart({ answers: { reason: 'other' } })], { taskId: paused.id, contextId: paused.contextId }),
    ).catch((error: { data: Array<{ metadata: Record<string, string> }>; message: string }) => error);
    const refusal = other as { data: Array<{ metadata: Record<string, string> }>; message: string };
    expect(refusal.data[0].metadata.code).toBe('action_not_pending');
    expect(refusal.message).toContain('already answered');
    expect(answers).toHaveLength(1);

    // The child's request is settled: answering it again through the parent gets the stored answer, not a rerun.
    const again = await server.api('POST', `/api/conversations/${paused.contextId}/actions/${String(asked.actionId)}`, {
      token: 'ada',
      body: { resolution: { type: 'question', answers: { reason: 'other' } } },
    });
    expect(again.status).toBe(409);
    expect(answers).toHaveLength(1);
  });
});
