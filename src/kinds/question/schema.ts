import type { JsonObject } from '../../protocol/values.js';
import { INPUT_TYPES } from './check-input.js';
import { MAX_ASK_QUESTIONS, MAX_HEADER_LENGTH, MAX_OPTIONS, MAX_TEXT_LENGTH } from './check.js';

/** The name the model sees for the built-in asking tool. */
export const ASK_TOOL_NAME = 'ask';

/** What the model is told about the ask tool. */
export const askToolDescription =
  'Ask the user up to 5 short questions when their request can be read in materially different ways ' +
  'and guessing wrong would waste work. The turn pauses until they answer, and you then read their ' +
  'answers. Prefer options over open text, and pre-pick in `defaults` what you would choose for every ' +
  'question with options, so confirming is enough. Do not ask about what you can find out yourself. ' +
  'If the user skips, carry on with your own assumptions.';

const option: JsonObject = {
  type: 'object',
  properties: {
    value: { type: 'string', description: 'Stable value stored as the answer. Defaults to the label.' },
    label: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_TEXT_LENGTH.label,
      description: 'What the user sees. Unique within the question.',
    },
    description: { type: 'string', description: 'What choosing this option means, in one sentence.' },
    preview: { type: 'string', description: 'Optional code block or sketch shown while the option is focused.' },
  },
  required: ['label'],
  additionalProperties: false,
};

const input: JsonObject = {
  type: 'object',
  description:
    'Ask for a typed value instead of (or, for `select`, together with) options. Leave out when options suffice.',
  properties: {
    type: { type: 'string', enum: [...INPUT_TYPES], description: '`select` picks from `options`.' },
    min: {
      anyOf: [{ type: 'number' }, { type: 'string' }],
      description: 'Smallest number, shortest text length, or earliest date as YYYY-MM-DD.',
    },
    max: {
      anyOf: [{ type: 'number' }, { type: 'string' }],
      description: 'Largest number, longest text length (at most 10000), or latest date as YYYY-MM-DD.',
    },
    pattern: {
      type: 'string',
      description:
        'Regular expression (RE2 syntax: no backreferences or lookaround) the whole text must match; such answers are at most 1000 characters.',
    },
    required: { type: 'boolean', description: 'True when the question may not be left unanswered.' },
    placeholder: { type: 'string', description: 'Example shown in the empty field.' },
  },
  required: ['type'],
  additionalProperties: false,
};

const question: JsonObject = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'Key of the answer. Defaults to the header.' },
    header: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_HEADER_LENGTH,
      description: `Very short title, at most ${MAX_HEADER_LENGTH} characters, unique within the call.`,
    },
    prompt: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_TEXT_LENGTH.prompt,
      description: 'The full question, as one clear sentence.',
    },
    description: { type: 'string', description: 'Optional context that helps the user answer.' },
    options: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_OPTIONS,
      items: option,
      description: 'The choices, with unique labels. Give either options or an input.',
    },
    multiple: { type: 'boolean', description: 'Allow more than one option to be picked. Default false.' },
    custom: { type: 'boolean', description: 'Allow a typed answer besides the options. Default true.' },
    input,
    defaults: {
      type: 'array',
      items: { type: 'string' },
      description:
        'Your pre-picked answer(s): option values or labels, or a typed value. Required for every question ' +
        'with options; at most one unless `multiple` is true.',
    },
  },
  required: ['header', 'prompt'],
  additionalProperties: false,
};

/** JSON Schema (draft-07 keywords) of the ask tool's input. */
export const questionsJsonSchema: JsonObject = {
  type: 'object',
  properties: {
    preamble: {
      type: 'string',
      description: 'One or two sentences shown above the questions, e.g. why you ask and that you pre-picked answers.',
    },
    questions: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_ASK_QUESTIONS,
      items: question,
      description: `1 to ${MAX_ASK_QUESTIONS} questions, asked together.`,
    },
  },
  required: ['questions'],
  additionalProperties: false,
};
