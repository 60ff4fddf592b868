import { describe, expect, it } from 'vitest';
import { scriptedModel } from 'heed/testing';
import { testHeed } from '../../../test/kit.js';

describe('a turn', () => {
  it('stores every message and ends completed', async () => {
    const model = scriptedModel(() => ({ text: 'Hello there.' }));
    const heed = testHeed([{ name: 'greeter', model, instructions: 'Be brief.' }]);
    const { id } = await heed.createConversation({ agent: 'greeter' });
    const result = await heed.conversation(id).send('hi');
    expect(result).toMatchObject({
      status: 'completed',
      messages: [{ role: 'assistant', parts: [{ type: 'text', text: 'Hello there.' }] }],
    });
    expect(model.calls[0].messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ]);
    const snapshot = await heed.conversation(id).get();
    expect(snapshot.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(snapshot.conversation.status).toBe('idle');
    await heed.close();
  });

  it('ends failed when the model fails, records why, and takes the next message', async () => {
    let fail = true;
    const model = scriptedModel(() => {
      if (fail) throw new Error('The provider is down.');
      return { text: 'Back.' };
    });
    const heed = testHeed([{ name: 'flaky', model }]);
    const { id } = await heed.createConversation({ agent: 'flaky' });
    const chat = heed.conversation(id);
    const result = await chat.send('hi');
    expect(result).toMatchObject({
      status: 'failed',
      error: { code: 'model_error', message: 'The provider is down.' },
    });
    expect((await chat.events()).at(-1)).toMatchObject({
      type: 'turn.failed',
      data: { error: { message: 'The provider is down.' } },
    });
    fail = false;
    expect((await chat.send('again')).status).toBe('completed');
    await heed.close();
  });

  it('refuses a message while a turn runs, and an empty one', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const model = scriptedModel(async () => {
      await gate;
      return { text: 'Done.' };
    });
    const heed = testHeed([{ name: 'slow', model }]);
    const { id } = await heed.createConversation({ agent: 'slow' });
    const chat = heed.conversation(id);
    await expect(chat.send('   ')).rejects.toMatchObject({ code: 'invalid_request', status: 400 });
    const running = chat.send('first');
    // The turn runs: its model has been called (and waits).
    await expect.poll(() => model.callCount).toBe(1);
    await expect(chat.send('second')).rejects.toMatchObject({ code: 'conversation_busy', status: 409 });
    release();
    expect((await running).status).toBe('completed');
    await heed.close();
  });

  it('a cancel stops a running turn', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const model = scriptedModel(async () => {
      await gate;
      return { text: 'Too late.' };
    });
    const heed = testHeed([{ name: 'slow', model }]);
    const { id } = await heed.createConversation({ agent: 'slow' });
    const chat = heed.conversation(id);
    const running = chat.send('first');
    // The turn runs: its model has been called (and waits).
    await expect.poll(() => model.callCount).toBe(1);
    expect(await chat.cancel()).toEqual({ status: 'idle', cancelled: true });
    release();
    expect((await running).status).toBe('cancelled');
    const snapshot = await chat.get();
    expect(snapshot.messages.map((message) => message.role)).toEqual(['user']);
    expect((await chat.events()).at(-1)!.type).toBe('turn.cancelled');
    await heed.close();
  });
});
