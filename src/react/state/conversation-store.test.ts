import { z } from 'zod';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../client/index.js';
import { createHeed } from '../../heed.js';
import { createApp } from '../../http/app.js';
import { scriptedModel } from '../../testing/index.js';
import { tool } from '../../tool.js';
import { createClientToolRegistry, rememberStartedConversation } from './client-tools.js';
import { createConversationStore, type ConversationState, type ConversationStore } from './conversation-store.js';

// The chat state logic against the real HTTP app in-process (no React, no browser).
const heed = createHeed({
  sweepIntervalMs: 0,
  agents: [
    {
      name: 'asker',
      ask: true,
      model: scriptedModel(({ messages }) =>
        messages.at(-1)?.role === 'tool'
          ? { text: 'Thanks.' }
          : {
              toolCalls: [
                {
                  toolName: 'ask',
                  input: { questions: [{ header: 'Seats', prompt: 'How many?', input: { type: 'number', max: 9 } }] },
                },
              ],
            },
      ),
    },
    {
      name: 'breaks',
      model: scriptedModel(() => {
        throw new Error('The provider is down (503).');
      }),
    },
    {
      name: 'talker',
      model: scriptedModel(() => ({ text: 'one two three four five six' }), { chunkText: 'word', chunkDelayMs: 20 }),
    },
    {
      name: 'page',
      model: scriptedModel(({ messages }) => {
        const last = messages.at(-1);
        if (last?.role === 'tool') {
          const part = last.content[0] as { output: { type: string; value: unknown } };
          return { text: `Page said ${JSON.stringify(part.output.value)}` };
        }
        return { toolCalls: [{ toolName: 'locale', input: { want: 'language' } }] };
      }),
      tools: {
        locale: tool({
          inputSchema: z.object({ want: z.string() }),
          outputSchema: z.object({ language: z.string() }),
          client: { kind: 'browser' },
        }),
      },
    },
  ],
});
const app = createApp(heed);
const client = createClient({
  baseUrl: 'http://heed.test',
  fetch: async (input, init) => app.fetch(new Request(input, init)),
});
const stores: ConversationStore[] = [];

afterEach(() => {
  for (const store of stores.splice(0)) store.dispose();
});

function open(id: string, options: Parameters<typeof createConversationStore>[2] = {}): ConversationStore {
  const store = createConversationStore(client, id, options);
  stores.push(store);
  store.start();
  return store;
}

/** Resolves with the state once `predicate` holds. */
function until(store: ConversationStore, predicate: (state: ConversationState) => boolean): Promise<ConversationState> {
  return vi.waitFor(
    () => {
      const state = store.getState();
      if (!predicate(state)) throw new Error('not yet');
      return state;
    },
    { timeout: 5000, interval: 10 },
  );
}

const lastText = (state: ConversationState) =>
  state.messages
    .filter((message) => message.role === 'assistant')
    .flatMap((message) => message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])))
    .at(-1);

