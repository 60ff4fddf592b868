import { expect, it } from 'vitest';
import type { AgentConfig } from 'heed';
import { scriptedModel } from 'heed/testing';
import { testHeed } from '../../test/kit.js';

/** Each reply says how many model calls came before it, so every reply is new. */
function counter() {
  let count = 0;
  const model = scriptedModel(() => ({ text: `Reply ${++count}` }));
  const agent: AgentConfig = { name: 'counter', model };
  return { model, agent };
}
const said = (prompt: unknown) => JSON.stringify(prompt);

it('regenerating twice, then branching: the model reads only the latest reply, in the conversation and in its branch', async () => {
  const { model, agent } = counter();
  const heed = testHeed([agent]);
  const { id } = await heed.createConversation({ agent: 'counter' });
  const chat = heed.conversation(id);
  await chat.send('first');
  await chat.send('second');
  await chat.regenerate();
  const third = await chat.regenerate();
  expect(third.messages.at(-1)!.parts).toEqual([{ type: 'text', text: 'Reply 4' }]);
  // The last call read "first", its reply, and "second" once; no earlier reply to "second".
  expect(said(model.calls.at(-1)!.messages)).toContain('Reply 1');
  expect(said(model.calls.at(-1)!.messages)).not.toMatch(/Reply [23]/);
  expect(
    (model.calls.at(-1)!.messages as Array<{ role: string }>).filter((message) => message.role === 'user'),
  ).toHaveLength(2);

  const { conversation, messages } = await chat.get();
  expect(conversation.status).toBe('idle');
  expect(messages.map((message) => message.parts[0])).toEqual([
    { type: 'text', text: 'first' },
    { type: 'text', text: 'Reply 1' },
    { type: 'text', text: 'second' },
    { type: 'text', text: 'Reply 2' },
    { type: 'text', text: 'second' },
    { type: 'text', text: 'Reply 3' },
    { type: 'text', text: 'second' },
    { type: 'text', text: 'Reply 4' },
  ]);
  const triggers = (await chat.events()).flatMap((event) =>
    event.type === 'turn.started' ? [event.data.trigger] : [],
  );
  expect(triggers).toEqual(['message', 'message', 'regenerate', 'regenerate']);

  // A branch copies the marks with the messages: it goes on from the latest reply too.
  const branch = heed.conversation((await chat.branch()).id);
  await branch.send('third');
  expect(said(model.calls.at(-1)!.messages)).toContain('Reply 4');
  expect(said(model.calls.at(-1)!.messages)).not.toMatch(/Reply [23]/);
  await heed.close();
});

it('two regenerates at once: one runs, the other is told the conversation is busy', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  const model = scriptedModel(async () => {
    calls += 1;
    if (calls > 1) await gate;
    return { text: `Reply ${calls}` };
  });
  const heed = testHeed([{ name: 'slow', model }]);
  const { id } = await heed.createConversation({ agent: 'slow' });
  const chat = heed.conversation(id);
  await chat.send('hello');
  const first = chat.regenerate();
  await expect.poll(() => calls).toBe(2);
  await expect(chat.regenerate()).rejects.toMatchObject({ code: 'conversation_busy' });
  release();
  expect((await first).status).toBe('completed');
  expect((await chat.get()).messages).toHaveLength(4);
  await heed.close();
});

it('a conversation with no message has nothing to regenerate', async () => {
  const { agent } = counter();
  const heed = testHeed([agent]);
  const { id } = await heed.createConversation({ agent: 'counter' });
  await expect(heed.conversation(id).regenerate()).rejects.toMatchObject({ code: 'invalid_request', status: 400 });
  await heed.close();
});
