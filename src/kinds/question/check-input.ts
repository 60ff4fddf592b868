import type { InputType, QuestionInput } from './wire.js';
import { characterCount, isCalendarDate, MAX_ANSWER_LENGTH, quote } from './coerce.js';
import { isBacktrackSafe, MAX_PATTERN_ANSWER_LENGTH } from './pattern.js';
import { compilePattern } from './pattern-re2.js';
import { isPlainObject } from '../plain-object.js';

/** Longest `input.pattern` and `input.placeholder`, in characters. */
export const MAX_PATTERN_LENGTH = 500;
export const MAX_PLACEHOLDER_LENGTH = 200;

export const INPUT_TYPES: readonly InputType[] = [
  'text',
  'textarea',
  'number',
  'boolean',
  'date',
  'email',
  'url',
  'select',
];

/** Types whose min/max count characters and that may carry a pattern. */
const TEXT_TYPES: ReadonlySet<InputType> = new Set<InputType>(['text', 'textarea', 'email', 'url']);

function isInputType(value: unknown): value is InputType {
  return typeof value === 'string' && (INPUT_TYPES as readonly string[]).includes(value);
}

function checkBound(
  key: 'min' | 'max',
  value: unknown,
  type: InputType,
  say: (problem: string) => void,
): number | string | undefined {
  if (value === undefined) return undefined;
  if (type === 'number') {
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    say(`input.${key} must be a number for a number input.`);
  } else if (TEXT_TYPES.has(type)) {
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
    say(`input.${key} must be a whole number of characters (0 or more) for a ${type} input.`);
  } else if (type === 'date') {
    if (typeof value === 'string' && isCalendarDate(value)) return value;
    say(`input.${key} must be a real date written YYYY-MM-DD for a date input.`);
  } else {
    say(`input.${key} does not apply to a ${type} input.`);
  }
  return undefined;
}

function isAbove(min: number | string, max: number | string): boolean {
  if (typeof min === 'number' && typeof max === 'number') return min > max;
  if (typeof min === 'string' && typeof max === 'string') return min > max;
  return false;
}

/**
 * Checks a question's `input` and returns it with only the known fields, or undefined when it is
 * unusable. Every problem is passed to `say` as a sentence about the field.
 */
export function checkInput(raw: unknown, say: (problem: string) => void): QuestionInput | undefined {
  if (!isPlainObject(raw)) {
    say('input must be an object with a type, such as { "type": "text" }.');
    return undefined;
  }
  const type = raw.type;
  if (!isInputType(type)) {
    const accepted = INPUT_TYPES.join(', ');
    say(
      type === undefined
        ? `input.type is missing; use one of ${accepted}.`
        : `input.type ${quote(String(type))} is not one of ${accepted}.`,
    );
    return undefined;
  }

  const input: QuestionInput = { type };
  const min = checkBound('min', raw.min, type, say);
  const max = checkBound('max', raw.max, type, say);
  if (min !== undefined) input.min = min;
  if (max !== undefined) input.max = max;
  if (min !== undefined && max !== undefined && isAbove(min, max)) {
    say(`input.min (${min}) is greater than input.max (${max}).`);
  }

  const pattern = raw.pattern;
  if (pattern !== undefined) {
    if (typeof pattern !== 'string') {
      say('input.pattern must be text: a regular expression.');
    } else if (characterCount(pattern) > MAX_PATTERN_LENGTH) {
      say(`input.pattern is ${characterCount(pattern)} characters long; it may have at most ${MAX_PATTERN_LENGTH}.`);
    } else if (!TEXT_TYPES.has(type)) {
      say(`input.pattern does not apply to a ${type} input; it is for text, textarea, email and url inputs.`);
    } else {
      // Checked by RE2, the engine that matches answers on the server, so a pattern stored here never
      // needs backtracking; the browser runs only those also marked safe for a backtracking engine.
      const compiled = compilePattern(pattern);
      if (!compiled.ok) {
        say(
          `input.pattern ${quote(pattern)} cannot be used: ${compiled.problem}. Patterns use RE2 syntax (JavaScript's, without backreferences or lookaround).`,
        );
      } else {
        input.pattern = pattern;
        if (isBacktrackSafe(pattern)) input.patternBacktrackSafe = true;
        if (typeof max === 'number' && max > MAX_PATTERN_ANSWER_LENGTH) {
          say(
            `input.max is ${max}, but an answer checked against a pattern may have at most ${MAX_PATTERN_ANSWER_LENGTH} characters.`,
          );
        }
      }
    }
  }
  if (TEXT_TYPES.has(type) && typeof max === 'number' && max > MAX_ANSWER_LENGTH) {
    say(`input.max is ${max}, but an answer may have at most ${MAX_ANSWER_LENGTH} characters.`);
  }

  if (raw.required !== undefined) {
    if (typeof raw.required === 'boolean') input.required = raw.required;
    else say('input.required must be true or false.');
  }
  if (raw.placeholder !== undefined) {
    if (typeof raw.placeholder !== 'string') say('input.placeholder must be text.');
    else if (characterCount(raw.placeholder) > MAX_PLACEHOLDER_LENGTH) {
      say(
        `input.placeholder is ${characterCount(raw.placeholder)} characters long; it may have at most ${MAX_PLACEHOLDER_LENGTH}.`,
      );
    } else input.placeholder = raw.placeholder;
  }
  return input;
}
