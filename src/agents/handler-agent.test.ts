import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import type { AgentConfig, HeedConfig } from '../config.js';
import { sqliteStore } from '../store/sqlite/sqlite-store.js';
import type { AgentHandler, ProcessMessageInput, ResolveActionInput } from './handler-types.js';

/** Handler agents (the host's own code as the agent) over real HTTP on loopback, with SQLite. */

const servers: TestServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function database(): string {
  const dir = mkdtempSync(join(tmpdir(), 'heed-handler-'));
  dirs.push(dir);
  return join(dir, 'heed.db');
}

/** A handler that asks for one refund approval (edits checked against argsSchema) and says what was decided. */
function refunds(calls: { processed: ProcessMessageInput[]; resolved: ResolveActionInput[] }): AgentHandler {
  return {
    processMessage(input) {
      calls.processed.push(input);
      return {
        content: 'Checking the refund.',
        pendingActions: [
          {
            kind: 'approval',
            title: 'Refund order 1042',
            toolName: 'refund',
            args: { orderId: '1042', amount: 30 },
            argsSchema: {
              type: 'object',
              properties: { orderId: { type: 'string' }, amount: { type: 'number', maximum: 100 } },
              required: ['orderId', 'amount'],
            },
          },
        ],
      };
    },
    resolveAction(input) {
      calls.resolved.push(input);
      const resolution = input.resolution as { decision?: string; approvedArgs?: { amount?: number } };
      return {
        content: `Refund ${resolution.decision ?? 'closed'}${resolution.approvedArgs ? ` for ${resolution.approvedArgs.amount}` : ''}.`,
      };
    },
  };
}

async function start(agent: Omit<AgentConfig, 'name'>, config: Partial<HeedConfig> = {}) {
  const server = await startServer({ agents: [{ name: 'refunds', ...agent }], ...config });
  servers.push(server);
  return server;
}

async function ask(server: TestServer, content = 'Refund order 1042 please') {
  const { id } = (await server.api('POST', '/api/conversations', { token: 'ada', body: { agent: 'refunds' } })).body;
  const sent = await server.api('POST', `/api/conversations/${id}/messages`, { token: 'ada', body: { content } });
  return { id: id as string, sent };
}

function answer(server: TestServer, id: string, actionId: string, resolution: object, token = 'ada') {
  return server.api('POST', `/api/conversations/${id}/actions/${actionId}`, { token, body: { resolution } });
}

async function eventTypes(server: TestServer, id: string): Promise<string[]> {
  const events = (await server.api('GET', `/api/conversations/${id}/events`, { token: 'ada' })).body.events;
  return (events as Array<{ type: string }>).map((event) => event.type);
}

function texts(body: { messages: Array<{ role: string; parts: Array<{ type: string; text?: string }> }> }): string[] {
  return body.messages.flatMap((message) =>
    message.parts.flatMap((part) => (part.type === 'text' && part.text ? [`${message.role}: ${part.text}`] : [])),
  );
}

describe('handler agents', () => {
  it('pauses, refuses a bad answer, continues once on a good one, and answers a replay with the stored answer', async () => {
    const calls = { processed: [] as ProcessMessageInput[], resolved: [] as ResolveActionInput[] };
    const server = await start({ handler: refunds(calls) }, { store: sqliteStore({ path: database() }) });
    const { id, sent } = await ask(server);
    expect(sent.status).toBe(200);
    expect(sent.body.status).toBe('requires_action');
    const action = sent.body.pendingActions[0];
    expect(action).toMatchObject({
      kind: 'approval',
      title: 'Refund order 1042',
      toolName: 'refund',
      status: 'pending',
    });
    expect(action.args).toEqual({ orderId: '1042', amount: 30 });
    expect(calls.processed).toHaveLength(1);
    expect(calls.processed[0].message.parts).toEqual([{ type: 'text', text: 'Refund order 1042 please' }]);
    expect(calls.processed[0].idempotencyKey).toBe(calls.processed[0].message.id);
    expect(texts(sent.body)).toContain('assistant: Checking the refund.');

    // Edited arguments are checked against the handler's argsSchema: refused, nothing consumed.
    const bad = await answer(server, id, action.id, {
      type: 'approval',
      decision: 'allow',
      approvedArgs: { orderId: '1042', amount: 500 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_approved_args');
    const still = await server.api('GET', `/api/conversations/${id}`, { token: 'ada' });
    expect(still.body.runtime.status).toBe('requires_action');
    expect(calls.resolved).toHaveLength(0);

    const good = await answer(server, id, action.id, {
      type: 'approval',
      decision: 'allow',
      approvedArgs: { orderId: '1042', amount: 25 },
    });
    expect(good.status).toBe(200);
    expect(good.body.status).toBe('completed');
    expect(texts(good.body)).toContain('assistant: Refund allow for 25.');
    expect(calls.resolved).toHaveLength(1);
    expect(calls.resolved[0].action.id).toBe(action.id);
    expect(calls.resolved[0].idempotencyKey).toBe(action.id);
    expect(calls.resolved[0].resolution).toMatchObject({
      type: 'approval',
      decision: 'allow',
      approvedArgs: { orderId: '1042', amount: 25 },
    });

    const replay = await answer(server, id, action.id, { type: 'approval', decision: 'allow' });
    expect(replay.status).toBe(409);
    expect(replay.body.error.code).toBe('action_not_pending');
    expect(replay.body.error.details.resolution).toMatchObject({ decision: 'allow', approvedArgs: { amount: 25 } });
    expect(calls.resolved).toHaveLength(1);
    expect(calls.processed).toHaveLength(1);

    const types = await eventTypes(server, id);
    expect(types.filter((type) => type === 'turn.started')).toHaveLength(2);
    expect(types.filter((type) => type === 'turn.completed')).toHaveLength(1);
    expect(types).toContain('turn.paused');
  });
});
