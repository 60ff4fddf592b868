import type { Question, QuestionOption } from './wire.js';
import { checkInput } from './check-input.js';
import { isPlainObject } from '../plain-object.js';
import { canonicalValues, characterCount, quote, toAnswerStrings } from './coerce.js';
import { re2PatternTest } from './pattern-re2.js';

/** Where a question set comes from: the model's ask tool, the agent's intake, or a tool's ctx.ask. */
export type QuestionSource = 'ask' | 'intake' | 'ctx';

export type CheckQuestionsResult = { ok: true; questions: Question[] } | { ok: false; problems: string[] };

/** The most questions one call of the model's ask tool may hold. */
export const MAX_ASK_QUESTIONS = 5;
export const MAX_HEADER_LENGTH = 30;
/** The most questions one action may hold, whoever asks (intake, ctx.ask, an MCP form). */
export const MAX_QUESTIONS = 20;
/** The most options one question may offer. */
export const MAX_OPTIONS = 50;

/**
 * Longest texts, in characters, so a card stays readable and a stored pause small whoever wrote the
 * questions (a model may be talked into writing anything).
 */
export const MAX_TEXT_LENGTH = {
  prompt: 2000,
  description: 2000,
  label: 200,
  value: 200,
  optionDescription: 1000,
  preview: 10_000,
} as const;

type Say = (problem: string) => void;

function optionalText(
  raw: Record<string, unknown>,
  key: string,
  field: string,
  say: Say,
  max?: number,
): string | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value === 'string') {
    if (max !== undefined) tooLong(value, max, field, say);
    return value;
  }
  say(`${field} must be text.`);
  return undefined;
}

/** Says so when `text` has more than `max` characters. */
export function tooLong(text: string, max: number, field: string, say: Say): boolean {
  const length = characterCount(text);
  if (length <= max) return false;
  say(`${field} is ${length} characters long; it may have at most ${max}.`);
  return true;
}

function optionalBoolean(raw: Record<string, unknown>, key: string, say: Say): boolean | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') return value;
  say(`${key} must be true or false.`);
  return undefined;
}

function reportRepeats(values: string[], what: string, say: Say): void {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  for (const [value, count] of counts) {
    if (count > 1) say(`${what} ${quote(value)} appears ${count === 2 ? 'twice' : `${count} times`}.`);
  }
}

function checkOptions(raw: unknown, say: Say): QuestionOption[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) {
    say('options must be a non-empty list of { label, value? } objects.');
    return undefined;
  }
  if (raw.length > MAX_OPTIONS) {
    say(`options holds ${raw.length} options; a question may offer at most ${MAX_OPTIONS}.`);
    return undefined;
  }
  const options: QuestionOption[] = [];
  raw.forEach((item, index) => {
    const name = `options[${index}]`;
    if (!isPlainObject(item)) {
      say(`${name} must be an object with a label.`);
      return;
    }
    if (typeof item.label !== 'string' || item.label.trim() === '') {
      say(`${name} has no label; every option needs non-empty label text.`);
      return;
    }
    const label = item.label.trim();
    const named = `${name} (${quote(label)})`;
    tooLong(label, MAX_TEXT_LENGTH.label, `${named}: label`, say);
    const option: QuestionOption = { value: label, label };
    // A blank value is treated as left out, the way a form treats a blank field.
    if (typeof item.value === 'string' && item.value.trim() !== '') option.value = item.value.trim();
    else if (item.value !== undefined && typeof item.value !== 'string') say(`${named}: value must be text.`);
    tooLong(option.value, MAX_TEXT_LENGTH.value, `${named}: value`, say);
    const description = optionalText(
      item,
      'description',
      `${named}: description`,
      say,
      MAX_TEXT_LENGTH.optionDescription,
    );
    if (description !== undefined) option.description = description;
    const preview = optionalText(item, 'preview', `${named}: preview`, say, MAX_TEXT_LENGTH.preview);
    if (preview !== undefined) option.preview = preview;
    if (item.hotkey !== undefined) {
      if (typeof item.hotkey === 'string' && characterCount(item.hotkey) === 1) option.hotkey = item.hotkey;
      else say(`${named}: hotkey must be a single character.`);
    }
    options.push(option);
  });
  reportRepeats(
    options.map((option) => option.label),
    'label',
    say,
  );
  reportRepeats(
    options.map((option) => option.value),
    'value',
    say,
  );
  reportRepeats(
    options.flatMap((option) => (option.hotkey === undefined ? [] : [option.hotkey])),
    'hotkey',
    say,
  );
  return options;
}

