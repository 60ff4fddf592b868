import type { Question } from './wire.js';

type Schema = Record<string, unknown>;

/** One question's value as JSON Schema: its options' values (or free text beside them), else its input's type and bounds. */
function valueSchema(question: Question): Schema {
  const described = { title: question.header, description: question.prompt };
  if (question.options?.length) {
    const choice: Schema = { enum: question.options.map((option) => option.value) };
    // Free text is allowed unless `custom: false` (docs/concepts.md).
    const one = question.custom === false ? choice : { anyOf: [choice, { type: 'string', minLength: 1 }] };
    return question.multiple
      ? { ...described, anyOf: [one, { type: 'array', items: one, minItems: 1 }] }
      : { ...described, ...one };
  }
  const input = question.input;
  const bounds = (min: string, max: string): Schema => ({
    ...(typeof input?.min === 'number' ? { [min]: input.min } : {}),
    ...(typeof input?.max === 'number' ? { [max]: input.max } : {}),
  });
  switch (input?.type) {
    case 'number':
      return { ...described, type: 'number', ...bounds('minimum', 'maximum') };
    case 'boolean':
      return { ...described, type: 'boolean' };
    case 'date':
      return { ...described, type: 'string', format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
    case 'email':
      return { ...described, type: 'string', format: 'email' };
    case 'url':
      return { ...described, type: 'string', format: 'uri' };
    default:
      return {
        ...described,
        type: 'string',
        ...bounds('minLength', 'maxLength'),
        ...(input?.pattern ? { pattern: input.pattern } : {}),
      };
  }
}

/**
 * The answer to a set of questions as JSON Schema: `{ answers: { <id>: value } }` (a question left out takes
 * its defaults), or `{ skip: true }` / `{ dismiss: true }` with an optional `note`; `type` may be left out.
 */
export function questionAnswerSchema(questions: Question[], maxNoteChars: number): Schema {
  const type = { const: 'question' };
  const note = { type: 'string', maxLength: maxNoteChars };
  const answers: Schema = {
    type: 'object',
    properties: Object.fromEntries(questions.map((question) => [question.id, valueSchema(question)])),
    additionalProperties: false,
  };
  return {
    anyOf: [
      { type: 'object', properties: { type, answers }, required: ['answers'], additionalProperties: false },
      {
        type: 'object',
        properties: { type, skip: { const: true }, note },
        required: ['skip'],
        additionalProperties: false,
      },
      {
        type: 'object',
        properties: { type, dismiss: { const: true }, note },
        required: ['dismiss'],
        additionalProperties: false,
      },
    ],
  };
}
