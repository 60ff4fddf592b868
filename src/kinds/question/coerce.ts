import type { Question, QuestionInput } from './wire.js';
import { backtrackingPatternTest, MAX_PATTERN_ANSWER_LENGTH, type PatternTest } from './pattern.js';

/**
 * Longest answer, in characters, to any question (free text, custom text besides options): a stored
 * answer is repeated in events, views and 409 bodies, so it must stay small. A question's own
 * `input.max` may only lower it.
 */
export const MAX_ANSWER_LENGTH = 10_000;

/** The outcome of coercing one question's raw answer. */
export type CoerceAnswerResult = { ok: true; values: string[] } | { ok: false; message: string };

/**
 * What is wrong with a value, as a clause that reads after any subject ("must be at most 9"), so the
 * same rule can speak of an answer (`"Seats" must be at most 9.`) or of a declared default.
 */
export type CanonicalResult = { ok: true; values: string[] } | { ok: false; reason: string };

const BOOLEAN_WORDS: Record<string, 'true' | 'false'> = {
  true: 'true',
  yes: 'true',
  on: 'true',
  '1': 'true',
  false: 'false',
  no: 'false',
  off: 'false',
  '0': 'false',
};

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A value quoted for a message; long free text is cut so the sentence stays readable. */
export function quote(value: string): string {
  // Cut before splitting into characters: the value may be a huge answer.
  const chars = [...value.slice(0, 124)];
  return JSON.stringify(chars.length > 60 ? `${chars.slice(0, 57).join('')}...` : value);
}

/** Length in characters as a person counts them (code points, not UTF-16 units). */
export function characterCount(value: string): number {
  // Counted without building an array, since an answer may be very long.
  let count = value.length;
  for (let index = 0; index < value.length - 1; index++) {
    const unit = value.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count -= 1;
        index += 1;
      }
    }
  }
  return count;
}

/** True for a real calendar date written YYYY-MM-DD. */
export function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * Turns what a form or client sent into trimmed, non-blank strings: a string or a list of strings,
 * numbers and booleans written as a form would write them. Null for a shape no form produces.
 */
export function toAnswerStrings(raw: unknown): string[] | null {
  if (raw === undefined || raw === null) return [];
  const items = Array.isArray(raw) ? raw : [raw];
  const strings: string[] = [];
  for (const item of items) {
    if (item === undefined || item === null) continue;
    if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') {
      const text = String(item).trim();
      if (text !== '') strings.push(text);
    } else {
      return null;
    }
  }
  return strings;
}

function listLabels(question: Question): string {
  const labels = (question.options ?? []).map((option) => option.label);
  return labels.length > 10 ? `${labels.slice(0, 10).join(', ')}, ...` : labels.join(', ');
}

function matchOption(question: Question, value: string): string | undefined {
  const options = question.options ?? [];
  // By value first, so a value that happens to equal another option's label still means its own option.
  return (options.find((option) => option.value === value) ?? options.find((option) => option.label === value))?.value;
}

function checkNumber(input: QuestionInput, value: string): CanonicalResult {
  const number = Number(value);
  if (!DECIMAL.test(value) || !Number.isFinite(number)) {
    return { ok: false, reason: `must be a number, like 42 or 4.5; ${quote(value)} is not` };
  }
  if (typeof input.min === 'number' && number < input.min)
    return { ok: false, reason: `must be at least ${input.min}` };
  if (typeof input.max === 'number' && number > input.max) return { ok: false, reason: `must be at most ${input.max}` };
  return { ok: true, values: [String(number)] };
}

function checkDate(input: QuestionInput, value: string): CanonicalResult {
  if (!isCalendarDate(value)) {
    return { ok: false, reason: `must be a real date written YYYY-MM-DD, like 2025-03-31; ${quote(value)} is not` };
  }
  // YYYY-MM-DD strings sort in date order, so plain comparison is a date comparison.
  if (typeof input.min === 'string' && value < input.min)
    return { ok: false, reason: `must be on or after ${input.min}` };
  if (typeof input.max === 'string' && value > input.max)
    return { ok: false, reason: `must be on or before ${input.max}` };
  return { ok: true, values: [value] };
}

function isEmailAddress(value: string): boolean {
  const parts = value.split('@');
  if (parts.length !== 2 || /\s/.test(value)) return false;
  const [local, domain] = parts;
  return local !== '' && /^[^.]+(\.[^.]+)+$/.test(domain);
}

function isWebAddress(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    // Not a URL: that is the answer.
    return false;
  }
}

