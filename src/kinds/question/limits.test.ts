import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHeed } from '../../heed.js';
import { scriptedModel } from '../../testing/scripted-model.js';
import { tool } from '../../tool.js';
import { MAX_OPTIONS, MAX_QUESTIONS, MAX_TEXT_LENGTH, checkQuestions } from './check.js';
import { MAX_PATTERN_LENGTH, MAX_PLACEHOLDER_LENGTH } from './check-input.js';

const question = (fields: Record<string, unknown> = {}) => ({
  header: 'Size',
  prompt: 'Which size?',
  input: { type: 'text' },
  ...fields,
});
const options = (count: number) => Array.from({ length: count }, (_, index) => ({ label: `Option ${index}` }));
const problems = (raw: unknown, source: 'ask' | 'intake' | 'ctx' = 'ctx') => {
  const result = checkQuestions(raw, { source });
  return result.ok ? [] : result.problems;
};

// How much one action may ask, whoever asks it: a model can be talked into writing anything.
describe('limits on the number and size of questions and options', () => {
  it(`at most ${MAX_QUESTIONS} questions per action, ${MAX_OPTIONS} options per question`, () => {
    const many = (count: number) => Array.from({ length: count }, (_, index) => question({ header: `Q${index}` }));
    expect(problems(many(MAX_QUESTIONS))).toEqual([]);
    expect(problems(many(MAX_QUESTIONS + 1))).toEqual([
      `questions holds ${MAX_QUESTIONS + 1} questions; one request may hold at most ${MAX_QUESTIONS}.`,
    ]);
    // A huge list is refused by its count, without a sentence per question.
    expect(problems(many(100_000), 'intake')).toHaveLength(1);
    expect(problems(many(6), 'ask')).toEqual(['questions holds 6 questions; one ask may hold at most 5.']);

    expect(problems([question({ input: undefined, options: options(MAX_OPTIONS) })])).toEqual([]);
    expect(problems([question({ input: undefined, options: options(MAX_OPTIONS + 1) })])).toEqual([
      `questions[0] ("Size"): options holds ${MAX_OPTIONS + 1} options; a question may offer at most ${MAX_OPTIONS}.`,
    ]);
  });

  it('texts have a length limit each, counted in characters, with a sentence naming the field', () => {
    const long = (length: number) => 'é'.repeat(length);
    expect(problems([question({ prompt: long(MAX_TEXT_LENGTH.prompt) })])).toEqual([]);
    expect(problems([question({ prompt: long(MAX_TEXT_LENGTH.prompt + 1) })])).toEqual([
      `questions[0] ("Size"): prompt is ${MAX_TEXT_LENGTH.prompt + 1} characters long; it may have at most ${MAX_TEXT_LENGTH.prompt}.`,
    ]);
    expect(problems([question({ description: long(MAX_TEXT_LENGTH.description + 1) })])[0]).toMatch(
      /description is \d+ characters long/,
    );
    expect(problems([question({ header: long(31) })])[0]).toMatch(
      /header is 31 characters long; it may have at most 30/,
    );

    const option = (fields: Record<string, unknown>) =>
      problems([question({ input: undefined, options: [{ label: 'Small', ...fields }] })]);
    expect(option({ label: long(MAX_TEXT_LENGTH.label + 1) })[0]).toMatch(
      /label is 201 characters long; it may have at most 200\./,
    );
    expect(option({ value: long(MAX_TEXT_LENGTH.value + 1) })[0]).toMatch(/\("Small"\): value is 201 characters long/);
    expect(option({ description: long(MAX_TEXT_LENGTH.optionDescription + 1) })[0]).toMatch(
      /description is 1001 characters long/,
    );
    expect(option({ preview: long(MAX_TEXT_LENGTH.preview + 1) })[0]).toMatch(/preview is 10001 characters long/);
    expect(option({ preview: long(MAX_TEXT_LENGTH.preview) })).toEqual([]);

    const input = (fields: Record<string, unknown>) => problems([question({ input: { type: 'text', ...fields } })]);
    expect(input({ pattern: 'a'.repeat(MAX_PATTERN_LENGTH + 1) })[0]).toMatch(
      /input.pattern is 501 characters long; it may have at most 500/,
    );
    expect(input({ placeholder: 'a'.repeat(MAX_PLACEHOLDER_LENGTH + 1) })[0]).toMatch(
      /input.placeholder is 201 characters long/,
    );
    expect(input({ pattern: '[a-z]+', placeholder: 'abc' })).toEqual([]);
  });

  it("an ask over the limits goes back to the model as a tool error and parks nobody; a tool's ctx.ask over them fails the call", async () => {
    const model = scriptedModel(({ messages }) => {
      const last = messages.at(-1)!;
      if (last.role === 'tool') return { text: 'Understood.' };
      const text = last.role === 'user' ? JSON.stringify(last.content) : '';
      if (text.includes('ask')) {
        return {
          toolCalls: [
            {
              toolName: 'ask',
              input: {
                questions: [{ header: 'Pick', prompt: 'Which?', options: options(200), defaults: ['Option 0'] }],
              },
            },
          ],
        };
      }
      return { toolCalls: [{ toolName: 'survey', input: {} }] };
    });
    const heed = createHeed({
      sweepIntervalMs: 0,
      agents: [
        {
          name: 'a',
          model,
          ask: true,
          tools: {
            survey: tool({
              inputSchema: z.object({}),
              execute: async (_input, ctx) =>
                ctx.ask({ questions: [{ header: 'Why', prompt: 'x'.repeat(5000), input: { type: 'text' } }] }),
            }),
          },
        },
      ],
    });
    const { id } = await heed.createConversation({ agent: 'a' });
    const asked = await heed.conversation(id).send('ask me');
    expect(asked.status).toBe('completed');
    const askResult = model.calls[1].messages.at(-1)!;
    expect(JSON.stringify(askResult.content)).toContain(
      `options holds 200 options; a question may offer at most ${MAX_OPTIONS}.`,
    );
    const surveyed = await heed.conversation(id).send('survey');
    expect(surveyed.status).toBe('completed');
    expect(JSON.stringify(model.calls[3].messages.at(-1)!.content)).toContain(
      'prompt is 5000 characters long; it may have at most 2000.',
    );
    expect(await heed.conversation(id).actions()).toEqual([]);
    await heed.close();
  });
});
