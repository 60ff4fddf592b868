import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { quorumTokens } from '../../test/fixtures/quorum-agent.js';
import { click, fakeSlack, mention, sendToHeed } from '../../test/slack/fake-slack.js';
import type { AgentConfig, HeedConfig } from '../config.js';
import { sqliteStore } from '../store/sqlite/sqlite-store.js';
import { scriptedModel } from '../testing/index.js';
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

  it('a restart between the pause and the answer: a new Heed on the same SQLite file continues it', async () => {
    const path = database();
    const before = { processed: [] as ProcessMessageInput[], resolved: [] as ResolveActionInput[] };
    const first = await start({ handler: refunds(before) }, { store: sqliteStore({ path }) });
    const { id, sent } = await ask(first);
    const actionId = sent.body.pendingActions[0].id;
    await first.close();
    servers.splice(servers.indexOf(first), 1);

    const after = { processed: [] as ProcessMessageInput[], resolved: [] as ResolveActionInput[] };
    const second = await start({ handler: refunds(after) }, { store: sqliteStore({ path }) });
    const pending = await second.api('GET', `/api/conversations/${id}/actions?status=pending`, { token: 'ada' });
    expect(pending.status).toBe(200);
    const good = await answer(second, id, actionId, { type: 'approval', decision: 'deny', comment: 'Not this one.' });
    expect(good.body.status).toBe('completed');
    expect(texts(good.body)).toContain('assistant: Refund deny.');
    expect(after.processed).toHaveLength(0);
    expect(after.resolved.map((call) => call.resolution)).toEqual([
      { type: 'approval', decision: 'deny', comment: 'Not this one.' },
    ]);
  });

  for (const onTimeout of ['deny', 'cancel'] as const) {
    it(`a lapse under onTimeout "${onTimeout}"`, async () => {
      let now = new Date('2026-01-01T10:00:00Z');
      const calls = { processed: [] as ProcessMessageInput[], resolved: [] as ResolveActionInput[] };
      const server = await start(
        { handler: refunds(calls), hitl: { timeoutMinutes: 5, onTimeout } },
        { store: sqliteStore({ path: database() }), now: () => now },
      );
      const { id, sent } = await ask(server);
      expect(sent.body.pendingActions[0].expiresAt).toBe('2026-01-01T10:05:00.000Z');
      now = new Date('2026-01-01T10:06:00Z');
      const report = await server.heed.expireDue();
      expect(report.lapsed).toBe(1);
      const action = (await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' })).body.actions[0];
      expect(action.status).toBe('expired');
      const conversation = await server.api('GET', `/api/conversations/${id}`, { token: 'ada' });
      expect(conversation.body.runtime.status).toBe('idle');
      if (onTimeout === 'deny') {
        // Answered for the person: the agent hears the denial, once.
        expect(calls.resolved.map((call) => call.resolution)).toEqual([expect.objectContaining({ decision: 'deny' })]);
        expect((await eventTypes(server, id)).at(-1)).toBe('turn.completed');
      } else {
        // The turn ends with the lapse; the agent is not called.
        expect(calls.resolved).toHaveLength(0);
      }
    });
  }

  it('a handler without resolveAction: answering is 404 with a sentence, and nothing is consumed', async () => {
    const server = await start({
      handler: { processMessage: () => ({ pendingActions: [{ kind: 'approval', title: 'Deploy?' }] }) },
    });
    const { id, sent } = await ask(server);
    const action = sent.body.pendingActions[0];
    const refused = await answer(server, id, action.id, { type: 'approval', decision: 'allow' });
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe('not_found');
    expect(refused.body.error.message).toContain('cannot take answers');
    const still = await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' });
    expect(still.body.actions[0].status).toBe('pending');
  });

  it('a throw fails the turn with turn.failed and a readable error; the answer stays recorded', async () => {
    const server = await start({
      handler: {
        processMessage: () => ({ pendingActions: [{ kind: 'url', url: 'https://example.com/sign', title: 'Sign' }] }),
        resolveAction: () => {
          throw new Error('the ledger is down');
        },
      },
    });
    const { id, sent } = await ask(server);
    const action = sent.body.pendingActions[0];
    expect(action).toMatchObject({ kind: 'url', url: 'https://example.com/sign' });
    const done = await answer(server, id, action.id, { type: 'url', decision: 'accept' });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('failed');
    expect(done.body.error).toEqual({
      code: 'agent_error',
      message: "The agent's resolveAction failed: the ledger is down",
    });
    const events = (await server.api('GET', `/api/conversations/${id}/events`, { token: 'ada' })).body.events;
    expect(events.at(-1)).toMatchObject({ type: 'turn.failed', data: { error: { code: 'agent_error' } } });
    const stored = (await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' })).body.actions[0];
    expect(stored).toMatchObject({ status: 'resolved', resolution: { type: 'url', decision: 'accept' } });
    // The conversation goes on with the next message.
    expect((await server.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body.runtime.status).toBe('idle');
  });

  it('a request Heed cannot ask fails the turn with a readable error and stores no action', async () => {
    const server = await start({
      handler: {
        processMessage: () => ({
          content: 'Open this.',
          pendingActions: [
            { kind: 'question', questions: [{ id: 'size', type: 'single', prompt: 'Size?', options: [] }] },
          ],
        }),
      },
    });
    const { id, sent } = await ask(server);
    expect(sent.body.status).toBe('failed');
    expect(sent.body.error.code).toBe('invalid_request');
    expect(sent.body.error.message).toContain('pendingActions[0]');
    const actions = (await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' })).body.actions;
    expect(actions).toEqual([]);
    // Nothing half-written: no reply text was recorded for the failed call.
    expect(texts(sent.body)).not.toContain('assistant: Open this.');
  });

  it('an approval policy (two approvers) on a handler agent pause decides by votes', async () => {
    const calls = { processed: [] as ProcessMessageInput[], resolved: [] as ResolveActionInput[] };
    const server = await start(
      {
        handler: {
          processMessage: () => ({
            pendingActions: [
              {
                kind: 'approval',
                title: 'Pay acme 500',
                args: { to: 'acme', amount: 500 },
                approval: { approvers: ['bob', 'cat'], required: 2 },
              },
            ],
          }),
          resolveAction: (input) => {
            calls.resolved.push(input);
            return { content: 'Paid.' };
          },
        },
      },
      { auth: { tokens: quorumTokens } },
    );
    const { id, sent } = await ask(server);
    const action = sent.body.pendingActions[0];
    expect(action).toMatchObject({ required: 2, approvers: ['bob', 'cat'], votes: [] });
    expect((await answer(server, id, action.id, { type: 'approval', decision: 'allow' }, 'eve')).status).toBe(404);
    const one = await answer(server, id, action.id, { type: 'approval', decision: 'allow' }, 'bob');
    expect(one.body.status).toBe('requires_action');
    expect(calls.resolved).toHaveLength(0);
    const two = await answer(server, id, action.id, { type: 'approval', decision: 'allow' }, 'cat');
    expect(two.body.status).toBe('completed');
    expect(calls.resolved).toHaveLength(1);
    expect(calls.resolved[0].resolution).toMatchObject({ decision: 'allow', votes: [{ by: 'bob' }, { by: 'cat' }] });
  });

  it("a channel: the handler's pause is posted in the Slack thread and a click there reaches resolveAction, as a tool's", async () => {
    const secret = 'slack-signing-secret-for-handlers';
    const slack = await fakeSlack();
    const calls = { processed: [] as ProcessMessageInput[], resolved: [] as ResolveActionInput[] };
    try {
      const server = await start(
        { handler: refunds(calls) },
        {
          channels: { slack: { botToken: 'xoxb-test', signingSecret: secret, agent: 'refunds', apiUrl: slack.apiUrl } },
          notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
        },
      );
      const event = mention('refund order 1042', { user: 'U1', ts: '1700000000.000077', eventId: 'EvHandler' });
      expect((await sendToHeed(server.url, secret, event)).status).toBe(200);
      const withButtons = () =>
        slack
          .of('chat.postMessage')
          .find((call) => (call.body.blocks ?? []).some((block: { type: string }) => block.type === 'actions'));
      await slack.until(() => withButtons() !== undefined);
      const request = withButtons()!;
      expect(request.body).toMatchObject({ channel: 'C1', thread_ts: '1700000000.000077' });
      expect(JSON.stringify(request.body.blocks)).toContain('Refund order 1042');
      const clicked = click({ ts: request.answer.ts, blocks: request.body.blocks }, 'Allow', 'U2');
      expect((await sendToHeed(server.url, secret, clicked, { form: true })).status).toBe(200);
      await slack.until(() => slack.of('chat.postMessage').some((call) => call.body.text === 'Refund allow.'));
      expect(calls.resolved).toHaveLength(1);
    } finally {
      await slack.close();
    }
  });

  it('the config takes exactly one of model, handler and remote', async () => {
    const handler = { processMessage: () => ({}) };
    await expect(startServer({ agents: [{ name: 'none' }] })).rejects.toThrow(
      /agents\[0\]\.model: expected one of model, handler or remote/,
    );
    await expect(
      startServer({
        agents: [{ name: 'both', handler, remote: { url: 'http://127.0.0.1:1/', secret: 'whsec_eA==' } }],
      }),
    ).rejects.toThrow(/expected only one of model, handler or remote, got handler and remote/);
    await expect(startServer({ agents: [{ name: 'tools', handler, instructions: 'Be nice.' }] })).rejects.toThrow(
      /agents\[0\]\.instructions: not used by an agent with handler/,
    );
  });

  it('a continuation taken over after its process stopped calls resolveAction again with the same idempotencyKey', async () => {
    const path = database();
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    const keys: string[] = [];
    const stuck = refunds({ processed: [], resolved: [] });
    const first = await start(
      {
        handler: {
          processMessage: stuck.processMessage,
          // This process hangs in the call, as if it had died there.
          resolveAction: async (input) => {
            keys.push(`first:${input.idempotencyKey}`);
            await held;
            return { content: 'from the first process' };
          },
        },
      },
      { store: sqliteStore({ path }) },
    );
    const { id, sent } = await ask(first);
    const actionId = sent.body.pendingActions[0].id;
    const hanging = answer(first, id, actionId, { type: 'approval', decision: 'allow' });
    await expect.poll(() => keys.length).toBe(1);

    // A second instance whose clock is past the first one's lease takes the turn over.
    const second = await start(
      {
        handler: {
          processMessage: stuck.processMessage,
          resolveAction: (input) => {
            keys.push(`second:${input.idempotencyKey}`);
            return { content: 'from the second process' };
          },
        },
      },
      { store: sqliteStore({ path }), now: () => new Date(Date.now() + 3_600_000) },
    );
    const report = await second.heed.expireDue();
    expect(report.recovered).toBe(1);
    expect(keys).toEqual([`first:${actionId}`, `second:${actionId}`]);
    release();
    expect((await hanging).status).toBe(200);
    const messages = (await second.api('GET', `/api/conversations/${id}`, { token: 'ada' })).body;
    const said = JSON.stringify(messages);
    expect(said).toContain('from the second process');
    expect(said).not.toContain('from the first process');
  });

  // A frozen clock makes both answers land in the same millisecond: the order still comes from the log.
  it.each([
    ['the system clock', {}],
    ['a clock that stands still', { now: () => new Date('2026-12-05T10:00:00.000Z') }],
  ])(
    'resolveAction runs once per action, in the order they were settled (%s); the last reply says what waits next',
    async (_clock, config) => {
      const order: string[] = [];
      const server = await start(
        {
          handler: {
            processMessage: () => ({
              pendingActions: [
                { kind: 'approval', title: 'First asked' },
                { kind: 'url', url: 'https://example.com/form', title: 'Second asked' },
              ],
            }),
            resolveAction: ({ action }) => {
              order.push(action.kind);
              return order.length === 1
                ? { content: 'One down.', pendingActions: [{ kind: 'approval', title: 'Superseded' }] }
                : { content: 'Both in.', pendingActions: [{ kind: 'approval', title: 'Next step' }] };
            },
          },
        },
        config,
      );
      const { id, sent } = await ask(server);
      const [approval, url] = sent.body.pendingActions;
      const partial = await answer(server, id, url.id, { type: 'url', decision: 'accept' });
      expect(partial.body.status).toBe('requires_action');
      expect(order).toEqual([]);
      const closing = await answer(server, id, approval.id, { type: 'approval', decision: 'allow' });
      expect(order).toEqual(['url', 'approval']);
      expect(closing.body.status).toBe('requires_action');
      expect(closing.body.pendingActions.map((action: { title: string }) => action.title)).toEqual(['Next step']);
      expect(texts(closing.body)).toEqual(['assistant: One down.', 'assistant: Both in.']);
    },
  );

  it("a client tool asked by a handler: the page's output reaches resolveAction", async () => {
    const resolved: ResolveActionInput[] = [];
    const server = await start({
      handler: {
        processMessage: () => ({
          pendingActions: [{ kind: 'client_tool', toolName: 'pickFile', args: { accept: '.csv' } }],
        }),
        resolveAction: (input) => {
          resolved.push(input);
          return { content: 'Got the file.' };
        },
      },
    });
    const { id, sent } = await ask(server);
    const action = sent.body.pendingActions[0];
    expect(action).toMatchObject({ kind: 'client_tool', toolName: 'pickFile', args: { accept: '.csv' } });
    const done = await answer(server, id, action.id, { type: 'client_tool', output: { name: 'q3.csv' } });
    expect(done.body.status).toBe('completed');
    expect(resolved.map((call) => call.resolution)).toEqual([
      { type: 'client_tool', outputBytes: 17, output: { name: 'q3.csv' } },
    ]);
  });

  it('a client tool request keeps the toolCallId, title and argsSchema the handler gave; a reused id fails the turn', async () => {
    const argsSchema = { type: 'object', properties: { max: { type: 'integer' } } };
    const server = await start({
      handler: {
        processMessage: ({ message }) => ({
          pendingActions: [
            {
              kind: 'client_tool',
              toolName: 'get_selected_rows',
              toolCallId: 'call_7',
              title: message.parts.some((part) => part.type === 'text' && part.text === 'again')
                ? 'Again'
                : 'Read the selected rows',
              args: { max: 20 },
              argsSchema,
            },
          ],
        }),
        resolveAction: () => ({ content: 'Read them.' }),
      },
    });
    const { id, sent } = await ask(server);
    const action = sent.body.pendingActions[0];
    expect(action).toMatchObject({ toolCallId: 'call_7', title: 'Read the selected rows', argsSchema });
    const read = await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' });
    expect(read.body.actions).toMatchObject([{ toolCallId: 'call_7', title: 'Read the selected rows', argsSchema }]);
    await answer(server, id, action.id, { type: 'client_tool', output: [] });
    const again = await server.api('POST', `/api/conversations/${id}/messages`, {
      token: 'ada',
      body: { content: 'again' },
    });
    expect(again.body.status).toBe('failed');
    expect(again.body.error.message).toContain('toolCallId "call_7", which an earlier call of this conversation has');
    const actions = await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' });
    expect(actions.body.actions).toHaveLength(1);
  });

  it('capabilities a handler or remote agent declares are what GET /api/agents/:name reports; a model agent may not declare them', async () => {
    const server = await start({
      handler: { processMessage: () => ({}) },
      capabilities: { toolApproval: true, clientTools: true },
    });
    const info = await server.api('GET', '/api/agents/refunds', { token: 'ada' });
    expect(info.body.capabilities).toEqual({ toolApproval: true, questions: false, intake: false, clientTools: true });
    await expect(
      startServer({
        agents: [{ name: 'loop', model: scriptedModel(() => ({ text: 'hi' })), capabilities: { questions: true } }],
      }),
    ).rejects.toThrow(/agents\[0\]\.capabilities: not used by an agent with model/);
  });

  it('remember: true on a handler approval reaches resolveAction and is listed as remembered; adapters that cannot keep it are not offered it', async () => {
    const calls = { processed: [] as ProcessMessageInput[], resolved: [] as ResolveActionInput[] };
    const server = await start({ handler: refunds(calls) });
    const { id, sent } = await ask(server);
    const action = sent.body.pendingActions[0];
    expect(action.canRemember).toBe(true);
    const done = await answer(server, id, action.id, { type: 'approval', decision: 'allow', remember: true });
    expect(done.status).toBe(200);
    expect(calls.resolved.map((call) => call.resolution)).toEqual([
      { type: 'approval', decision: 'allow', remember: true },
    ]);
    const remembered = await server.api('GET', `/api/conversations/${id}/remembered-tools`, { token: 'ada' });
    expect(JSON.stringify(remembered.body)).toContain('"refund"');

    const off = await start({ handler: { ...refunds(calls), remembersApprovals: false } });
    const second = await ask(off);
    const refused = await answer(off, second.id, second.sent.body.pendingActions[0].id, {
      type: 'approval',
      decision: 'allow',
      remember: true,
    });
    expect(second.sent.body.pendingActions[0].canRemember).toBe(false);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_resolution');
  });
});
