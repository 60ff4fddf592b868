/**
 * MCP client features against the reference server, @modelcontextprotocol/server-everything (pinned
 * in package.json), spawned over stdio: media results, URL elicitation sent as error -32042, sampling
 * through the agent's model with a person reviewing it, roots, tools that need tasks, and what the
 * model reads when a conversation is cancelled while a server waits on a person. The fixture server
 * covers the case the reference server cannot show (a sampling request Heed did not announce).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHeed, type AgentConfig, type Heed, type McpServerConfig } from 'heed';
import { scriptedModel, type ScriptedVersion } from 'heed/testing';
import { mcpNotices } from '../src/mcp/setup.js';
import { lastToolResult } from './kit.js';
import { startHttpServer } from './fixtures/mcp-server.mjs';
import { engineOf } from '../src/heed.js';

const dist = new URL('../node_modules/@modelcontextprotocol/server-everything/dist/', import.meta.url);
const everything = fileURLToPath(new URL('index.js', dist));
/** The PNG (base64) the reference server's get-tiny-image returns. */
const { MCP_TINY_IMAGE } = (await import(new URL('tools/get-tiny-image.js', dist).href)) as { MCP_TINY_IMAGE: string };
const opened: Heed[] = [];
// Every start prints that the reference server's task-only tool is not offered; one test checks it.
const warn = mcpNotices.warn;
beforeAll(() => {
  mcpNotices.warn = () => undefined;
});
afterAll(() => {
  mcpNotices.warn = warn;
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((heed) => heed.close()));
});

/**
 * An agent whose model calls `toolName` with `input` on each user message and says "Done." after a
 * tool result. A call offered no tools is a sampling request: it answers `sampled`.
 */
function agentCalling(
  toolName: string,
  input: unknown,
  server: Partial<McpServerConfig> = {},
  version: ScriptedVersion = 'v3',
) {
  const model = scriptedModel(
    ({ messages, tools }) => {
      if (tools.length === 0) return { text: 'Hello from the model.' };
      return messages.at(-1)?.role === 'tool' ? { text: 'Done.' } : { toolCalls: [{ toolName, input }] };
    },
    { specificationVersion: version, keepCalls: Infinity },
  );
  const config = { command: process.execPath, args: [everything, 'stdio'], ...server } as McpServerConfig;
  const agent: AgentConfig = { name: 'agent', model, mcpServers: { everything: config } };
  return { agent, model };
}

async function start(agent: AgentConfig) {
  const heed = createHeed({ agents: [agent], sweepIntervalMs: 0 });
  opened.push(heed);
  await heed.ready();
  const { id } = await heed.createConversation({ agent: agent.name, ownerId: 'ada' });
  return { heed, chat: heed.conversation(id) };
}

function readBack(model: ReturnType<typeof scriptedModel<ScriptedVersion>>): any {
  return lastToolResult(model.calls.at(-1)!.messages as never);
}

describe('media results (get-tiny-image)', () => {
  it.each(['v3', 'v4'] as const)(
    'reach a %s model as media parts, never as text; the event log keeps only their size',
    async (version) => {
      const { agent, model } = agentCalling('everything_get-tiny-image', {}, {}, version);
      const { chat } = await start(agent);
      const done = await chat.send('show me the logo');
      expect(done.status).toBe('completed');

      const image =
        version === 'v3'
          ? { type: 'image-data', mediaType: 'image/png', data: MCP_TINY_IMAGE }
          : { type: 'file', mediaType: 'image/png', data: { type: 'data', data: MCP_TINY_IMAGE } };
      expect(readBack(model)).toEqual({
        type: 'content',
        value: [
          { type: 'text', text: "Here's the image you requested:" },
          image,
          { type: 'text', text: 'The image above is the MCP logo.' },
        ],
      });
      // No text part the model reads carries the image.
      const texts = JSON.stringify(model.calls.at(-1)!.messages.filter((message) => message.role !== 'tool'));
      expect(texts).not.toContain(MCP_TINY_IMAGE.slice(0, 40));

      // Stored once, in the tool result message; the event says what it was and how big.
      const stored = (await chat.get()).messages.find((message) => message.role === 'tool')!;
      expect(JSON.stringify(stored)).toContain(MCP_TINY_IMAGE);
      const events = await chat.events();
      expect(JSON.stringify(events)).not.toContain(MCP_TINY_IMAGE.slice(0, 40));
      const result = events.find((event) => event.type === 'tool.result')!;
      expect(result.data.output).toEqual({
        type: 'content',
        value: [
          { type: 'text', text: "Here's the image you requested:" },
          { type: 'media', mediaType: 'image/png', bytes: Buffer.from(MCP_TINY_IMAGE, 'base64').length },
          { type: 'text', text: 'The image above is the MCP logo.' },
        ],
      });
    },
  );
});

