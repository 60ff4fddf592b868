import { describe, expect, it } from 'vitest';
import { askToolAnswerSchema, askToolInputSchema, type AskToolAnswer, type AskToolInput } from './index.js';

describe('the ask tool schemas from the public entry', () => {
  it('parses an ask input shaped like the reference one', () => {
    const input: AskToolInput = askToolInputSchema.parse({
      preamble: 'Before I book it',
      questions: [
        {
          id: 'seat',
          header: 'Seat',
          prompt: 'Window or aisle?',
          options: [
            { value: 'window', label: 'Window' },
            { value: 'aisle', label: 'Aisle' },
          ],
          defaults: ['window'],
        },
      ],
    });
    expect(input.questions[0]?.id).toBe('seat');
    expect(askToolInputSchema.safeParse({ kind: 'question', questions: [] }).success).toBe(false);
  });

  it('parses an answer and refuses a malformed one', () => {
    const answer: AskToolAnswer = askToolAnswerSchema.parse({ type: 'question', answers: { seat: ['Window'] } });
    expect(answer.answers).toEqual({ seat: ['Window'] });
    expect(askToolAnswerSchema.safeParse({ type: 'approval' }).success).toBe(false);
  });
});
