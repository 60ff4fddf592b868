/**
 * A form-mode elicitation as Heed questions, and the person's answers as the typed content the
 * server expects. One question per field, in the schema's order, each with the field's name as id.
 */
import { checkQuestions, coerceAnswer } from '../kinds/question.js';
import { MAX_HEADER_LENGTH } from '../kinds/question/check.js';
import { typedAnswer, type AnswerShape } from '../kinds/question/typed.js';
import type { Question, QuestionInput, QuestionOption } from '../types.js';
import type { ElicitationFormSchema, ElicitationValue } from './types.js';

/** A field's answer shape (src/kinds/question/typed.ts), and `integer`: a number the schema wants whole. */
type FieldKind = AnswerShape | 'integer';

/** How one field is asked and how its answer is typed. */
export interface FormField {
  id: string;
  header: string;
  kind: FieldKind;
  minItems?: number;
  maxItems?: number;
}

export type FormPlan = { ok: true; questions: Question[]; fields: FormField[] } | { ok: false; problem: string };

/** The id of the one question asked for a form without fields: a plain "go ahead?". */
export const CONFIRM_ID = 'confirm';

/** RFC 3339 date-time, as JSON Schema's `date-time` format checks it. */
const DATE_TIME = String.raw`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`;

type Draft = Partial<Question> & { header: string; prompt: string };

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function shorten(value: string): string {
  const chars = [...value];
  return chars.length <= MAX_HEADER_LENGTH
    ? value
    : `${chars
        .slice(0, MAX_HEADER_LENGTH - 1)
        .join('')
        .trimEnd()}…`;
}

function uniqueHeader(wanted: string, used: Set<string>): string {
  let header = shorten(wanted);
  for (let n = 2; used.has(header); n++) {
    const suffix = ` ${n}`;
    header = `${[...shorten(wanted)]
      .slice(0, MAX_HEADER_LENGTH - suffix.length)
      .join('')
      .trimEnd()}${suffix}`;
  }
  used.add(header);
  return header;
}

function enumOptions(field: Record<string, unknown>): QuestionOption[] | undefined {
  const titled = (list: unknown) =>
    Array.isArray(list)
      ? list.flatMap((item) => {
          const entry = item as { const?: unknown; title?: unknown };
          return typeof entry?.const === 'string'
            ? [{ value: entry.const, label: text(entry.title) ?? entry.const }]
            : [];
        })
      : undefined;
  if (field.type === 'array') {
    const items = (field.items ?? {}) as Record<string, unknown>;
    if (Array.isArray(items.enum)) return items.enum.map((value) => ({ value: String(value), label: String(value) }));
    return titled(items.anyOf) ?? titled(items.oneOf);
  }
  if (Array.isArray(field.oneOf)) return titled(field.oneOf);
  if (Array.isArray(field.enum)) {
    const names = Array.isArray(field.enumNames) ? field.enumNames : [];
    return field.enum.map((value, index) => ({ value: String(value), label: text(names[index]) ?? String(value) }));
  }
  return undefined;
}