function checkText(input: QuestionInput, value: string): CanonicalResult {
  if (input.type === 'email' && !isEmailAddress(value)) {
    return { ok: false, reason: `must be an email address, like name@example.com; ${quote(value)} is not` };
  }
  if (input.type === 'url' && !isWebAddress(value)) {
    return { ok: false, reason: `must be a web address starting with http:// or https://; ${quote(value)} is not` };
  }
  const length = characterCount(value);
  if (typeof input.min === 'number' && length < input.min) {
    return { ok: false, reason: `must be at least ${input.min} characters long` };
  }
  if (typeof input.max === 'number' && length > input.max) {
    return { ok: false, reason: `must be at most ${input.max} characters long` };
  }
  return { ok: true, values: [value] };
}

function checkTyped(input: QuestionInput, value: string): CanonicalResult {
  switch (input.type) {
    case 'number':
      return checkNumber(input, value);
    case 'boolean': {
      const word = value.toLowerCase();
      if (!Object.hasOwn(BOOLEAN_WORDS, word)) {
        return { ok: false, reason: `must be yes or no (true/false, on/off and 1/0 work too); ${quote(value)} is not` };
      }
      return { ok: true, values: [BOOLEAN_WORDS[word]] };
    }
    case 'date':
      return checkDate(input, value);
    default:
      return checkText(input, value);
  }
}

function checkOne(question: Question, value: string, test: PatternTest): CanonicalResult {
  const input = question.input;
  // First, so no other rule (nor the message quoting the value) works through a huge answer.
  if (value.length > MAX_ANSWER_LENGTH && characterCount(value) > MAX_ANSWER_LENGTH) {
    return { ok: false, reason: `must be at most ${MAX_ANSWER_LENGTH} characters long` };
  }
  if (question.options && question.options.length > 0) {
    const matched = matchOption(question, value);
    if (matched !== undefined) return { ok: true, values: [matched] };
    if (question.custom === false || input?.type === 'select') {
      return {
        ok: false,
        reason: `must be one of the offered options (${listLabels(question)}); ${quote(value)} is not`,
      };
    }
    return { ok: true, values: [value] };
  }
  if (!input) return { ok: true, values: [value] };
  const checked = checkTyped(input, value);
  if (!checked.ok || input.pattern === undefined) return checked;
  if (characterCount(checked.values[0]) > MAX_PATTERN_ANSWER_LENGTH) {
    return {
      ok: false,
      reason: `must be at most ${MAX_PATTERN_ANSWER_LENGTH} characters long, as it is checked against a pattern`,
    };
  }
  if (test({ ...input, pattern: input.pattern }, checked.values[0]) === false) {
    return { ok: false, reason: `must match the pattern ${input.pattern}; ${quote(value)} does not` };
  }
  return checked;
}

/**
 * Checks trimmed, non-blank strings against one question's options or typed input and returns them
 * in canonical form (option values, decimal numbers, `true`/`false`, YYYY-MM-DD), without repeats.
 * How many answers the question takes is the caller's check.
 */
export function canonicalValues(
  question: Question,
  strings: string[],
  test: PatternTest = backtrackingPatternTest,
): CanonicalResult {
  // A Set keeps repeats out in linear time, however many strings were sent.
  const values = new Set<string>();
  for (const value of strings) {
    const checked = checkOne(question, value, test);
    if (!checked.ok) return checked;
    for (const canonical of checked.values) values.add(canonical);
  }
  return { ok: true, values: [...values] };
}

/**
 * Coerces and checks one question's raw answer the way a form sends it (trimmed; blank means left
 * out). An empty answer is `{ ok: true, values: [] }`: required questions and defaults are the
 * caller's concern. The message names the question by its header, so a UI can show it beside the field.
 */
export function coerceAnswer(
  question: Question,
  raw: unknown,
  test: PatternTest = backtrackingPatternTest,
): CoerceAnswerResult {
  const subject = quote(question.header);
  const strings = toAnswerStrings(raw);
  if (strings === null) return { ok: false, message: `${subject} must be text or a list of texts.` };
  // Each option once (by value or by label) and one typed answer: more strings than that cannot all
  // count, and refusing them first keeps a long list from being worked through.
  const most = question.multiple ? (question.options?.length ?? 0) + 1 : 1;
  if (strings.length > 2 * most) {
    return { ok: false, message: `${subject} has ${strings.length} answers; it takes at most ${most}.` };
  }
  const result = canonicalValues(question, strings, test);
  if (!result.ok) return { ok: false, message: `${subject} ${result.reason}.` };
  if (result.values.length > most && question.multiple) {
    return {
      ok: false,
      message: `${subject} has ${result.values.length} answers; it takes at most ${most}: each option once and one typed answer.`,
    };
  }
  if (!question.multiple && result.values.length > 1) {
    return { ok: false, message: `${subject} takes one answer only; ${result.values.length} were given.` };
  }
  return result;
}
