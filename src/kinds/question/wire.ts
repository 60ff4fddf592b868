import { z } from 'zod';

/* A question as asked and stored, as zod: the types below, the question kind's wire shapes and the OpenAPI document's `Question`. */

const questionOption = z.strictObject({
  value: z.string(),
  label: z.string(),
  description: z.string().optional(),
  preview: z.string().optional().describe('A code block or sketch shown while the option is focused.'),
  hotkey: z.string().optional(),
});

export const inputType = z.enum(['text', 'textarea', 'number', 'boolean', 'date', 'email', 'url', 'select']);

const questionInput = z.strictObject({
  type: inputType,
  min: z.union([z.number(), z.string()]).optional().describe('Smallest number, shortest text, or earliest YYYY-MM-DD.'),
  max: z.union([z.number(), z.string()]).optional().describe('Largest number, longest text, or latest YYYY-MM-DD.'),
  pattern: z
    .string()
    .optional()
    .describe(
      'A regular expression (RE2 syntax) the whole value must match; answers checked by it are at most 1,000 characters.',
    ),
  // Set by the server, never taken from the asker: a form may check the pattern as the person types. Others are checked by the server only.
  patternBacktrackSafe: z
    .boolean()
    .optional()
    .describe('set by the server: a browser may run this pattern as the person types'),
  required: z.boolean().optional(),
  placeholder: z.string().optional(),
});

export const question = z.strictObject({
  id: z.string(),
  header: z.string().max(30).describe('1–30 characters, unique in the action.'),
  prompt: z.string(),
  description: z.string().optional(),
  options: z.array(questionOption).optional(),
  multiple: z.boolean().optional(),
  custom: z.boolean().optional().describe('Free text besides the options; allowed unless false.'),
  input: questionInput.optional(),
  defaults: z.array(z.string()).optional().describe('Pre-picked answers, canonical strings.'),
});

export type QuestionOption = z.output<typeof questionOption>;
export type InputType = z.output<typeof inputType>;
export type QuestionInput = z.output<typeof questionInput>;
export type Question = z.output<typeof question>;

/**
 * A question as a config or a tool writes it (intake, `ctx.ask`): checked and normalized into a
 * `Question` by `checkQuestions`. `header` may be left out when `id` is given (it is made from the id,
 * `due_date` → "Due date"); `allowFreeText` is seed 003's name for `custom`.
 */
export type AskedQuestion = Partial<Omit<Question, 'id' | 'header' | 'prompt' | 'options'>> & {
  prompt: string;
  /** An option's `value` may be left out: it is then its label. */
  options?: Array<Omit<QuestionOption, 'value'> & { value?: string }>;
  allowFreeText?: boolean;
} & ({ id: string; header?: string } | { header: string; id?: string });