function itemsHint(min: number | undefined, max: number | undefined): string | undefined {
  if (min !== undefined && max !== undefined) return min === max ? `Pick ${min}.` : `Pick ${min} to ${max}.`;
  if (min !== undefined) return `Pick at least ${min}.`;
  if (max !== undefined) return `Pick at most ${max}.`;
  return undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** One field as a question draft, or a sentence saying why it cannot be asked. */
function fieldQuestion(
  name: string,
  field: Record<string, unknown>,
  required: boolean,
): { draft: Draft; field: Omit<FormField, 'header'> } | string {
  const title = text(field.title);
  const description = text(field.description);
  const draft: Draft = { id: name, header: title ?? name, prompt: description ?? title ?? name };
  const hints: string[] = [];
  const options = enumOptions(field);
  let kind: FieldKind;
  let minItems: number | undefined;
  let maxItems: number | undefined;

  if (options) {
    if (options.length === 0) return `the field "${name}" offers no choices`;
    kind = field.type === 'array' ? 'multiple' : 'single';
    draft.options = options;
    draft.multiple = kind === 'multiple';
    draft.input = { type: 'select', ...(required ? { required: true } : {}) };
    if (kind === 'multiple') {
      minItems = count(field.minItems);
      maxItems = count(field.maxItems);
      const hint = itemsHint(minItems, maxItems);
      if (hint) hints.push(hint);
    }
  } else if (field.type === 'string') {
    kind = 'text';
    const input: QuestionInput = { type: 'text' };
    if (field.format === 'email') input.type = 'email';
    else if (field.format === 'uri') input.type = 'url';
    else if (field.format === 'date') input.type = 'date';
    else if (field.format === 'date-time') {
      input.pattern = DATE_TIME;
      input.placeholder = '2025-03-31T14:30:00Z';
      hints.push('A date and time with its time zone, like 2025-03-31T14:30:00Z.');
    }
    if (input.type !== 'date') {
      if (count(field.minLength) !== undefined) input.min = count(field.minLength);
      if (count(field.maxLength) !== undefined) input.max = count(field.maxLength);
    }
    draft.input = input;
  } else if (field.type === 'number' || field.type === 'integer') {
    kind = field.type;
    const input: QuestionInput = { type: 'number' };
    if (typeof field.minimum === 'number') input.min = field.minimum;
    if (typeof field.maximum === 'number') input.max = field.maximum;
    draft.input = input;
    if (kind === 'integer') hints.push('A whole number.');
  } else if (field.type === 'boolean') {
    kind = 'boolean';
    draft.input = { type: 'boolean' };
  } else {
    return `the field "${name}" is of a type a form cannot ask for (${JSON.stringify(field.type ?? null)})`;
  }
  if (required && draft.input && draft.input.type !== 'select') draft.input.required = true;
  if (hints.length > 0) draft.description = hints.join(' ');
  if (field.default !== undefined) {
    const defaults = Array.isArray(field.default) ? field.default.map(String) : [String(field.default)];
    draft.defaults = defaults;
  }
  return { draft, field: { id: name, kind, minItems, maxItems } };
}

/**
 * Builds the questions for a form. A default the question's own rules refuse is left out rather
 * than failing the form; a form Heed cannot ask at all comes back with the reason.
 */
export function formQuestions(schema: ElicitationFormSchema, message: string): FormPlan {
  const properties = schema.properties ?? {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const names = Object.keys(properties);
  if (names.length === 0) {
    const checked = checkQuestions(
      [
        {
          id: CONFIRM_ID,
          header: 'Go ahead?',
          prompt: message,
          options: [{ value: 'accept', label: 'Go ahead' }],
          input: { type: 'select', required: true },
        },
      ],
      { source: 'ctx' },
    );
    return checked.ok
      ? { ok: true, questions: checked.questions, fields: [] }
      : { ok: false, problem: checked.problems.join(' ') };
  }

  const drafts: Draft[] = [];
  const fields: FormField[] = [];
  const used = new Set<string>();
  for (const name of names) {
    const made = fieldQuestion(name, properties[name] ?? {}, required.has(name));
    if (typeof made === 'string') return { ok: false, problem: made };
    made.draft.header = uniqueHeader(made.draft.header, used);
    drafts.push(made.draft);
    fields.push({ ...made.field, header: made.draft.header });
  }
  for (const draft of drafts) {
    if (!draft.defaults) continue;
    const { defaults, ...rest } = draft;
    const probe = checkQuestions([rest], { source: 'ctx' });
    const question = probe.ok ? probe.questions[0] : undefined;
    if (!question || !coerceAnswer(question, defaults).ok) delete draft.defaults;
  }
  const checked = checkQuestions(drafts, { source: 'ctx' });
  if (!checked.ok) return { ok: false, problem: checked.problems.join(' ') };
  return { ok: true, questions: checked.questions, fields };
}

export type FormContent = { ok: true; content: Record<string, ElicitationValue> } | { ok: false; problems: string[] };

/**
 * Types a person's canonical answers the way the schema asks: numbers as numbers, booleans as
 * booleans, a multi-select as a list of strings. Also checks what a question cannot express by
 * itself: whole numbers and how many choices a multi-select takes.
 */
export function formContent(fields: FormField[], answers: Record<string, string[]>): FormContent {
  const content: Record<string, ElicitationValue> = Object.create(null);
  const problems: string[] = [];
  for (const field of fields) {
    const values = answers[field.id];
    // A field left empty is left out: the schema's bounds apply only to a value that is there.
    if (!values || values.length === 0) continue;
    // Typed as a tool's ctx.ask reads answers (src/kinds/question/typed.ts); the checks here are the schema's own.
    content[field.id] = typedAnswer(field.kind === 'integer' ? 'number' : field.kind, values);
    if (field.kind === 'integer' && !Number.isInteger(content[field.id]))
      problems.push(`"${field.header}" must be a whole number; ${values[0]} is not.`);
    if (field.kind === 'multiple') {
      if (field.minItems !== undefined && values.length < field.minItems)
        problems.push(`"${field.header}" needs at least ${field.minItems} picked.`);
      if (field.maxItems !== undefined && values.length > field.maxItems)
        problems.push(`"${field.header}" takes at most ${field.maxItems}.`);
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, content: { ...content } };
}
