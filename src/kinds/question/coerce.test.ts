import { describe, expect, it } from 'vitest';
import type { Question, QuestionInput } from './wire.js';
import { coerceAnswer } from '../question.js';

const color: Question = {
  id: 'color',
  header: 'Color',
  prompt: 'Which color?',
  options: [
    { value: 'red', label: 'Red' },
    { value: 'blue', label: 'Blue' },
  ],
  multiple: false,
  custom: true,
};

function typed(input: QuestionInput, header = 'Field'): Question {
  return { id: 'field', header, prompt: `${header}?`, multiple: false, input };
}

describe('coerceAnswer: the shape a form sends', () => {
  it('trims, drops blanks, and treats nothing as an empty answer', () => {
    expect(coerceAnswer(color, undefined)).toEqual({ ok: true, values: [] });
    expect(coerceAnswer(color, null)).toEqual({ ok: true, values: [] });
    expect(coerceAnswer(color, '   ')).toEqual({ ok: true, values: [] });
    expect(coerceAnswer(color, ['', ' red '])).toEqual({ ok: true, values: ['red'] });
  });

  it('writes numbers and booleans as a form would', () => {
    expect(coerceAnswer(typed({ type: 'number' }), 42)).toEqual({ ok: true, values: ['42'] });
    expect(coerceAnswer(typed({ type: 'boolean' }), false)).toEqual({ ok: true, values: ['false'] });
  });

  it('reads an object as the parameters a form posts: only the fields the question asks for count (seed 004)', () => {
    expect(coerceAnswer(color, { color: 'Red', authenticity_token: 'x', commit: 'Save' })).toEqual({
      ok: true,
      values: ['red'],
    });
    expect(coerceAnswer(color, { 'Which color?': 'Blue' })).toEqual({ ok: true, values: ['blue'] });
    // Nothing of its own in them: left out, as a blank field is.
    expect(coerceAnswer(color, { label: 'Red' })).toEqual({ ok: true, values: [] });
    expect(coerceAnswer(color, { color: { label: 'Red' } })).toEqual({
      ok: false,
      message: '"Color" must be text or a list of texts.',
    });
  });

  it('refuses other shapes', () => {
    expect(coerceAnswer(color, [['red']])).toEqual({ ok: false, message: '"Color" must be text or a list of texts.' });
  });
});

describe('coerceAnswer: options', () => {
  it('matches by value or by label, exactly, and stores the value', () => {
    expect(coerceAnswer(color, 'red')).toEqual({ ok: true, values: ['red'] });
    expect(coerceAnswer(color, 'Blue')).toEqual({ ok: true, values: ['blue'] });
    // Case matters: "RED" is not an option, so it is free text.
    expect(coerceAnswer(color, 'RED')).toEqual({ ok: true, values: ['RED'] });
  });

  it('prefers an option value over another option label', () => {
    const tricky: Question = {
      ...color,
      options: [
        { value: 'a', label: 'b' },
        { value: 'b', label: 'a' },
      ],
    };
    expect(coerceAnswer(tricky, 'a')).toEqual({ ok: true, values: ['a'] });
  });

  it('allows free text unless custom is off or the input is a select', () => {
    expect(coerceAnswer(color, 'Purple')).toEqual({ ok: true, values: ['Purple'] });
    const refusal = { ok: false, message: '"Color" must be one of the offered options (Red, Blue); "Purple" is not.' };
    expect(coerceAnswer({ ...color, custom: false }, 'Purple')).toEqual(refusal);
    expect(coerceAnswer({ ...color, input: { type: 'select' } }, 'Purple')).toEqual(refusal);
    expect(coerceAnswer({ ...color, input: { type: 'select' } }, 'Red')).toEqual({ ok: true, values: ['red'] });
  });

  it('takes one pick on a single-choice question, free text included', () => {
    expect(coerceAnswer(color, ['Red', 'Blue'])).toEqual({
      ok: false,
      message: '"Color" takes one answer only; 2 were given.',
    });
    expect(coerceAnswer(color, ['Red', 'Purple'])).toEqual({
      ok: false,
      message: '"Color" takes one answer only; 2 were given.',
    });
    // The same option by label and by value is one pick.
    expect(coerceAnswer(color, ['Red', 'red'])).toEqual({ ok: true, values: ['red'] });
  });

  it('takes several picks on a multiple-choice question, in the order given', () => {
    expect(coerceAnswer({ ...color, multiple: true }, ['Blue', 'red', 'Green'])).toEqual({
      ok: true,
      values: ['blue', 'red', 'Green'],
    });
  });
});