describe('URL elicitation sent as error -32042', () => {
  it('offers each page as a url action and, once the person accepts, calls the tool again', async () => {
    const { agent, model } = agentCalling('everything_trigger-url-elicitation', {
      url: 'https://example.com/accepted',
      errorPath: true,
    });
    const { chat } = await start(agent);
    const first = await chat.send('authorize');
    expect(first.status).toBe('requires_action');
    expect(first.pendingActions![0]).toMatchObject({
      kind: 'url',
      url: 'https://modelcontextprotocol.io',
      title: 'everything asks you to open a page',
      message: 'Open this link to satisfy the prerequisite, then retry the request.',
    });
    // Accepted: the call is made again, and this time the server asks for its own page the usual way.
    const second = await chat.resolve(first.pendingActions![0].id, { type: 'url', decision: 'accept' });
    expect(second.pendingActions![0]).toMatchObject({ kind: 'url', url: 'https://example.com/accepted' });
    const done = await chat.resolve(second.pendingActions![0].id, { type: 'url', decision: 'accept' });
    expect(done.status).toBe('completed');
    const output = readBack(model);
    expect(output.type).toBe('json');
    expect(output.value).toContain('User completed the URL elicitation flow.');
    expect(JSON.stringify(model.calls.map((call) => call.messages))).not.toContain('-32042');
  });

  it('a declined page: the model reads that the person declined and the call did not run', async () => {
    const { agent, model } = agentCalling('everything_trigger-url-elicitation', {
      url: 'https://example.com/declined',
      errorPath: true,
    });
    const { chat } = await start(agent);
    const first = await chat.send('authorize');
    const done = await chat.resolve(first.pendingActions![0].id, { type: 'url', decision: 'decline' });
    expect(done.status).toBe('completed');
    expect(readBack(model)).toEqual({
      type: 'error-text',
      value:
        'everything_trigger-url-elicitation failed: trigger-url-elicitation needs the person to open https://modelcontextprotocol.io first (everything: "Open this link to satisfy the prerequisite, then retry the request."); the person declined, so the call did not run.',
    });
  });
});

describe('sampling', () => {
  const samplingTool = 'everything_trigger-sampling-request';

  it("'ask': the person sees (and edits) the prompt, then the model's answer (and edits it) before it goes back", async () => {
    const { agent, model } = agentCalling(samplingTool, { prompt: 'Say hi', maxTokens: 50 }, { sampling: 'ask' });
    const { chat } = await start(agent);
    const paused = await chat.send('sample something');
    const prompt = paused.pendingActions![0];
    expect(prompt).toMatchObject({
      kind: 'approval',
      toolName: samplingTool,
      title: 'everything asks to use the model',
      args: {
        server: 'everything',
        systemPrompt: 'You are a helpful test server.',
        messages: [{ role: 'user', text: 'Resource trigger-sampling-request context: Say hi' }],
        maxTokens: 50,
      },
    });
    const edited = { systemPrompt: 'Be brief.', messages: [{ role: 'user', text: 'Say hello in one word.' }] };
    const review = await chat.resolve(prompt.id, { type: 'approval', decision: 'allow', approvedArgs: edited });

    // The model was sent the edited prompt, with no tools.
    const sampled = model.calls.find((call) => call.tools.length === 0)!;
    expect(sampled.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Say hello in one word.' }] },
    ]);
    const completion = review.pendingActions![0];
    expect(completion).toMatchObject({
      kind: 'approval',
      title: "Send the model's answer back to everything?",
      args: { completion: 'Hello from the model.' },
    });

    const done = await chat.resolve(completion.id, {
      type: 'approval',
      decision: 'allow',
      approvedArgs: { completion: 'Hello (edited).' },
    });
    expect(done.status).toBe('completed');
    const output = readBack(model);
    expect(output.value).toContain('"text": "Hello (edited)."');
    expect(output.value).toContain('"model": "scripted"');
  });

  it("'ask': a denied prompt never reaches the model; the server gets the specification's rejection", async () => {
    const { agent, model } = agentCalling(samplingTool, { prompt: 'Say hi' }, { sampling: 'ask' });
    const { chat } = await start(agent);
    const paused = await chat.send('sample something');
    const done = await chat.resolve(paused.pendingActions![0].id, { type: 'approval', decision: 'deny' });
    expect(done.status).toBe('completed');
    expect(model.calls.some((call) => call.tools.length === 0)).toBe(false);
    expect(readBack(model)).toEqual({
      type: 'error-text',
      value: expect.stringContaining(
        "User rejected sampling request The person declined everything's request to use the model.",
      ),
    });
  });

  it("'remember': after one allowed prompt, later prompts of the conversation skip that approval; the answer is still shown", async () => {
    const { agent, model } = agentCalling(samplingTool, { prompt: 'Say hi' }, { sampling: 'remember' });
    const { chat } = await start(agent);
    const first = await chat.send('sample something');
    expect(first.pendingActions![0]).toMatchObject({ title: 'everything asks to use the model' });
    const review = await chat.resolve(first.pendingActions![0].id, { type: 'approval', decision: 'allow' });
    await chat.resolve(review.pendingActions![0].id, { type: 'approval', decision: 'allow' });

    const second = await chat.send('again');
    expect(second.pendingActions![0]).toMatchObject({
      kind: 'approval',
      title: "Send the model's answer back to everything?",
    });
    const done = await chat.resolve(second.pendingActions![0].id, { type: 'approval', decision: 'allow' });
    expect(done.status).toBe('completed');
    expect(readBack(model).value).toContain('Hello from the model.');
    expect(model.calls.filter((call) => call.tools.length === 0)).toHaveLength(2);
  });

  it("'never' (the default): sampling is not announced, so the reference server does not offer its sampling tool", async () => {
    const { agent } = agentCalling('everything_echo', { message: 'hi' });
    const { heed } = await start(agent);
    const tools = Object.keys(engineOf(heed).agent('agent').tools!);
    expect(tools).toContain('everything_echo');
    expect(tools).not.toContain(samplingTool);
  });
});

