/**
 * heed/langgraph and heed/openai-agents over real HTTP on loopback, with SQLite: the real frameworks (a
 * LangGraph.js graph with interrupts, an OpenAI Agents JS agent with a scripted model) paused, answered,
 * refused, replayed, restarted, lapsed and voted on like any other agent's pause.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessage } from '@langchain/core/messages';
import { END, interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { Agent, setTracingDisabled, tool } from '@openai/agents';
import { langgraphAgent } from 'heed/langgraph';
import { openaiAgent } from 'heed/openai-agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { HeedConfig } from '../src/config.js';
import { postgresStore } from '../src/store/postgres/postgres-store.js';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { startServer, type TestServer } from './http-fixtures.js';
import { freshDatabase, pgServer, type TestDatabase } from './pg.js';
import { click, fakeSlack, mention, sendToHeed } from './slack/fake-slack.js';
import {
  assistantText,
  functionCall,
  scriptedOpenAIModel,
  type ScriptedOutput,
} from './fixtures/openai-agents-model.js';
import { quorumTokens } from './fixtures/quorum-agent.js';

const servers: TestServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
beforeAll(() => setTracingDisabled(true));

function database(): string {
  const dir = mkdtempSync(join(tmpdir(), 'heed-frameworks-'));
  dirs.push(dir);
  return join(dir, 'heed.db');
}

async function start(config: Partial<HeedConfig>) {
  const server = await startServer(config);
  servers.push(server);
  return server;
}

async function stop(server: TestServer) {
  await server.close();
  servers.splice(servers.indexOf(server), 1);
}

async function ask(server: TestServer, agent: string, content: string, token = 'ada') {
  const { id } = (await server.api('POST', '/api/conversations', { token, body: { agent } })).body;
  const sent = await server.api('POST', `/api/conversations/${id}/messages`, { token, body: { content } });
  return { id: id as string, sent };
}

function answer(server: TestServer, id: string, actionId: string, resolution: object, token = 'ada') {
  return server.api('POST', `/api/conversations/${id}/actions/${actionId}`, { token, body: { resolution } });
}

function texts(body: { messages: Array<{ role: string; parts: Array<{ type: string; text?: string }> }> }): string[] {
  return body.messages.flatMap((message) =>
    message.parts.flatMap((part) => (part.type === 'text' && part.text ? [`${message.role}: ${part.text}`] : [])),
  );
}

/** A graph whose review node asks as langchain's human-in-the-loop middleware does; `seen` gets each resume. */
function reviewGraph(seen: unknown[]) {
  return new StateGraph(MessagesAnnotation)
    .addNode('review', () => {
      const response = interrupt({
        actionRequests: [
          { name: 'refund', arguments: { orderId: '1042', amount: 30 } },
          { name: 'send_email', arguments: { to: 'ana@example.com' } },
        ],
        reviewConfigs: [
          { actionName: 'refund', allowedDecisions: ['approve', 'edit', 'reject'], description: 'Refund order 1042' },
          { actionName: 'send_email', allowedDecisions: ['approve', 'reject'], description: 'Email the customer' },
        ],
      }) as { decisions: Array<{ type: string }> };
      seen.push(response);
      return { messages: [new AIMessage(`Decisions: ${response.decisions.map((d) => d.type).join(', ')}`)] };
    })
    .addEdge(START, 'review')
    .addEdge('review', END)
    .compile();
}

/** A graph that asks for one refund approval as the middleware does, and says what was decided. */
function refundGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode('review', () => {
      const response = interrupt({
        actionRequests: [{ name: 'refund', arguments: { orderId: '42', amount: 30 } }],
        reviewConfigs: [
          { actionName: 'refund', allowedDecisions: ['approve', 'reject'], description: 'Refund order 42' },
        ],
      }) as { decisions: Array<{ type: string }> };
      return { messages: [new AIMessage(`Refund: ${response.decisions[0].type}`)] };
    })
    .addEdge(START, 'review')
    .addEdge('review', END)
    .compile();
}