describe('coerceAnswer: typed inputs', () => {
  it('number: canonical decimal within min and max', () => {
    const seats = typed({ type: 'number', min: 1, max: 9 }, 'Seats');
    expect(coerceAnswer(seats, ' 4 ')).toEqual({ ok: true, values: ['4'] });
    expect(coerceAnswer(seats, '4.50')).toEqual({ ok: true, values: ['4.5'] });
    expect(coerceAnswer(seats, '+2')).toEqual({ ok: true, values: ['2'] });
    expect(coerceAnswer(typed({ type: 'number' }), ' 42 ')).toEqual({ ok: true, values: ['42'] });
    expect(coerceAnswer(typed({ type: 'number' }), '-0.25')).toEqual({ ok: true, values: ['-0.25'] });
    expect(coerceAnswer(seats, '12')).toEqual({ ok: false, message: '"Seats" must be at most 9.' });
    expect(coerceAnswer(seats, '0')).toEqual({ ok: false, message: '"Seats" must be at least 1.' });
    for (const bad of ['abc', 'NaN', 'Infinity', '1,5', '0x10', '4 seats']) {
      expect(coerceAnswer(seats, bad)).toEqual({
        ok: false,
        message: `"Seats" must be a number, like 42 or 4.5; "${bad}" is not.`,
      });
    }
  });

  it('boolean: yes/no words become true or false', () => {
    const agree = typed({ type: 'boolean' }, 'Agree');
    for (const yes of ['true', 'YES', 'On', '1'])
      expect(coerceAnswer(agree, yes)).toEqual({ ok: true, values: ['true'] });
    for (const no of ['False', 'no', 'OFF', '0'])
      expect(coerceAnswer(agree, no)).toEqual({ ok: true, values: ['false'] });
    expect(coerceAnswer(agree, 'maybe')).toEqual({
      ok: false,
      message: '"Agree" must be yes or no (true/false, on/off and 1/0 work too); "maybe" is not.',
    });
  });

  it('date: a real calendar date within min and max', () => {
    const day = typed({ type: 'date', min: '2025-01-01', max: '2025-12-31' }, 'Day');
    expect(coerceAnswer(day, ' 2025-03-31 ')).toEqual({ ok: true, values: ['2025-03-31'] });
    expect(coerceAnswer(typed({ type: 'date' }), '2024-02-29')).toEqual({ ok: true, values: ['2024-02-29'] });
    for (const bad of ['2025-02-29', '2025-13-01', '31/03/2025', '2025-3-1']) {
      expect(coerceAnswer(day, bad)).toEqual({
        ok: false,
        message: `"Day" must be a real date written YYYY-MM-DD, like 2025-03-31; "${bad}" is not.`,
      });
    }
    expect(coerceAnswer(day, '2024-12-31')).toEqual({ ok: false, message: '"Day" must be on or after 2025-01-01.' });
    expect(coerceAnswer(day, '2026-01-01')).toEqual({ ok: false, message: '"Day" must be on or before 2025-12-31.' });
  });

  it('email: one @, no spaces, a dot in the domain', () => {
    const email = typed({ type: 'email' }, 'Email');
    expect(coerceAnswer(email, ' ana@example.com ')).toEqual({ ok: true, values: ['ana@example.com'] });
    for (const bad of ['ana', 'ana@example', 'a@b@example.com', 'a na@example.com', '@example.com', 'ana@.com']) {
      expect(coerceAnswer(email, bad)).toEqual({
        ok: false,
        message: `"Email" must be an email address, like name@example.com; "${bad}" is not.`,
      });
    }
  });

  it('url: http or https only', () => {
    const site = typed({ type: 'url' }, 'Site');
    expect(coerceAnswer(site, 'https://example.com/a?b=1')).toEqual({
      ok: true,
      values: ['https://example.com/a?b=1'],
    });
    expect(coerceAnswer(site, 'http://localhost:3000')).toEqual({ ok: true, values: ['http://localhost:3000'] });
    for (const bad of ['example.com', 'ftp://example.com', 'javascript:alert(1)']) {
      expect(coerceAnswer(site, bad)).toEqual({
        ok: false,
        message: `"Site" must be a web address starting with http:// or https://; "${bad}" is not.`,
      });
    }
  });

  it('text and textarea: length in characters within min and max', () => {
    const name = typed({ type: 'text', min: 2, max: 5 }, 'Name');
    expect(coerceAnswer(name, '  Ana  ')).toEqual({ ok: true, values: ['Ana'] });
    expect(coerceAnswer(name, '😀😀')).toEqual({ ok: true, values: ['😀😀'] });
    expect(coerceAnswer(name, 'A')).toEqual({ ok: false, message: '"Name" must be at least 2 characters long.' });
    expect(coerceAnswer(typed({ type: 'textarea', max: 5 }, 'Notes'), 'line one\nline two')).toEqual({
      ok: false,
      message: '"Notes" must be at most 5 characters long.',
    });
  });

  it('pattern: must match the whole value', () => {
    const code = typed({ type: 'text', pattern: '[A-Z]{3}' }, 'Code');
    expect(coerceAnswer(code, 'ABC')).toEqual({ ok: true, values: ['ABC'] });
    expect(coerceAnswer(code, 'xABCx')).toEqual({
      ok: false,
      message: '"Code" must match the pattern [A-Z]{3}; "xABCx" does not.',
    });
    // Alternation is wrapped, so "a|b" does not accept "ab...".
    expect(coerceAnswer(typed({ type: 'text', pattern: 'a|b' }, 'Pick'), 'abc').ok).toBe(false);
  });

  it('cuts long values short in the message', () => {
    const email = typed({ type: 'email' }, 'Email');
    const result = coerceAnswer(email, 'x'.repeat(100));
    expect(result).toEqual({
      ok: false,
      message: `"Email" must be an email address, like name@example.com; "${'x'.repeat(57)}..." is not.`,
    });
  });
});