/**
 * A header made from an id when none is given (seed 003's questions have only an id): `due_date` reads
 * "Due date". Cut to the longest header allowed.
 */
export function headerFromId(id: string): string {
  const words = id.replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').trim();
  const header = words.charAt(0).toUpperCase() + words.slice(1);
  const chars = [...header];
  return chars.length > MAX_HEADER_LENGTH
    ? `${chars
        .slice(0, MAX_HEADER_LENGTH - 1)
        .join('')
        .trimEnd()}…`
    : header;
}

/** The question's header as given, else one made from its id; undefined when it has neither. */
export function givenHeader(raw: Record<string, unknown>): { header: string; derived: boolean } | undefined {
  if (typeof raw.header === 'string' && raw.header.trim() !== '') return { header: raw.header.trim(), derived: false };
  const blank = raw.header === undefined || (typeof raw.header === 'string' && raw.header.trim() === '');
  if (blank && typeof raw.id === 'string' && headerFromId(raw.id) !== '')
    return { header: headerFromId(raw.id), derived: true };
  return undefined;
}

function checkHeader(raw: Record<string, unknown>, say: Say): string | undefined {
  const given = givenHeader(raw);
  if (!given) {
    say(`header is missing; give an id, or a short header of 1 to ${MAX_HEADER_LENGTH} characters.`);
    return undefined;
  }
  const length = characterCount(given.header);
  if (length > MAX_HEADER_LENGTH) {
    say(`header is ${length} characters long; it may have at most ${MAX_HEADER_LENGTH}.`);
  }
  return given.header;
}

/**
 * Whether free text is allowed besides the options: `custom`, or seed 003's name for it, `allowFreeText`.
 * Left out, it is allowed (docs/concepts.md#questions-as-they-are-written), unlike seed 003 where it is off unless asked for.
 */
function checkFreeText(raw: Record<string, unknown>, say: Say): { value: boolean | undefined; key: string } {
  const custom = optionalBoolean(raw, 'custom', say);
  const allowFreeText = optionalBoolean(raw, 'allowFreeText', say);
  if (custom !== undefined && allowFreeText !== undefined && custom !== allowFreeText) {
    say('custom and allowFreeText say different things; give one of them.');
  }
  return custom !== undefined ? { value: custom, key: 'custom' } : { value: allowFreeText, key: 'allowFreeText' };
}

function checkDefaults(question: Question, raw: unknown, say: Say): string[] {
  const strings = toAnswerStrings(raw);
  if (strings === null) {
    say('defaults must be text or a list of texts.');
    return [];
  }
  const result = canonicalValues(question, strings, re2PatternTest);
  if (!result.ok) {
    say(`${strings.length === 1 ? 'the default' : 'defaults'} ${result.reason}.`);
    return [];
  }
  if (!question.multiple && result.values.length > 1) {
    say(`defaults hold ${result.values.length} answers, but the question takes only one.`);
    return [];
  }
  return result.values;
}