describe('sampling a server sends unannounced (fixture server)', () => {
  let fixture: Awaited<ReturnType<typeof startHttpServer>>;
  beforeAll(async () => {
    fixture = await startHttpServer();
  });
  afterAll(async () => {
    await fixture.close();
  });

  it('is refused with a sentence naming the setting, not a bare "Method not found"', async () => {
    const model = scriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool'
        ? { text: 'Done.' }
        : { toolCalls: [{ toolName: 'fixture_sample_anyway', input: {} }] },
    );
    const { chat } = await start({ name: 'agent', model, mcpServers: { fixture: { url: fixture.url } } });
    await chat.send('sample');
    const output = readBack(model) as { value: string };
    const reported = JSON.parse(output.value) as { error: { code: number; message: string } };
    expect(reported.error.code).toBe(-32601);
    expect(reported.error.message).toContain(
      'Heed does not let the MCP server "fixture" use the model: its entry in mcpServers has no sampling setting',
    );
  });
});

describe('roots', () => {
  it('are announced and listed only when the server entry sets them', async () => {
    const { agent, model } = agentCalling(
      'everything_get-roots-list',
      {},
      { roots: [{ uri: 'file:///srv/project', name: 'project' }, { uri: 'file:///tmp/scratch' }] },
    );
    const { chat } = await start(agent);
    await chat.send('which roots?');
    const output = readBack(model) as { value: string };
    expect(output.value).toContain('Current MCP Roots (2 total)');
    expect(output.value).toContain('1. project\n   URI: file:///srv/project');
    expect(output.value).toContain('2. Unnamed Root\n   URI: file:///tmp/scratch');

    const without = agentCalling('everything_echo', { message: 'hi' });
    const { heed } = await start(without.agent);
    expect(Object.keys(engineOf(heed).agent('agent').tools!)).not.toContain('everything_get-roots-list');
  });

  it('must be file:// URIs', async () => {
    const { agent } = agentCalling('everything_echo', {}, { roots: [{ uri: 'https://example.com' }] });
    expect(() => createHeed({ agents: [agent], sweepIntervalMs: 0 })).toThrow(/roots/);
  });
});

describe('tools that need tasks', () => {
  it('are not offered to the model, and the start says why', async () => {
    const lines: string[] = [];
    const quiet = mcpNotices.warn;
    mcpNotices.warn = (line) => lines.push(line);
    try {
      const { agent, model } = agentCalling('everything_echo', { message: 'hi' });
      const { chat } = await start(agent);
      expect(lines).toEqual([
        'Heed: the MCP server "everything" of agent "agent" offers "simulate-research-query" only as tasks (execution.taskSupport "required"); Heed does not run MCP tasks, so the model is not offered it.',
      ]);
      await chat.send('echo');
      expect(model.calls[0].tools).not.toContain('everything_simulate-research-query');
      expect(model.calls[0].tools).toContain('everything_echo');
    } finally {
      mcpNotices.warn = quiet;
    }
  });
});

describe('a conversation cancelled while a server waits on a person', () => {
  it('tells the model the tool had started and may have done part of its work', async () => {
    const { agent, model } = agentCalling('everything_trigger-elicitation-request', {});
    const { chat } = await start(agent);
    const paused = await chat.send('ask me');
    expect(paused.pendingActions![0].kind).toBe('question');
    await chat.cancel();
    const expected = {
      type: 'error-text',
      value:
        "The call was cancelled while it was waiting for the person's answer. The tool had already started (an MCP tool's server had run up to its request), so it may have done part of its work.",
    };
    const stored = (await chat.get()).messages.find((message) => message.role === 'tool')!;
    expect(stored.parts[0]).toMatchObject({ output: expected });
    await chat.send('never mind');
    const sent = model.calls.at(-1)!.messages.find((message) => message.role === 'tool')!;
    expect((sent.content as Array<{ output: unknown }>)[0].output).toEqual(expected);
  });
});
