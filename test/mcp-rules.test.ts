/**
 * The rules around MCP tools and their requests, against a real MCP server on loopback: approval per
 * server and per tool, `beforeInputRequest` hooks, refused secrets and addresses, lapses, re-asking,
 * and what happens when the process that holds the connection is gone.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHeed, memoryStore, type AgentConfig, type Heed, type InputRequest, type McpServerConfig } from 'heed';
import { scriptedModel } from 'heed/testing';
import { mcpTiming } from '../src/mcp/connection.js';
import { lastToolResult } from './kit.js';
import { startHttpServer } from './fixtures/mcp-server.mjs';

let mcp: Awaited<ReturnType<typeof startHttpServer>>;
const opened: Heed[] = [];

beforeAll(async () => {
  mcp = await startHttpServer();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((heed) => heed.close()));
  mcp.received.length = 0;
});
afterAll(async () => {
  await mcp.close();
});

/** An agent whose model calls `toolName` with `input` on each user message, then says "Done.". */
function agentCalling(
  toolName: string,
  input: unknown = {},
  extra: Partial<AgentConfig> & { server?: Partial<McpServerConfig> } = {},
) {
  const { server, ...rest } = extra;
  const model = scriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool' ? { text: 'Done.' } : { toolCalls: [{ toolName, input }] },
  );
  const agent: AgentConfig = {
    name: 'agent',
    model,
    mcpServers: { fixture: { url: mcp.url, ...server } as McpServerConfig },
    ...rest,
  };
  return { agent, model };
}

async function start(
  agent: AgentConfig,
  options: { store?: ReturnType<typeof memoryStore>; now?: () => Date; hitl?: { timeoutMinutes?: number } } = {},
) {
  const heed = createHeed({ agents: [agent], sweepIntervalMs: 0, ...options });
  opened.push(heed);
  await heed.ready();
  const { id } = await heed.createConversation({ agent: agent.name, ownerId: 'ada' });
  return { heed, chat: heed.conversation(id) };
}

function readBack(model: ReturnType<typeof scriptedModel>): unknown {
  return lastToolResult(model.calls.at(-1)!.messages as never);
}

describe('needsApproval', () => {
  it('on the server entry gates every tool of that server', async () => {
    const { agent } = agentCalling('fixture_echo', { text: 'hi' }, { server: { needsApproval: true } });
    const { heed, chat } = await start(agent);
    expect(heed.agents()[0].capabilities.toolApproval).toBe(true);
    const paused = await chat.send('say hi');
    expect(paused.pendingActions![0]).toMatchObject({
      kind: 'approval',
      toolName: 'fixture_echo',
      args: { text: 'hi' },
      title: 'Run echo on fixture?',
      canRemember: true,
    });
    expect(paused.pendingActions![0]).toMatchObject({
      argsSchema: { properties: { text: { type: 'string', minLength: 1 } } },
    });
    const done = await chat.resolve(paused.pendingActions![0].id, { type: 'approval', decision: 'allow' });
    expect(done.status).toBe('completed');
    expect(done.messages.find((message) => message.role === 'tool')!.parts[0]).toMatchObject({
      output: { type: 'json', value: 'echo: hi' },
    });
  });

  it('by tool name gates only the tools it names', async () => {
    const gated = agentCalling('fixture_delete_all', {}, { server: { needsApproval: { delete_all: true } } });
    const first = await start(gated.agent);
    expect((await first.chat.send('delete')).pendingActions![0]).toMatchObject({
      kind: 'approval',
      toolName: 'fixture_delete_all',
    });

    const free = agentCalling('fixture_echo', { text: 'hi' }, { server: { needsApproval: { delete_all: true } } });
    const second = await start(free.agent);
    expect((await second.chat.send('echo')).status).toBe('completed');
    expect(readBack(free.model)).toEqual({ type: 'json', value: 'echo: hi' });
  });

  it('naming a tool the server does not offer fails the start', async () => {
    const { agent } = agentCalling('fixture_echo', {}, { server: { needsApproval: { delete_everything: true } } });
    const heed = createHeed({ agents: [agent], sweepIntervalMs: 0 });
    opened.push(heed);
    await expect(heed.ready()).rejects.toThrow(/"delete_everything", which the server does not offer/);
  });
});

