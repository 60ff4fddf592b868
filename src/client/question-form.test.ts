import { describe, expect, it } from 'vitest';
import type { Question } from '../types.js';
import { coerceAnswer, createQuestionForm } from './question-form.js';

const scope: Question = {
  id: 'scope',
  header: 'Scope',
  prompt: 'How much should I cover?',
  options: [
    { value: 'file', label: 'This file', hotkey: 'a' },
    { value: 'module', label: 'The whole module', hotkey: 'b' },
  ],
  multiple: false,
  custom: false,
  defaults: ['module'],
};
const tests: Question = {
  id: 'tests',
  header: 'Tests',
  prompt: 'Which tests?',
  multiple: true,
  custom: true,
  options: [
    { value: 'unit', label: 'Unit' },
    { value: 'e2e', label: 'End to end' },
  ],
  defaults: ['unit'],
};
const seats: Question = {
  id: 'seats',
  header: 'Seats',
  prompt: 'How many seats?',
  input: { type: 'number', min: 1, max: 9, required: true },
  defaults: ['2'],
};
const contact: Question = {
  id: 'contact',
  header: 'Contact',
  prompt: 'Who should we email?',
  input: { type: 'email', required: true },
};

describe('coerceAnswer (heed/client)', () => {
  it('coerces the way a form sends it and says what is wrong in the server’s words', () => {
    expect(coerceAnswer(seats, ' 3 ')).toEqual({ ok: true, values: ['3'] });
    expect(coerceAnswer(seats, 12)).toEqual({ ok: false, message: '"Seats" must be at most 9.' });
    expect(coerceAnswer(scope, 'This file')).toEqual({ ok: true, values: ['file'] });
    expect(coerceAnswer(tests, ['Unit', 'e2e'])).toEqual({ ok: true, values: ['unit', 'e2e'] });
  });
});

describe('createQuestionForm', () => {
  it('starts with the defaults entered, valid only when every required question has an answer or a default', () => {
    const form = createQuestionForm([scope, tests, seats, contact]);
    const state = form.getState();
    expect(state.fields.map((field) => [field.id, field.value, field.defaults, field.touched])).toEqual([
      ['scope', 'module', ['module'], false],
      ['tests', ['unit'], ['unit'], false],
      ['seats', '2', ['2'], false],
      ['contact', undefined, [], false],
    ]);
    expect(form.field('contact')!.error).toBe('"Contact" needs an answer.');
    expect(state.isValid).toBe(false);
  });

  it('setValue takes raw values (labels, numbers, lists), tells listeners, and keeps the error current', () => {
    const form = createQuestionForm([scope, tests, seats, contact]);
    let told = 0;
    form.subscribe(() => told++);
    form.field('Seats')!.setValue(12);
    expect(form.field('seats')).toMatchObject({ value: '12', error: '"Seats" must be at most 9.', touched: true });
    form.setValue('seats', 4);
    form.setValue('scope', 'This file');
    form.setValue('tests', ['End to end', 'a flaky one']);
    form.setValue('contact', 'ada@example.com');
    expect(told).toBe(5);
    const state = form.getState();
    expect(state.isValid).toBe(true);
    expect(form.resolution()).toEqual({
      type: 'question',
      answers: { scope: 'file', tests: ['e2e', 'a flaky one'], seats: '4', contact: 'ada@example.com' },
    });
  });

  it('refuses free text where the question takes none, and two picks on a single choice', () => {
    const form = createQuestionForm([scope]);
    form.setValue('scope', 'Everything');
    expect(form.field('scope')!.error).toBe(
      '"Scope" must be one of the offered options (This file, The whole module); "Everything" is not.',
    );
    form.setValue('scope', ['file', 'module']);
    expect(form.field('scope')!.error).toBe('"Scope" takes one answer only; 2 were given.');
    form.setValue('scope', '');
    // Blank is left out: the server takes the default.
    expect(form.getState()).toMatchObject({ isValid: true, answers: {} });
  });

  it("shows the server's sentences beside their fields until the value changes", () => {
    const form = createQuestionForm([seats, contact]);
    form.setValue('contact', 'ada@example.com');
    const ids = form.showServerErrors({ fields: [{ field: 'answers.contact', message: 'That mailbox is full.' }] });
    expect(ids).toEqual(['contact']);
    expect(form.field('contact')!.error).toBe('That mailbox is full.');
    expect(form.getState().isValid).toBe(false);
    form.setValue('contact', 'grace@example.com');
    expect(form.field('contact')!.error).toBeNull();
    expect(form.showServerErrors({ something: 'else' })).toEqual([]);
  });
});