/** A graph that asks for a name with a plain `interrupt` and greets; `runs` counts the steps that ran. */
function greetGraph(runs: { prepared: number; greeted: number }) {
  return new StateGraph(MessagesAnnotation)
    .addNode('prepare', () => {
      runs.prepared++;
      return {};
    })
    .addNode('greet', () => {
      const name = interrupt('What is your name?') as string;
      runs.greeted++;
      return { messages: [new AIMessage(`Hello, ${name}!`)] };
    })
    .addEdge(START, 'prepare')
    .addEdge('prepare', 'greet')
    .addEdge('greet', END)
    .compile();
}

/** An OpenAI Agents JS agent whose `refund` tool needs approval; `refunds` gets each refund that ran. */
function refundAgent(script: ScriptedOutput[][], refunds: unknown[]) {
  const refund = tool({
    name: 'refund',
    description: 'Refund an order',
    parameters: z.object({ orderId: z.string(), amount: z.number() }),
    needsApproval: true,
    execute: (args) => {
      refunds.push(args);
      return `Refunded ${args.amount}`;
    },
  });
  return new Agent({ name: 'support', instructions: 'Help.', model: scriptedOpenAIModel(script), tools: [refund] });
}

describe('heed/langgraph over HTTP', () => {
  it("the middleware's requests: a refused edit (400, still pending), answers that continue once, a replay 409", async () => {
    const seen: unknown[] = [];
    const server = await start({
      agents: [langgraphAgent({ name: 'reviewer', graph: reviewGraph(seen) })],
      store: sqliteStore({ path: database() }),
    });
    const { id, sent } = await ask(server, 'reviewer', 'Refund order 1042');
    expect(sent.body.status).toBe('requires_action');
    const [refund, email] = sent.body.pendingActions;
    expect(refund).toMatchObject({ kind: 'approval', toolName: 'refund', title: 'Refund order 1042' });
    expect(refund.args).toEqual({ orderId: '1042', amount: 30 });
    expect(email).toMatchObject({ kind: 'approval', toolName: 'send_email' });

    // The review allows no edit of the email: refused before anything is recorded.
    const bad = await answer(server, id, email.id, {
      type: 'approval',
      decision: 'allow',
      approvedArgs: { to: 'someone@else.example' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_resolution');
    expect(bad.body.error.message).toContain('does not take edited arguments');
    const still = await server.api('GET', `/api/conversations/${id}/actions?status=pending`, { token: 'ada' });
    expect(still.body.actions).toHaveLength(2);

    const first = await answer(server, id, refund.id, {
      type: 'approval',
      decision: 'allow',
      approvedArgs: { orderId: '1042', amount: 25 },
    });
    expect(first.body.status).toBe('requires_action');
    expect(seen).toEqual([]);
    const done = await answer(server, id, email.id, { type: 'approval', decision: 'deny', comment: 'No email.' });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    expect(texts(done.body)).toContain('assistant: Decisions: edit, reject');
    expect(seen).toEqual([
      {
        decisions: [
          {
            type: 'edit',
            editedAction: {
              name: 'refund',
              arguments: { orderId: '1042', amount: 25 },
              args: { orderId: '1042', amount: 25 },
            },
          },
          { type: 'reject', message: 'No email.' },
        ],
      },
    ]);

    const replay = await answer(server, id, email.id, { type: 'approval', decision: 'allow' });
    expect(replay.status).toBe(409);
    expect(replay.body.error.code).toBe('action_not_pending');
    expect(replay.body.error.details.resolution).toMatchObject({ decision: 'deny', comment: 'No email.' });
    expect(seen).toHaveLength(1);
  });

  it('a restart between the pause and the answer: a new Heed and graph on the same SQLite file go on from the checkpoint', async () => {
    const path = database();
    const before = { prepared: 0, greeted: 0 };
    const first = await start({
      agents: [langgraphAgent({ name: 'greeter', graph: greetGraph(before) })],
      store: sqliteStore({ path }),
    });
    const { id, sent } = await ask(first, 'greeter', 'hi');
    const question = sent.body.pendingActions[0];
    expect(question).toMatchObject({ kind: 'question', questions: [{ id: 'answer', prompt: 'What is your name?' }] });
    await stop(first);

    const after = { prepared: 0, greeted: 0 };
    const second = await start({
      agents: [langgraphAgent({ name: 'greeter', graph: greetGraph(after) })],
      store: sqliteStore({ path }),
    });
    const bad = await answer(second, id, question.id, { type: 'question', answers: { nope: 'x' } });
    expect(bad.status).toBe(400);
    const done = await answer(second, id, question.id, { type: 'question', answers: { answer: 'Ana' } });
    expect(done.body.status).toBe('completed');
    expect(texts(done.body)).toContain('assistant: Hello, Ana!');
    expect(after).toEqual({ prepared: 0, greeted: 1 });
  });

  it.skipIf(!pgServer)(
    'a restart with PostgreSQL: the checkpoints are in the database, a new Heed goes on',
    async () => {
      const database: TestDatabase = await freshDatabase('heed_frameworks');
      try {
        const before = { prepared: 0, greeted: 0 };
        const first = await start({
          agents: [langgraphAgent({ name: 'greeter', graph: greetGraph(before) })],
          store: postgresStore({ connectionString: database.url }),
        });
        const { id, sent } = await ask(first, 'greeter', 'hi');
        const questionId = sent.body.pendingActions[0].id;
        await stop(first);
        const after = { prepared: 0, greeted: 0 };
        const second = await start({
          agents: [langgraphAgent({ name: 'greeter', graph: greetGraph(after) })],
          store: postgresStore({ connectionString: database.url }),
        });
        const done = await answer(second, id, questionId, { type: 'question', answers: { answer: 'Bo' } });
        expect(texts(done.body)).toContain('assistant: Hello, Bo!');
        expect(after).toEqual({ prepared: 0, greeted: 1 });
        await stop(second);
      } finally {
        await database.drop();
      }
    },
  );

  it("a channel: the LangGraph pause is posted in the Slack thread and a click there resumes the graph, as a tool's", async () => {
    const secret = 'slack-signing-secret-for-frameworks';
    const slack = await fakeSlack();
    try {
      const server = await start({
        agents: [langgraphAgent({ name: 'refunds', graph: refundGraph() })],
        channels: { slack: { botToken: 'xoxb-test', signingSecret: secret, agent: 'refunds', apiUrl: slack.apiUrl } },
        notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
      });
      const event = mention('refund order 42', { user: 'U1', ts: '1700000000.000042', eventId: 'EvGraph' });
      expect((await sendToHeed(server.url, secret, event)).status).toBe(200);
      const withButtons = () =>
        slack
          .of('chat.postMessage')
          .find((call) => (call.body.blocks ?? []).some((block: { type: string }) => block.type === 'actions'));
      await slack.until(() => withButtons() !== undefined);
      const request = withButtons()!;
      expect(request.body).toMatchObject({ channel: 'C1', thread_ts: '1700000000.000042' });
      expect(JSON.stringify(request.body.blocks)).toContain('Refund order 42');
      const clicked = click({ ts: request.answer.ts, blocks: request.body.blocks }, 'Allow', 'U2');
      expect((await sendToHeed(server.url, secret, clicked, { form: true })).status).toBe(200);
      await slack.until(() => slack.of('chat.postMessage').some((call) => call.body.text === 'Refund: approve'));
    } finally {
      await slack.close();
    }
  });

  it('a lapse (onTimeout deny) resumes the graph with a rejection for each request', async () => {
    let now = new Date('2026-01-01T10:00:00Z');
    const seen: unknown[] = [];
    const server = await start({
      agents: [{ ...langgraphAgent({ name: 'reviewer', graph: reviewGraph(seen) }), hitl: { timeoutMinutes: 5 } }],
      store: sqliteStore({ path: database() }),
      now: () => now,
    });
    const { id } = await ask(server, 'reviewer', 'Refund order 1042');
    now = new Date('2026-01-01T10:06:00Z');
    expect((await server.heed.expireDue()).lapsed).toBe(2);
    expect(seen).toEqual([
      {
        decisions: [
          { type: 'reject', message: 'timed out' },
          { type: 'reject', message: 'timed out' },
        ],
      },
    ]);
    const conversation = await server.api('GET', `/api/conversations/${id}`, { token: 'ada' });
    expect(conversation.body.runtime.status).toBe('idle');
  });

  it('a lapse (onTimeout cancel) ends the turn without resuming the graph', async () => {
    let now = new Date('2026-01-01T10:00:00Z');
    const seen: unknown[] = [];
    const server = await start({
      agents: [
        {
          ...langgraphAgent({ name: 'reviewer', graph: reviewGraph(seen) }),
          hitl: { timeoutMinutes: 5, onTimeout: 'cancel' },
        },
      ],
      store: sqliteStore({ path: database() }),
      now: () => now,
    });
    const { id } = await ask(server, 'reviewer', 'Refund order 1042');
    now = new Date('2026-01-01T10:06:00Z');
    expect((await server.heed.expireDue()).lapsed).toBe(2);
    expect(seen).toEqual([]);
    const actions = await server.api('GET', `/api/conversations/${id}/actions`, { token: 'ada' });
    expect(actions.body.actions.map((action: { status: string }) => action.status)).toEqual(['expired', 'expired']);
    const conversation = await server.api('GET', `/api/conversations/${id}`, { token: 'ada' });
    expect(conversation.body.runtime.status).toBe('idle');
  });

  it("an approval policy on a LangGraph pause decides by votes, as on a tool's", async () => {
    const seen: unknown[] = [];
    const server = await start({
      agents: [
        langgraphAgent({
          name: 'reviewer',
          graph: reviewGraph(seen),
          approval: (action) =>
            action.name === 'refund' ? { approval: { approvers: ['bob', 'cat'], required: 2 } } : undefined,
        }),
      ],
      store: sqliteStore({ path: database() }),
      auth: { tokens: quorumTokens },
    });
    const { id, sent } = await ask(server, 'reviewer', 'Refund order 1042');
    const [refund, email] = sent.body.pendingActions;
    expect(refund).toMatchObject({ required: 2, approvers: ['bob', 'cat'], votes: [] });
    expect((await answer(server, id, refund.id, { type: 'approval', decision: 'allow' }, 'eve')).status).toBe(404);
    await answer(server, id, email.id, { type: 'approval', decision: 'allow' });
    const one = await answer(server, id, refund.id, { type: 'approval', decision: 'allow' }, 'bob');
    expect(one.body.status).toBe('requires_action');
    expect(seen).toEqual([]);
    const two = await answer(server, id, refund.id, { type: 'approval', decision: 'allow' }, 'cat');
    expect(two.body.status).toBe('completed');
    expect(seen).toEqual([{ decisions: [{ type: 'approve' }, { type: 'approve' }] }]);
  });
});

describe('heed/openai-agents over HTTP', () => {
  it('a needsApproval tool: edits refused (400, the SDK cannot take them), an allow runs it once, a replay 409', async () => {
    const refunds: unknown[] = [];
    const agent = refundAgent(
      [[functionCall('refund', { orderId: '1042', amount: 30 })], [assistantText('Refunded 30 on 1042.')]],
      refunds,
    );
    const server = await start({
      agents: [openaiAgent({ name: 'support', agent })],
      store: sqliteStore({ path: database() }),
    });
    const { id, sent } = await ask(server, 'support', 'Refund order 1042');
    expect(sent.body.status).toBe('requires_action');
    const action = sent.body.pendingActions[0];
    expect(action).toMatchObject({ kind: 'approval', toolName: 'refund', title: 'Run refund?' });
    expect(action.args).toEqual({ orderId: '1042', amount: 30 });

    const bad = await answer(server, id, action.id, {
      type: 'approval',
      decision: 'allow',
      approvedArgs: { orderId: '1042', amount: 10 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_resolution', details: { field: 'approvedArgs' } });
    expect(bad.body.error.message).toContain('The OpenAI Agents SDK cannot take edited arguments');
    const still = await server.api('GET', `/api/conversations/${id}`, { token: 'ada' });
    expect(still.body.runtime.status).toBe('requires_action');

    const good = await answer(server, id, action.id, { type: 'approval', decision: 'allow' });
    expect(good.body.status).toBe('completed');
    expect(texts(good.body)).toContain('assistant: Refunded 30 on 1042.');
    expect(refunds).toEqual([{ orderId: '1042', amount: 30 }]);

    const replay = await answer(server, id, action.id, { type: 'approval', decision: 'deny' });
    expect(replay.status).toBe(409);
    expect(replay.body.error.details.resolution).toMatchObject({ decision: 'allow' });
    expect(refunds).toHaveLength(1);
  });

  for (const onTimeout of ['deny', 'cancel'] as const) {
    it(`a lapse (onTimeout ${onTimeout}): ${onTimeout === 'deny' ? 'the run goes on with the call rejected' : 'the run is not resumed'}`, async () => {
      let now = new Date('2026-01-01T10:00:00Z');
      const refunds: unknown[] = [];
      const requests: Array<{ input: unknown }> = [];
      const agent = refundAgent(
        [[functionCall('refund', { orderId: '9', amount: 20 })], [assistantText('Nobody approved it, so no refund.')]],
        refunds,
      );
      const model = agent.model as { getResponse(request: { input: unknown }): Promise<unknown> };
      const original = model.getResponse.bind(model);
      model.getResponse = (request) => {
        requests.push(request);
        return original(request);
      };
      const server = await start({
        agents: [{ ...openaiAgent({ name: 'support', agent }), hitl: { timeoutMinutes: 5, onTimeout } }],
        store: sqliteStore({ path: database() }),
        now: () => now,
      });
      const { id, sent } = await ask(server, 'support', 'Refund order 9');
      expect(sent.body.status).toBe('requires_action');
      now = new Date('2026-01-01T10:06:00Z');
      expect((await server.heed.expireDue()).lapsed).toBe(1);
      expect(refunds).toEqual([]);
      const conversation = await server.api('GET', `/api/conversations/${id}`, { token: 'ada' });
      expect(conversation.body.runtime.status).toBe('idle');
      if (onTimeout === 'deny') {
        expect(requests).toHaveLength(2);
        expect(texts(conversation.body)).toContain('assistant: Nobody approved it, so no refund.');
      } else {
        expect(requests).toHaveLength(1);
      }
    });
  }

  it('a restart between the pause and the answer: the stored RunState goes on; a deny reaches the model as the comment', async () => {
    const path = database();
    const first = await start({
      agents: [
        openaiAgent({
          name: 'support',
          agent: refundAgent([[functionCall('refund', { orderId: '7', amount: 900 })]], []),
        }),
      ],
      store: sqliteStore({ path }),
    });
    const { id, sent } = await ask(first, 'support', 'Refund order 7');
    const actionId = sent.body.pendingActions[0].id;
    await stop(first);

    const refunds: unknown[] = [];
    const requests: Array<{ input: unknown }> = [];
    const agent = refundAgent([[assistantText('I cannot refund that much.')]], refunds);
    const model = agent.model as { getResponse(request: { input: unknown }): Promise<unknown> };
    const original = model.getResponse.bind(model);
    model.getResponse = (request) => {
      requests.push(request);
      return original(request);
    };
    const second = await start({ agents: [openaiAgent({ name: 'support', agent })], store: sqliteStore({ path }) });
    const done = await answer(second, id, actionId, { type: 'approval', decision: 'deny', comment: 'Ask finance.' });
    expect(done.body.status).toBe('completed');
    expect(texts(done.body)).toContain('assistant: I cannot refund that much.');
    expect(refunds).toEqual([]);
    expect(JSON.stringify(requests[0].input)).toContain('Ask finance.');
  });
});
