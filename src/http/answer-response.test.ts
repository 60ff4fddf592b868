import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseSse } from '../../test/http-fixtures.js';
import { refundAgent } from '../../test/kit.js';
import { createHeed } from '../heed.js';
import { scriptedModel } from '../testing/index.js';
import { tool } from '../tool.js';
import { createApp } from './app.js';

/*
 * What a user of the reference products sends to the answer route, and what they read back: the response
 * carries the settlement beside the turn (seed 000), and a question's answers may be keyed by its text
 * (seed 002's `{ '<question text>': value }`) when that text is one question's only.
 */

const refunds = refundAgent({
  respond: ({ stepIndex }) =>
    stepIndex === 0
      ? {
          toolCalls: [
            { toolName: 'issue_refund', input: { orderId: 1, amount: 5 } },
            { toolName: 'issue_refund', input: { orderId: 2, amount: 7 } },
          ],
        }
      : { text: 'Refunded.' },
});

const seen: unknown[] = [];
const surveyor = {
  name: 'surveyor',
  model: scriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool' ? { text: 'Thanks.' } : { toolCalls: [{ toolName: 'survey', input: {} }] },
  ),
  tools: {
    survey: tool({
      inputSchema: z.object({}),
      execute: async (_input, ctx) => {
        const outcome = await ctx.ask({
          questions: [
            {
              id: 'colour',
              header: 'Colour',
              prompt: 'Which colour?',
              options: [
                { value: 'red', label: 'Red' },
                { value: 'blue', label: 'Blue' },
              ],
            },
            { id: 'seats', header: 'Seats', prompt: 'How many seats?', input: { type: 'number' } },
            { id: 'first', header: 'First note', prompt: 'Anything else?', input: { type: 'text' } },
            { id: 'second', header: 'Second note', prompt: 'Anything else?', input: { type: 'text' } },
          ],
        });
        seen.push(outcome.answers);
        return outcome.answers;
      },
    }),
  },
};

const heed = createHeed({ sweepIntervalMs: 0, agents: [refunds.agent, surveyor] });
const app = createApp(heed);
afterAll(() => heed.close());

async function api(method: string, path: string, body?: unknown) {
  const response = await app.request(path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, body: (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, any> };
}

async function paused(agent: string) {
  const { id } = (await api('POST', '/api/conversations', { agent })).body;
  const sent = await api('POST', `/api/conversations/${id}/messages`, { content: 'go' });
  expect(sent.body.status).toBe('requires_action');
  return { id: id as string, pending: sent.body.pendingActions as Array<{ id: string }> };
}

/** The action as stored, as the actions route lists it. */
async function stored(id: string, actionId: string) {
  const { actions } = (await api('GET', `/api/conversations/${id}/actions`)).body;
  return actions.find((action: { id: string }) => action.id === actionId);
}

describe('the answer route answers with the settlement beside the turn (seed 000)', () => {
  it('an answer that leaves the pause open, and the one that closes it, each carry the action they settled, as stored', async () => {
    const { id, pending } = await paused('support');
    expect(pending).toHaveLength(2);

    const first = await api('POST', `/api/conversations/${id}/actions/${pending[0].id}`, {
      resolution: { type: 'approval', decision: 'allow' },
    });
    expect(first.status).toBe(200);
    // The fields a client already reads are still there.
    expect(first.body).toMatchObject({
      status: 'requires_action',
      conversationId: id,
      messages: [],
      pendingActions: [{ id: pending[1].id, status: 'pending' }],
    });
    expect(first.body.settled).toEqual([await stored(id, pending[0].id)]);
    expect(first.body.settled[0]).toMatchObject({
      id: pending[0].id,
      status: 'resolved',
      resolution: { type: 'approval', decision: 'allow' },
      channel: 'api',
    });
    expect(typeof first.body.settled[0].resolvedAt).toBe('string');

    const second = await api('POST', `/api/conversations/${id}/actions/${pending[1].id}`, {
      resolution: { type: 'approval', decision: 'deny', comment: 'Not this one.' },
    });
    expect(second.body.status).toBe('completed');
    expect(second.body.messages.at(-1).parts).toContainEqual({ type: 'text', text: 'Refunded.' });
    expect(second.body.settled).toEqual([await stored(id, pending[1].id)]);
    expect(second.body.settled[0]).toMatchObject({
      status: 'resolved',
      resolution: { type: 'approval', decision: 'deny', comment: 'Not this one.' },
    });
  });

  it('a streamed answer ends with `turn.done` carrying the same settlement', async () => {
    const { id, pending } = await paused('support');
    await api('POST', `/api/conversations/${id}/actions/${pending[0].id}`, {
      resolution: { type: 'approval', decision: 'allow' },
    });
    const streamed = await api('POST', `/api/conversations/${id}/actions/${pending[1].id}/stream`, {
      resolution: { type: 'approval', decision: 'allow' },
    });
    const done = JSON.parse(parseSse(streamed.text).find((event) => event.event === 'turn.done')!.data);
    expect(done.status).toBe('completed');
    expect(done.settled).toEqual([await stored(id, pending[1].id)]);
  });
});

describe("a question's answers keyed by its text (seed 002)", () => {
  it('a text that names one question answers it; a text two questions share is refused with a sentence, and nothing is consumed', async () => {
    const { id, pending } = await paused('surveyor');
    const path = `/api/conversations/${id}/actions/${pending[0].id}`;

    const shared = await api('POST', path, {
      resolution: { type: 'question', answers: { 'Which colour?': 'Blue', 'Anything else?': 'No' } },
    });
    expect(shared.status).toBe(400);
    expect(shared.body.error).toMatchObject({
      code: 'invalid_resolution',
      message:
        '2 questions have the text "Anything else?", so it names none of them; answer by id: "colour", "seats", "first", "second".',
    });
    expect((await stored(id, pending[0].id)).status).toBe('pending');

    const answered = await api('POST', path, {
      resolution: {
        type: 'question',
        answers: { 'Which colour?': 'Blue', 'How many seats?': '3', second: 'Window, please' },
      },
    });
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('completed');
    expect((await stored(id, pending[0].id)).resolution).toEqual({
      type: 'question',
      answers: { colour: ['blue'], seats: ['3'], second: ['Window, please'] },
    });
    expect(seen.at(-1)).toEqual({ colour: 'blue', seats: 3, second: 'Window, please' });
  });
});
