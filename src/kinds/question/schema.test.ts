import { describe, expect, it } from 'vitest';
import { ASK_TOOL_NAME, askToolDescription, checkQuestions, questionsJsonSchema } from '../question.js';

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  maxItems?: number;
  maxLength?: number;
  enum?: string[];
  description?: string;
};

describe('the ask tool', () => {
  it('is named ask and tells the model to pre-pick', () => {
    expect(ASK_TOOL_NAME).toBe('ask');
    expect(askToolDescription).toMatch(/defaults/);
  });

  it('describes its input as plain JSON Schema', () => {
    const schema = questionsJsonSchema as Schema;
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    expect(schema.required).toEqual(['questions']);
    const list = schema.properties!.questions;
    expect(list.maxItems).toBe(5);
    const question = list.items!;
    expect(question.required).toEqual(['header', 'prompt']);
    expect(Object.keys(question.properties!)).toEqual([
      'id',
      'header',
      'prompt',
      'description',
      'options',
      'multiple',
      'custom',
      'input',
      'defaults',
    ]);
    expect(question.properties!.header.maxLength).toBe(30);
    expect(question.properties!.input.properties!.type.enum).toEqual([
      'text',
      'textarea',
      'number',
      'boolean',
      'date',
      'email',
      'url',
      'select',
    ]);
    expect(question.properties!.defaults.description).toMatch(/every question with options/);
  });

  it('takes an input shaped by the schema', () => {
    const call = {
      preamble: 'Two questions before I start.',
      questions: [
        {
          header: 'Scope',
          prompt: 'How much should I cover?',
          options: [{ value: 'file', label: 'This file', description: 'Only the open file.' }, { label: 'Everything' }],
          defaults: ['file'],
        },
        { id: 'due', header: 'Due', prompt: 'By when?', input: { type: 'date', min: '2025-01-01' } },
      ],
    };
    expect(checkQuestions(call.questions, { source: 'ask' }).ok).toBe(true);
  });
});