/** Checks one question; its problems go to `say`, and the question is returned only when it is sound. */
function checkQuestion(raw: unknown, source: QuestionSource, say: Say): Question | undefined {
  if (!isPlainObject(raw)) {
    say('must be an object with an id or a header, and a prompt.');
    return undefined;
  }
  let problems = 0;
  const note: Say = (problem) => {
    problems += 1;
    say(problem);
  };

  const header = checkHeader(raw, note);
  const givenId = typeof raw.id === 'string' ? raw.id.trim() : '';
  if (raw.id !== undefined && typeof raw.id !== 'string') note('id must be text.');
  // The ask tool and other products call the prompt `question`; both are accepted.
  const rawPrompt = raw.prompt !== undefined ? raw.prompt : raw.question;
  if (typeof rawPrompt !== 'string' || rawPrompt.trim() === '') {
    note('prompt is missing; give the full question as non-empty text.');
  } else {
    tooLong(rawPrompt.trim(), MAX_TEXT_LENGTH.prompt, 'prompt', note);
  }
  const description = optionalText(raw, 'description', 'description', note, MAX_TEXT_LENGTH.description);
  const multiple = optionalBoolean(raw, 'multiple', note) ?? false;
  const freeText = checkFreeText(raw, note);
  const custom = freeText.value;

  const options = raw.options === undefined ? undefined : checkOptions(raw.options, note);
  const input = raw.input === undefined ? undefined : checkInput(raw.input, note);
  if (raw.options === undefined && raw.input === undefined) {
    note('give either options to pick from or an input to fill in.');
  }
  if (raw.options !== undefined && input && input.type !== 'select') {
    note(`options only go with a select input, not with a ${input.type} input.`);
  }
  if (input?.type === 'select') {
    if (raw.options === undefined) note('a select input picks from options, so give a non-empty options list.');
    if (custom === true) note(`${freeText.key} cannot be true for a select input, which picks only from its options.`);
  }
  if (problems > 0 || header === undefined || typeof rawPrompt !== 'string') return undefined;

  const question: Question = { id: givenId || header, header, prompt: rawPrompt.trim() };
  if (description !== undefined) question.description = description;
  if (options) question.options = options;
  question.multiple = multiple;
  if (options) question.custom = input?.type === 'select' ? false : (custom ?? true);
  if (input) question.input = input;

  const defaults = raw.defaults === undefined ? [] : checkDefaults(question, raw.defaults, note);
  if (defaults.length > 0) question.defaults = defaults;
  if (source === 'ask' && options && defaults.length === 0 && problems === 0) {
    note('defaults are missing; an ask must pre-pick an answer for every question with options.');
  }
  return problems > 0 ? undefined : question;
}

/**
 * Validates and normalizes a question set declared in config (intake), by a tool's `ctx.ask`, or by
 * the model's ask tool. Returns every problem found, each naming the question it is about.
 */
export function checkQuestions(raw: unknown, options: { source: QuestionSource }): CheckQuestionsResult {
  if (!Array.isArray(raw)) return { ok: false, problems: ['questions must be a list of at least one question.'] };
  const problems: string[] = [];
  if (raw.length === 0) problems.push('questions must hold at least one question.');
  if (options.source === 'ask' && raw.length > MAX_ASK_QUESTIONS) {
    problems.push(`questions holds ${raw.length} questions; one ask may hold at most ${MAX_ASK_QUESTIONS}.`);
  } else if (raw.length > MAX_QUESTIONS) {
    problems.push(`questions holds ${raw.length} questions; one request may hold at most ${MAX_QUESTIONS}.`);
  }
  // Far too many are not looked at one by one: the count is the problem.
  if (raw.length > MAX_QUESTIONS) return { ok: false, problems };

  const questions: Question[] = [];
  const headerAt = new Map<string, number>();
  const idAt = new Map<string, number>();
  raw.forEach((item, index) => {
    const given = isPlainObject(item) ? givenHeader(item) : undefined;
    const header = given?.header ?? '';
    const name = header === '' ? `questions[${index}]` : `questions[${index}] (${quote(header)})`;
    const say: Say = (problem) => problems.push(`${name}: ${problem}`);
    const question = checkQuestion(item, options.source, say);
    if (header !== '') {
      const first = headerAt.get(header);
      if (first === undefined) headerAt.set(header, index);
      else if (given?.derived)
        say(
          `header ${quote(header)}, made from the id, is already used by questions[${first}]; give this question a header of its own.`,
        );
      else say(`header ${quote(header)} is already used by questions[${first}]; headers must be unique.`);
    }
    const givenId = isPlainObject(item) && typeof item.id === 'string' ? item.id.trim() : '';
    // An id left out is the header, whose repeat was just reported; say it once.
    const id = givenId || (headerAt.get(header) === index ? header : '');
    if (id !== '') {
      const first = idAt.get(id);
      if (first === undefined) idAt.set(id, index);
      else say(`id ${quote(id)} is already used by questions[${first}]; ids must be unique.`);
    }
    if (question) questions.push(question);
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, questions };
}