describe('calls', () => {
  it('checks the input against the tool’s JSON Schema before the server sees it', async () => {
    const { agent, model } = agentCalling('fixture_echo', { text: '' });
    const { chat } = await start(agent);
    await chat.send('echo nothing');
    expect(readBack(model)).toMatchObject({
      type: 'error-text',
      value: expect.stringContaining('Invalid input for fixture_echo: text:'),
    });
  });

  it('turns a result the server marks as an error into a tool error', async () => {
    const { agent, model } = agentCalling('fixture_fail');
    const { chat } = await start(agent);
    await chat.send('fail');
    expect(readBack(model)).toEqual({ type: 'error-text', value: 'fixture_fail failed: the vault is locked' });
  });

  it('a call that takes longer than timeoutSeconds fails with a sentence the model reads', async () => {
    const { agent, model } = agentCalling('fixture_slow', { ms: 500 }, { server: { timeoutSeconds: 0.05 } });
    const { chat } = await start(agent);
    await chat.send('take your time');
    expect(readBack(model)).toEqual({
      type: 'error-text',
      value: 'fixture_slow failed: fixture did not finish slow within 0.05 seconds.',
    });
  });

  it('the time a person takes to answer does not count against timeoutSeconds', async () => {
    // A timeout of a second: the call's own work after the answer fits in it on a busy machine too.
    const { agent, model } = agentCalling('fixture_whoami', {}, { server: { timeoutSeconds: 1 } });
    const { chat } = await start(agent);
    const paused = await chat.send('who am I?');
    // fixed wait kept: the scenario is a person slower than the timeout (1.2 s against 1 s)
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const done = await chat.resolve(paused.pendingActions![0].id, {
      type: 'question',
      answers: { email: 'ada@example.com' },
    });
    expect(done.status).toBe('completed');
    expect(mcp.received).toEqual([{ action: 'accept', content: { email: 'ada@example.com' } }]);
    expect(readBack(model)).toMatchObject({ type: 'json' });
  });

  it('a server that cannot be reached fails the start with its name', async () => {
    const model = scriptedModel(() => ({ text: 'hi' }));
    const heed = createHeed({
      agents: [{ name: 'agent', model, mcpServers: { gone: { url: 'http://127.0.0.1:9/mcp' } } }],
      sweepIntervalMs: 0,
    });
    opened.push(heed);
    await expect(heed.ready()).rejects.toThrow(/The MCP server "gone" of agent "agent" could not be reached/);
    await expect(heed.createConversation({ agent: 'agent' })).rejects.toThrow(/could not be reached/);
  });
});

describe('beforeInputRequest', () => {
  it('on the agent can answer for the person, who is never asked', async () => {
    const seen: InputRequest[] = [];
    const { agent } = agentCalling(
      'fixture_whoami',
      {},
      {
        beforeInputRequest: (request) => {
          seen.push(request);
          return request.mode === 'form' && request.caller
            ? { action: 'accept', content: { email: `${request.caller.userId}@example.com` } }
            : undefined;
        },
      },
    );
    const { chat } = await start(agent);
    const done = await chat.send('who am I?', { caller: { userId: 'ada' } });
    expect(done.status).toBe('completed');
    expect(seen[0]).toMatchObject({
      server: 'fixture',
      tool: 'whoami',
      mode: 'form',
      message: 'Which email should we use?',
      requestedSchema: { type: 'object', properties: { email: { type: 'string', format: 'email' } } },
      caller: { userId: 'ada' },
    });
    expect(mcp.received).toEqual([{ action: 'accept', content: { email: 'ada@example.com' } }]);
  });

  it('on the server entry runs first and can refuse', async () => {
    const agentHook: string[] = [];
    const { agent } = agentCalling(
      'fixture_whoami',
      {},
      {
        server: { beforeInputRequest: () => ({ action: 'decline' }) },
        beforeInputRequest: () => {
          agentHook.push('called');
          return undefined;
        },
      },
    );
    const { chat } = await start(agent);
    expect((await chat.send('who am I?')).status).toBe('completed');
    expect(mcp.received).toEqual([{ action: 'decline' }]);
    expect(agentHook).toEqual([]);
  });
});

describe('requests Heed refuses without asking', () => {
  it('a form field that looks like a secret: declined, and the model is told why', async () => {
    const { agent, model } = agentCalling(
      'fixture_connect_vault',
      {},
      { beforeInputRequest: () => ({ action: 'accept', content: { apiKey: 'leaked' } }) },
    );
    const { chat } = await start(agent);
    const done = await chat.send('connect the vault');
    expect(done.status).toBe('completed');
    expect(done.pendingActions).toBeUndefined();
    expect(mcp.received).toEqual([{ action: 'decline' }]);
    const result = readBack(model) as { value: { notes: string[] } };
    expect(result.value.notes[0]).toMatch(/"apiKey".*password, token or key.*MCP specification forbids it/);
  });

  it('a page that is not http or https: declined, and the model is told why', async () => {
    const { agent, model } = agentCalling('fixture_open_file');
    const { chat } = await start(agent);
    const done = await chat.send('open the file');
    expect(done.pendingActions).toBeUndefined();
    expect(mcp.received).toEqual([{ action: 'decline' }]);
    expect((readBack(model) as { value: { notes: string[] } }).value.notes[0]).toContain(
      '"file:///etc/hosts", which is not an http or https address',
    );
  });
});

describe('a turn nobody can answer in', () => {
  it('declines without pausing (hooks still run first)', async () => {
    const { agent, model } = agentCalling('fixture_whoami');
    const { chat } = await start(agent);
    const done = await chat.send('who am I?', { interactive: false });
    expect(done.status).toBe('completed');
    expect(mcp.received).toEqual([{ action: 'decline' }]);
    expect((readBack(model) as { value: { notes: string[] } }).value.notes[0]).toContain('nobody can answer here');

    const hooked = agentCalling(
      'fixture_whoami',
      {},
      { beforeInputRequest: () => ({ action: 'accept', content: { email: 'job@example.com' } }) },
    );
    const second = await start(hooked.agent);
    await second.chat.send('who am I?', { interactive: false });
    expect(mcp.received.at(-1)).toEqual({ action: 'accept', content: { email: 'job@example.com' } });
  });
});