describe('conversation store', () => {
  it("loads, sends, shows the pending question, refuses a wrong answer with the server's problems, then continues", async () => {
    const { id } = await client.createConversation({ agent: 'asker' });
    const store = open(id);
    await until(store, (state) => state.status === 'ready');
    expect(await store.send('book')).toEqual({ ok: true });
    const waiting = await until(store, (state) => state.pendingActions.length === 1);
    const action = waiting.pendingActions[0];
    expect(action.kind).toBe('question');

    const refused = await store.answer(action.id, { type: 'question', answers: { Seats: '12' } });
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_resolution',
        details: { fields: [{ field: 'answers.Seats', message: '"Seats" must be at most 9.' }] },
      },
    });
    expect(store.getState().pendingActions).toHaveLength(1);

    expect(await store.answer(action.id, { type: 'question', answers: { Seats: '3' } })).toEqual({ ok: true });
    // Hidden at once, then settled in the transcript once the turn went on.
    expect(store.getState().pendingActions).toEqual([]);
    const done = await until(store, (state) => lastText(state) === 'Thanks.' && !state.running);
    const settled = done.messages
      .flatMap((message) => message.metadata?.actions ?? [])
      .find((item) => item.id === action.id);
    expect(settled).toMatchObject({ status: 'resolved', resolution: { answers: { Seats: ['3'] } } });
    expect(done.submitting).toEqual([]);
  });

  it('shows the reply as it streams, then as the stored message', async () => {
    const { id } = await client.createConversation({ agent: 'talker' });
    const store = open(id);
    await until(store, (state) => state.status === 'ready');
    await store.send('talk');
    const partial = await until(store, (state) => state.streaming.some((entry) => entry.text.startsWith('one two')));
    expect(partial.streaming[0].text).not.toBe('one two three four five six');
    const done = await until(store, (state) => lastText(state) === 'one two three four five six');
    expect(done.streaming).toEqual([]);
  });

  it('a second tab sees the question live, sees it close when the first tab answers, and a late answer learns who won', async () => {
    const { id } = await client.createConversation({ agent: 'asker' });
    const first = open(id);
    const second = open(id);
    await until(second, (state) => state.status === 'ready');
    await first.send('book');
    const [action] = (await until(second, (state) => state.pendingActions.length === 1)).pendingActions;

    await first.answer(action.id, { type: 'question', answers: { Seats: '2' } });
    await until(second, (state) => state.pendingActions.length === 0 && lastText(state) === 'Thanks.');
    const late = await second.answer(action.id, { type: 'question', answers: { Seats: '5' } });
    expect(late).toMatchObject({
      ok: false,
      error: { code: 'action_not_pending' },
      alreadyAnswered: { channel: 'api' },
    });
    expect(second.getState().answeredElsewhere[action.id]).toMatchObject({ channel: 'api' });
  });

  it('runs a client tool through its registered handler and sends what it returns', async () => {
    const registry = createClientToolRegistry();
    const handler = vi.fn(async (args: unknown) => ({ language: `fr (asked for ${(args as { want: string }).want})` }));
    registry.register('browser', handler);
    const { id } = await client.createConversation({ agent: 'page' });
    rememberStartedConversation(id);
    const store = open(id, { clientTools: registry });
    await until(store, (state) => state.status === 'ready');
    await store.send('which language?');
    const done = await until(store, (state) => lastText(state)?.startsWith('Page said') === true);
    expect(lastText(done)).toBe('Page said {"language":"fr (asked for language)"}');
    expect(handler).toHaveBeenCalledTimes(1);
    expect(Object.values(done.clientTools)).toEqual([{ state: 'sent' }]);
  });

  it("in an ownerless conversation this page did not start, a client tool waits for the person's go-ahead", async () => {
    const registry = createClientToolRegistry();
    const handler = vi.fn(async () => ({ language: 'fr' }));
    registry.register('browser', handler);
    const { id } = await client.createConversation({ agent: 'page' });
    expect((await client.send(id, 'which language?')).status).toBe('requires_action');
    const store = open(id, { clientTools: registry });
    const waiting = await until(
      store,
      (state) => state.pendingActions.length === 1 && Boolean(state.clientTools[state.pendingActions[0].id]),
    );
    const actionId = waiting.pendingActions[0].id;
    expect(waiting.clientTools[actionId]).toEqual({ state: 'needs_confirmation' });
    // Following live: everything the server holds has been read and looked at; the call still waits.
    const live = await until(store, (state) => state.connection === 'live');
    expect(live.clientTools[actionId]).toEqual({ state: 'needs_confirmation' });
    expect(handler).not.toHaveBeenCalled();
    store.runClientTool(actionId);
    const done = await until(store, (state) => lastText(state)?.startsWith('Page said') === true);
    expect(lastText(done)).toBe('Page said {"language":"fr"}');
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('a handler that throws sends its message as the error the model reads; no handler leaves it to the person', async () => {
    const registry = createClientToolRegistry();
    const remove = registry.register('locale', () => {
      throw new Error('Blocked by the user.');
    });
    const { id } = await client.createConversation({ agent: 'page' });
    rememberStartedConversation(id);
    const store = open(id, { clientTools: registry });
    await until(store, (state) => state.status === 'ready');
    await store.send('which language?');
    await until(store, (state) => lastText(state) === 'Page said "Blocked by the user."');

    remove();
    await store.send('again?');
    const waiting = await until(store, (state) => state.pendingActions.length === 1);
    expect(waiting.clientTools[waiting.pendingActions[0].id]).toEqual({ state: 'no_handler' });
  });
});

describe('a failed turn', () => {
  it('is shown live, and again when the conversation is opened later (a reload); once dismissed it stays dismissed', async () => {
    const { id } = await client.createConversation({ agent: 'breaks' });
    const live = open(id);
    await until(live, (state) => state.status === 'ready');
    await live.send('hello');
    const shown = await until(live, (state) => state.error !== undefined);
    expect(shown.error).toMatchObject({ message: 'The agent stopped: The provider is down (503).' });

    // A reload: a new store reads the conversation from the server.
    const reloaded = open(id);
    const after = await until(reloaded, (state) => state.status === 'ready');
    expect(after.error).toEqual({ code: 'model_error', message: 'The agent stopped: The provider is down (503).' });
    reloaded.clearError();
    await reloaded.refresh();
    expect(reloaded.getState().error).toBeUndefined();
    // The record itself shows no bubble: the transcript's messages hold the user's message and the empty record.
    expect(after.messages.map((message) => [message.role, message.parts.length])).toEqual([
      ['user', 1],
      ['assistant', 0],
    ]);
  });
});
