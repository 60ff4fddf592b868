/**
 * A2A with the real `@a2a-js/sdk` client over loopback: the card resolves, and a question is answered through
 * A2A (input-required, then a data part on the same taskId, then completed with the reply).
 */
import { Validator, type Schema } from '@cfworker/json-schema';
import { AgentCard } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  a2aClient,
  dataPart,
  send,
  statusData,
  statusText,
  TaskState,
  textPart,
  userMessage,
} from '../../../test/a2a-fixtures.js';
import { startServer, type TestServer } from '../../../test/http-fixtures.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});

describe('A2A card', () => {
  it("fits the SDK's AgentCard and names the JSON-RPC interface, skills from tools and the answer's schema", async () => {
    const response = await server.api('GET', '/api/a2a/support/.well-known/agent-card.json', { token: 'ada' });
    expect(response.status).toBe(200);
    const card = AgentCard.fromJSON(response.body);
    expect(AgentCard.toJSON(card)).toMatchObject({ name: 'support' });
    expect(card.supportedInterfaces).toEqual([
      expect.objectContaining({
        url: `${server.url}/api/a2a/support`,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
      }),
    ]);
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.skills.map((skill) => skill.id)).toEqual(['chat', 'issue_refund', 'get_selection', 'connect', 'ask']);
    const ask = card.skills.find((skill) => skill.id === 'ask')!;
    expect(ask.description).toContain('"answers"');
    expect(card.skills.find((skill) => skill.id === 'issue_refund')!.description).toContain('TASK_STATE_AUTH_REQUIRED');
    expect((await server.api('GET', '/api/a2a/nobody/.well-known/agent-card.json', { token: 'ada' })).status).toBe(404);
  });

  it("shows an anonymous caller no tool's name or description, and the SDK client still resolves it and sends", async () => {
    const response = await fetch(`${server.url}/api/a2a/support/.well-known/agent-card.json`);
    expect(response.status).toBe(200);
    const text = await response.text();
    const card = AgentCard.fromJSON(JSON.parse(text));
    expect(card.name).toBe('support');
    expect(card.skills.map((skill) => skill.id)).toEqual(['chat', 'ask']);
    for (const internal of ['issue_refund', 'get_selection', 'connect']) expect(text).not.toContain(internal);
    const anonymous = await a2aClient(server);
    expect((await anonymous.getAgentCard()).skills.map((skill) => skill.id)).toEqual(['chat', 'ask']);
    expect((await send(anonymous, userMessage([textPart('hi')]))).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('is resolved by the SDK client from the base URL with a trailing slash', async () => {
    const client = await a2aClient(server, { token: 'ada' });
    expect((await client.getAgentCard()).name).toBe('support');
  });
});

describe('A2A question', () => {
  it('pauses input-required with the question, and a data part on the same task completes it with the reply', async () => {
    const client = await a2aClient(server, { token: 'ada' });
    const paused = await send(client, userMessage([textPart('please ask me')]));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const [asked] = statusData(paused);
    expect(asked).toMatchObject({ kind: 'question', answeredHere: true, actionId: expect.any(String) });
    expect(JSON.stringify(asked.answerSchema)).toContain('answers');
    // The schema is this action's: its questions by id, with their bounds.
    const check = new Validator(asked.answerSchema as Schema, '2020-12');
    expect(check.validate({ answers: { size: 'l', qty: 3 } }).valid).toBe(true);
    expect(check.validate({ answers: { qty: 99 } }).valid).toBe(false);
    // The context is the conversation: the HTTP API sees the same pending action.
    const actions = await server.api('GET', `/api/conversations/${paused.contextId}/actions`, { token: 'ada' });
    expect(actions.body.actions).toEqual([expect.objectContaining({ id: asked.actionId, status: 'pending' })]);

    const done = await send(
      client,
      userMessage([dataPart({ type: 'question', answers: { size: 'L' } })], { taskId: paused.id }),
    );
    expect(done.id).toBe(paused.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(statusText(done)).toBe('Done.');
    expect(done.artifacts[0].parts[0].content).toEqual({ $case: 'text', value: 'Done.' });
    const after = await server.api('GET', `/api/conversations/${paused.contextId}/actions`, { token: 'ada' });
    expect(after.body.actions[0]).toMatchObject({
      status: 'resolved',
      resolution: expect.objectContaining({ type: 'question' }),
    });

    // GetTask reads the same task back from the store.
    const read = await client.getTask({ tenant: '', id: paused.id, historyLength: undefined });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(read.contextId).toBe(paused.contextId);
  });

  it('continues a conversation: a second message with the same contextId is a new task in it', async () => {
    const client = await a2aClient(server, { token: 'ada' });
    const first = await send(client, userMessage([textPart('hi')]));
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const second = await send(client, userMessage([textPart('hello again')], { contextId: first.contextId }));
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    expect((await client.getTask({ tenant: '', id: first.id, historyLength: undefined })).status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
  });
});