describe('answers', () => {
  it('asks again when the answer breaks a rule a question cannot carry (how many to pick)', async () => {
    const { agent } = agentCalling('fixture_sign_up', { plan: 'free' });
    const { chat } = await start(agent);
    const form = (await chat.send('sign up')).pendingActions![0];
    const answers = { name: 'Ada', email: 'ada@example.com', toppings: ['cheese', 'olives', 'ham'] };
    const again = await chat.resolve(form.id, { type: 'question', answers });
    expect(again.pendingActions![0]).toMatchObject({
      kind: 'question',
      preamble: expect.stringContaining('"Toppings" takes at most 2.'),
    });
    const page = await chat.resolve(again.pendingActions![0].id, {
      type: 'question',
      answers: { ...answers, toppings: ['ham'] },
    });
    expect(page.pendingActions![0].kind).toBe('url');
    expect(mcp.received[0]).toMatchObject({ action: 'accept', content: { toppings: ['ham'], seats: 2 } });
  });

  it('a request that lapses goes back as cancel', async () => {
    let now = new Date('2025-01-01T00:00:00Z');
    const { agent } = agentCalling('fixture_whoami');
    const { heed, chat } = await start(agent, { now: () => now, hitl: { timeoutMinutes: 5 } });
    await chat.send('who am I?');
    now = new Date('2025-01-01T00:10:00Z');
    await heed.expireDue();
    expect(mcp.received).toEqual([{ action: 'cancel' }]);
  });

  it('a cancelled conversation sends cancel and frees the connection for the next call', async () => {
    const { agent, model } = agentCalling('fixture_whoami');
    const { heed, chat } = await start(agent);
    await chat.send('who am I?');
    await chat.cancel();
    const other = heed.conversation((await heed.createConversation({ agent: 'agent' })).id);
    expect((await other.send('who am I?')).pendingActions![0].kind).toBe('question');
    expect(mcp.received).toEqual([{ action: 'cancel' }]);
    expect(model.calls.length).toBe(2);
  });
});

describe('connections', () => {
  it('a call waiting on a person does not hold up the next conversation: it takes another connection', async () => {
    const { agent } = agentCalling('fixture_whoami');
    const { heed, chat } = await start(agent);
    const first = await chat.send('who am I?');
    const other = heed.conversation((await heed.createConversation({ agent: 'agent', ownerId: 'ada' })).id);
    const second = await other.send('and me?');
    expect([first.pendingActions![0].kind, second.pendingActions![0].kind]).toEqual(['question', 'question']);
    await other.resolve(second.pendingActions![0].id, { type: 'question', answers: { email: 'bob@example.com' } });
    await chat.resolve(first.pendingActions![0].id, { type: 'question', answers: { email: 'ada@example.com' } });
    expect(mcp.received.map((entry) => (entry as { content?: { email?: string } }).content?.email)).toEqual([
      'bob@example.com',
      'ada@example.com',
    ]);
  });

  it('maxConnections must be a whole number of at least 1', async () => {
    const { agent } = agentCalling('fixture_whoami', {}, { server: { maxConnections: 0 } });
    // Refused by the config check before anything starts.
    expect(() => createHeed({ agents: [agent], sweepIntervalMs: 0 })).toThrow(
      expect.objectContaining({
        code: 'invalid_config',
        message: expect.stringContaining('agents[0].mcpServers.fixture.maxConnections: expected at least 1'),
      }),
    );
  });
});

describe('the honest limit: a request lives on its connection', () => {
  it('after a restart the waiting call fails with an error the model reads; the old connection is freed', async () => {
    const check = mcpTiming.orphanCheckMs;
    mcpTiming.orphanCheckMs = 20;
    try {
      const store = memoryStore();
      const before = agentCalling('fixture_whoami');
      const { chat } = await start(before.agent, { store });
      const paused = await chat.send('who am I?');

      // A new process on the same store: its own connection, which never saw the request.
      const after = agentCalling('fixture_whoami');
      const restarted = createHeed({ agents: [after.agent], store, sweepIntervalMs: 0 });
      opened.push(restarted);
      const done = await restarted
        .conversation(chat.id)
        .resolve(paused.pendingActions![0].id, { type: 'question', answers: { email: 'ada@example.com' } });
      expect(done.status).toBe('completed');
      expect(readBack(after.model)).toMatchObject({
        type: 'error-text',
        value: expect.stringContaining('waiting for an answer when the server restarted'),
      });

      // The old process notices the call is over and tells the server, so its queue moves on.
      await expect.poll(() => mcp.received, { timeout: 2000 }).toEqual([{ action: 'cancel' }]);
    } finally {
      mcpTiming.orphanCheckMs = check;
    }
  });
});
