import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentConfig, HeedConfig } from '../config.js';
import { scriptedModel, type ScriptedModel } from '../testing/scripted-model.js';
import { tool } from '../tool.js';
import { startServer, type TestServer } from '../../test/http-fixtures.js';
import { deliver, platformFake, type PlatformName } from '../../test/channels/platforms.js';
import { fakeSlack, mention as slackMention, sendToHeed } from '../../test/slack/fake-slack.js';

/**
 * Seed 000: "Interactive chat entry points offer every kind; other entry points withhold the tool", and a
 * model that calls a withheld tool anyway gets a tool error while the turn goes on, so nothing is left
 * waiting. A chat thread answers approvals, questions and pages, but not a client tool: only the app's web
 * page answers one, and the app may not write to a thread's conversation (409 `channel_chat`). So a thread's
 * turn is not offered client tools, on every platform, while the same agent over HTTP is.
 */

const REPLY = 'Done.';

/** A model that calls the client tool pick_file whatever it is offered, then says "Done." once it has a result. */
function pageAgent(): { agent: AgentConfig; model: ScriptedModel } {
  const model = scriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool'
      ? { text: REPLY }
      : { toolCalls: [{ toolName: 'pick_file', input: { files: ['a.txt', 'b.txt'] } }] },
  );
  const agent: AgentConfig = {
    name: 'support',
    model,
    ask: true,
    tools: {
      pick_file: tool({
        description: 'Ask the user which of several files to use.',
        inputSchema: z.object({ files: z.array(z.string()).min(1) }),
        outputSchema: z.object({ file: z.string() }),
        client: { kind: 'pick-file' },
      }),
      lookup: tool({
        description: 'Look an order up.',
        inputSchema: z.object({}),
        execute: async () => ({ found: true }),
      }),
    },
  };
  return { agent, model };
}

/** A platform as this test drives it: its `channels` entry, a mention of the bot, and the replies posted. */
interface Platform {
  config(agent: string): HeedConfig['channels'];
  mention(server: TestServer): Promise<number>;
  replies(text: string): number;
  close(): Promise<void>;
}

async function chatSdk(name: PlatformName): Promise<Platform> {
  const fake = await platformFake(name);
  return {
    config: (agent) => ({ [name]: { ...fake.config, agent } }) as HeedConfig['channels'],
    mention: async (server) => (await deliver(server.url, name, fake.mention())).status,
    replies: (text) => fake.posted(text).length,
    close: () => fake.close(),
  };
}

async function slack(): Promise<Platform> {
  const secret = 'slack-signing-secret-for-thread-tools';
  const fake = await fakeSlack();
  return {
    config: (agent) => ({ slack: { botToken: 'xoxb-test', signingSecret: secret, agent, apiUrl: fake.apiUrl } }),
    mention: async (server) => (await sendToHeed(server.url, secret, slackMention('pick a file'))).status,
    replies: (text) => fake.of('chat.postMessage').filter((call) => call.body.text === text).length,
    close: () => fake.close(),
  };
}

const platforms: Record<string, () => Promise<Platform>> = {
  slack,
  telegram: () => chatSdk('telegram'),
  discord: () => chatSdk('discord'),
  teams: () => chatSdk('teams'),
  github: () => chatSdk('github'),
  linear: () => chatSdk('linear'),
  gchat: () => chatSdk('gchat'),
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serverWith(agent: AgentConfig, channels?: HeedConfig['channels']): Promise<TestServer> {
  const server = await startServer({
    agents: [agent],
    ...(channels ? { channels } : {}),
    notify: { pollIntervalMs: 50, retry: { firstDelayMs: 50, maxDelayMs: 200 } },
  });
  cleanups.push(() => server.close());
  return server;
}

/** The one conversation of the server, once the model was called and the turn stopped running. */
async function settledConversation(server: TestServer, model: ScriptedModel) {
  await expect
    .poll(async () => (model.callCount > 0 ? (await server.heed.listConversations({}))[0]?.status : 'not called yet'), {
      timeout: 20_000,
    })
    .toMatch(/^(idle|requires_action)$/);
  return (await server.heed.listConversations({}))[0];
}

describe('client tools in chat threads', () => {
  it('over HTTP the same agent is offered the client tool, and its call waits for the page', async () => {
    const { agent, model } = pageAgent();
    const server = await serverWith(agent);
    const { id } = await server.heed.createConversation({ agent: 'support' });
    const result = await server.heed.conversation(id).send('pick a file');
    expect(model.calls[0].tools).toEqual(expect.arrayContaining(['pick_file', 'ask', 'lookup']));
    expect(result.status).toBe('requires_action');
    expect(result.pendingActions).toMatchObject([{ kind: 'client_tool', toolName: 'pick_file' }]);
  });

  it.each(Object.keys(platforms))(
    '%s: a thread is not offered the client tool; a call made anyway is a tool error, the turn goes on and nothing waits',
    async (name) => {
      const platform = await platforms[name]();
      cleanups.push(() => platform.close());
      const { agent, model } = pageAgent();
      const server = await serverWith(agent, platform.config('support'));

      expect(await platform.mention(server)).toBe(200);
      const conversation = await settledConversation(server, model);
      expect(conversation.channel).toMatch(new RegExp(`^${name}:`));

      // What the model was sent: the asking tools the thread can answer, and no client tool.
      expect(model.calls[0].tools).toEqual(expect.arrayContaining(['ask', 'lookup']));
      expect(model.calls[0].tools).not.toContain('pick_file');
      // It called it anyway: it reads an error, and the turn goes on to its reply, posted in the thread.
      expect(JSON.stringify(model.calls[1].messages.at(-1))).toContain('not available here');
      expect(conversation.status).toBe('idle');
      expect(await server.heed.conversation(conversation.id).actions()).toEqual([]);
      await expect.poll(() => platform.replies(REPLY), { timeout: 20_000 }).toBe(1);
    },
    60_000,
  );

  it("a handler agent's client-tool request in a thread fails its turn with a sentence, instead of waiting a day", async () => {
    const platform = await platforms.telegram();
    cleanups.push(() => platform.close());
    const agent: AgentConfig = {
      name: 'support',
      handler: {
        processMessage: () => ({
          pendingActions: [{ kind: 'client_tool', toolName: 'pick_file', args: { files: ['a.txt'] } }],
        }),
        resolveAction: () => ({ content: REPLY }),
      },
    };
    const server = await serverWith(agent, platform.config('support'));

    expect(await platform.mention(server)).toBe(200);
    const [conversation] = await server.heed.listConversations({});
    const ended = async () =>
      (await server.heed.conversation(conversation.id).events()).find(
        (event) => event.type === 'turn.failed' || event.type === 'turn.paused',
      );
    await expect.poll(async () => (await ended())?.type, { timeout: 20_000 }).toBe('turn.failed');
    expect(await server.heed.conversation(conversation.id).actions()).toEqual([]);
    expect((await ended())?.data).toMatchObject({
      error: { code: 'agent_error', message: expect.stringContaining('nobody can answer in a Telegram thread') },
    });
  });
});
