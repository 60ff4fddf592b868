import { expect, it } from 'vitest';
import { z } from 'zod';
import { coerceAnswer, tool, type AgentConfig } from 'heed';
import { coerceAnswer as clientCoerceAnswer } from 'heed/client';
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
        booked.push({ seat: answers.seat });
        return { seat: answers.seat };
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
    environment: 'staging',
    reason: 'Release 2.2',
    notify: false,
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
  // A skip declines: the tool hears no answers, not the pre-picked ones.
  await release.answer({ skip: true });
  expect(booked.at(-1)).toEqual({ defaulted: [] });
  await heed.close();
});

// Seed 004's other questions: an approval and a page to visit take no value; a form's parameters keep only
// the fields asked for; `Tool#ask` hands the tool typed values, and nothing when the person declines.
const heard: Array<{ tool: string; value: unknown }> = [];

const desk: AgentConfig = {
  name: 'desk',
  model: scriptedModel(({ messages }) => {
    const last = messages.at(-1);
    if (last?.role === 'tool') return { text: 'Done.' };
    const said =
      last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
    const toolName = said.includes('refund') ? 'issue_refund' : said.includes('connect') ? 'connect' : 'plan_trip';
    return { toolCalls: [{ toolName, input: toolName === 'issue_refund' ? { orderId: 7 } : {} }] };
  }),
  tools: {
    issue_refund: tool({
      description: 'Refund an order.',
      inputSchema: z.object({ orderId: z.number() }),
      needsApproval: true,
      execute: async ({ orderId }) => {
        heard.push({ tool: 'issue_refund', value: orderId });
        return { refunded: orderId };
      },
    }),
    connect: tool({
      description: 'Connect an account.',
      inputSchema: z.object({}),
      execute: async (_input, ctx) => {
        const decision = await ctx.openUrl({ url: 'https://example.com/connect', title: 'Connect your calendar' });
        heard.push({ tool: 'connect', value: decision });
        return { decision };
      },
    }),
    plan_trip: tool({
      description: 'Plan a trip.',
      inputSchema: z.object({}),
      execute: async (_input, ctx) => {
        const outcome = await ctx.ask({
          questions: [
            { id: 'seats', prompt: 'How many seats?', input: { type: 'number', max: 9 }, defaults: ['2'] },
            { id: 'leave', prompt: 'Leaving on?', input: { type: 'date' } },
            { id: 'insured', prompt: 'Insure the trip?', input: { type: 'boolean' } },
            {
              id: 'extras',
              prompt: 'Extras?',
              multiple: true,
              options: [
                { value: 'bag', label: 'Checked bag' },
                { value: 'meal', label: 'Meal' },
              ],
            },
            { id: 'seat', prompt: 'Window or aisle?', options: [{ label: 'window' }, { label: 'aisle' }] },
            { id: 'remarks', prompt: 'Anything else?', input: { type: 'text' } },
          ],
        });
        heard.push({ tool: 'plan_trip', value: outcome });
        return outcome.answers;
      },
    }),
  },
};

async function deskPending(content: string) {
  const heed = testHeed([desk]);
  const { id } = await heed.createConversation({ agent: 'desk' });
  const chat = heed.conversation(id);
  await chat.send(content);
  const [pending] = await chat.pendingActions();
  return { heed, chat, pending };
}

it('answer() with nothing approves an approval (its call runs) and says the person opened a page to visit', async () => {
  const refund = await deskPending('refund order 7');
  expect(refund.pending.kind).toBe('approval');
  const approved = await refund.pending.answer();
  expect(approved.status).toBe('completed');
  expect(approved.settled).toMatchObject([{ status: 'resolved', resolution: { type: 'approval', decision: 'allow' } }]);
  expect(heard.at(-1)).toEqual({ tool: 'issue_refund', value: 7 });
  await refund.heed.close();

  const page = await deskPending('connect my calendar');
  expect(page.pending).toMatchObject({ kind: 'url', url: 'https://example.com/connect' });
  const opened = await page.pending.answer();
  expect(opened.status).toBe('completed');
  expect(heard.at(-1)).toEqual({ tool: 'connect', value: 'accept' });
  expect((await page.chat.actions())[0].resolution).toEqual({ type: 'url', decision: 'accept' });
  await page.heed.close();
});

it('answer(params) keeps only the fields the question asks for; coerceAnswer reads its own field; the HTTP API stays strict', async () => {
  const { heed, chat, pending } = await deskPending('plan a trip');
  // What a posted form carries besides the fields: a token, the button's name.
  const params = { seats: '3', 'Leaving on?': '2031-05-01', authenticity_token: 'tok', commit: 'Save' };
  if (pending.kind !== 'question') throw new Error(`Expected a question, got ${pending.kind}.`);
  const [seats, leave, insured] = pending.questions;
  expect(coerceAnswer(seats, params)).toEqual({ ok: true, values: ['3'] });
  expect(coerceAnswer(leave, params)).toEqual({ ok: true, values: ['2031-05-01'] });
  expect(clientCoerceAnswer(seats, params)).toEqual({ ok: true, values: ['3'] });
  expect(clientCoerceAnswer(insured, params)).toEqual({ ok: true, values: [] });

  // The resolution as the HTTP API takes it is still checked key by key: nothing is consumed.
  await expect(pending.answer({ answers: params })).rejects.toMatchObject({
    code: 'invalid_resolution',
    message: expect.stringContaining('There is no question "authenticity_token" here.'),
  });
  expect((await chat.pendingActions()).map((action) => action.id)).toEqual([pending.id]);

  const done = await pending.answer(params);
  expect(done.status).toBe('completed');
  expect((await chat.actions())[0].resolution).toEqual({
    type: 'question',
    answers: { seats: ['3'], leave: ['2031-05-01'] },
  });
  await heed.close();
});

it("a tool's ctx.ask hears typed values as each question asks, and nothing but the note when the person declines", async () => {
  const answered = await deskPending('plan a trip');
  await answered.pending.answer({
    seats: '4',
    leave: '2031-05-01',
    insured: 'yes',
    extras: ['Checked bag', 'meal'],
    seat: 'aisle',
    remarks: '  vegetarian meal  ',
  });
  expect(heard.at(-1)).toEqual({
    tool: 'plan_trip',
    value: {
      answers: {
        seats: 4,
        leave: '2031-05-01',
        insured: true,
        extras: ['bag', 'meal'],
        seat: 'aisle',
        remarks: 'vegetarian meal',
      },
      skipped: false,
      defaulted: [],
    },
  });
  await answered.heed.close();

  // Left out: the default stands in, typed too.
  const defaulted = await deskPending('plan a trip');
  await defaulted.pending.answer({ insured: false });
  expect(heard.at(-1)!.value).toEqual({ answers: { seats: 2, insured: false }, skipped: false, defaulted: ['seats'] });
  await defaulted.heed.close();

  const declined = await deskPending('plan a trip');
  const done = await declined.pending.decline('I will book it myself');
  expect(done.status).toBe('completed');
  expect(heard.at(-1)!.value).toEqual({ answers: {}, skipped: true, defaulted: [], note: 'I will book it myself' });
  await declined.heed.close();
});
