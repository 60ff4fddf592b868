import { expect, it } from 'vitest';
import { z } from 'zod';
import { tool, type AgentConfig } from 'heed';
import { scriptedModel } from 'heed/testing';
import { testHeed } from '../test/kit.js';

// Seed 004's `question.answer "window"`: in the library, a question action that asks one thing takes its
// value directly; one that asks several takes them by id; a value that does not fit is refused with a sentence.
const booked: Array<Record<string, unknown>> = [];

const travel: AgentConfig = {
  name: 'travel',
  model: scriptedModel(({ messages }) => {
    const last = messages.at(-1);
    if (last?.role === 'tool') return { text: 'Done.' };
    const said =
      last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
    return said.includes('release')
      ? { toolCalls: [{ toolName: 'release', input: {} }] }
      : { toolCalls: [{ toolName: 'book_seat', input: {} }] };
  }),
  tools: {
    book_seat: tool({
      description: 'Book a seat.',
      inputSchema: z.object({}),
      execute: async (_input, ctx) => {
        const { answers } = await ctx.ask({
          questions: [
            {
              id: 'seat',
              prompt: 'Window or aisle?',
              options: [
                { value: 'window', label: 'Window' },
                { value: 'aisle', label: 'Aisle' },
              ],
            },
          ],
        });
        booked.push({ seat: answers.seat[0] });
        return { seat: answers.seat[0] };
      },
    }),
    release: tool({
      description: 'Release a build.',
      inputSchema: z.object({}),
      execute: async (_input, ctx) => {
        const { answers, defaulted } = await ctx.ask({
          questions: [
            {
              id: 'environment',
              prompt: 'Where to?',
              input: { type: 'select' },
              options: [{ label: 'staging' }, { label: 'production' }],
              defaults: ['staging'],
            },
            { id: 'reason', prompt: 'Why?', input: { type: 'text', required: true } },
            { id: 'notify', prompt: 'Tell the team?', input: { type: 'boolean' }, defaults: ['true'] },
          ],
        });
        booked.push({ ...answers, defaulted });
        return answers;
      },
    }),
  },
};

it("pending.answer('window') answers a one-question request; several questions are answered by id, the rest take their defaults", async () => {
  const heed = testHeed([travel]);
  const { id } = await heed.createConversation({ agent: 'travel' });
  const chat = heed.conversation(id);
  await chat.send('book me a seat');
  const [seat] = await chat.pendingActions();
  expect(seat).toMatchObject({
    kind: 'question',
    questions: [{ id: 'seat', header: 'Seat', prompt: 'Window or aisle?' }],
  });
  const done = await seat.answer('window');
  expect(done.status).toBe('completed');
  expect(booked.at(-1)).toEqual({ seat: 'window' });

  await chat.send('release 2.2');
  const [release] = await chat.pendingActions();
  // One value cannot answer three questions: refused with a sentence, and nothing is consumed.
  const refused = await release.answer('staging').catch((thrown: unknown) => thrown);
  expect(refused).toMatchObject({
    code: 'invalid_resolution',
    message:
      'This request asks 3 questions ("environment", "reason", "notify"), so one value cannot answer it; answer them by id, like answer({ "environment": … }).',
  });
  // A value the question does not take is refused by the server's own rules.
  await expect(release.answer({ reason: 'Release 2.2', environment: 'qa' })).rejects.toMatchObject({
    code: 'invalid_resolution',
  });
  expect((await chat.pendingActions()).map((action) => action.id)).toEqual([release.id]);

  await release.answer({ reason: 'Release 2.2', notify: false });
  expect(booked.at(-1)).toEqual({
    environment: ['staging'],
    reason: ['Release 2.2'],
    notify: ['false'],
    defaulted: ['environment'],
  });
  await heed.close();
});

it('the resolution itself still works, and nothing confirms the defaults', async () => {
  const heed = testHeed([travel]);
  const { id } = await heed.createConversation({ agent: 'travel' });
  const chat = heed.conversation(id);
  await chat.send('book a seat');
  const [seat] = await chat.pendingActions();
  await seat.answer({ answers: { seat: 'Aisle' } });
  expect(booked.at(-1)).toEqual({ seat: 'aisle' });

  await chat.send('release it');
  const [release] = await chat.pendingActions();
  // Nothing given: the defaults stand, and a required question without one is refused.
  await expect(release.answer()).rejects.toMatchObject({
    code: 'invalid_resolution',
    message: '"Reason" needs an answer.',
  });
  await release.answer({ skip: true });
  expect(booked.at(-1)).toMatchObject({ environment: ['staging'], notify: ['true'] });
  await heed.close();
});
