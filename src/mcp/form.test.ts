import { describe, expect, it } from 'vitest';
import { CONFIRM_ID, formContent, formQuestions } from './form.js';
import { looksSecret, secretFields } from './secrets.js';
import type { ElicitationFormSchema } from './types.js';

function plan(properties: ElicitationFormSchema['properties'], required?: string[]) {
  const made = formQuestions({ type: 'object', properties, ...(required ? { required } : {}) }, 'Tell us.');
  if (!made.ok) throw new Error(made.problem);
  return made;
}

describe('formQuestions', () => {
  it('keeps headers within 30 characters and unique', () => {
    const { questions } = plan({
      a: { type: 'string', title: 'The name of the company you work for today' },
      b: { type: 'string', title: 'The name of the company you work for today' },
    });
    expect(questions.map((question) => question.header)).toEqual([
      'The name of the company you w…',
      'The name of the company you 2',
    ]);
    expect(questions[0].prompt).toBe('The name of the company you work for today');
    expect(questions.every((question) => [...question.header].length <= 30)).toBe(true);
  });

  it('leaves out a default its own question refuses instead of failing the form', () => {
    const { questions } = plan({
      when: { type: 'string', format: 'date-time', default: 'tomorrow' },
      seats: { type: 'integer', minimum: 1, maximum: 3, default: 7 },
      mode: { type: 'string', enum: ['a', 'b'], default: 'c' },
    });
    expect(questions.map((question) => question.defaults)).toEqual([undefined, undefined, undefined]);
  });

  it('asks a form without fields as one "go ahead?" question', () => {
    const { questions, fields } = plan({});
    expect(fields).toEqual([]);
    expect(questions).toMatchObject([
      { id: CONFIRM_ID, prompt: 'Tell us.', options: [{ value: 'accept', label: 'Go ahead' }] },
    ]);
  });

  it('refuses a field of a type a form cannot ask for', () => {
    const made = formQuestions({ type: 'object', properties: { address: { type: 'object' } } }, 'Where?');
    expect(made).toEqual({ ok: false, problem: 'the field "address" is of a type a form cannot ask for ("object")' });
  });

  it('marks required fields, options included', () => {
    const { questions } = plan(
      { name: { type: 'string' }, size: { type: 'string', enum: ['s', 'l'] }, ok: { type: 'boolean' } },
      ['name', 'size', 'ok'],
    );
    expect(questions.map((question) => question.input?.required)).toEqual([true, true, true]);
  });

  it('the date-time pattern takes what JSON Schema calls a date-time', () => {
    const { questions } = plan({ at: { type: 'string', format: 'date-time' } });
    const pattern = new RegExp(`^(?:${questions[0].input!.pattern})$`);
    expect(['2025-03-31T14:30:00Z', '2025-03-31T14:30:00.5+02:00'].every((value) => pattern.test(value))).toBe(true);
    expect(['2025-03-31', '2025-03-31T14:30', '2025-03-31 14:30:00Z'].some((value) => pattern.test(value))).toBe(false);
  });
});

describe('formContent', () => {
  const { fields } = plan({
    words: { type: 'string' },
    count: { type: 'integer' },
    ratio: { type: 'number' },
    flag: { type: 'boolean' },
    pick: { type: 'string', enum: ['x', 'y'] },
    picks: { type: 'array', items: { type: 'string', enum: ['x', 'y', 'z'] }, minItems: 2 },
  });

  it('types each answer as the schema asks and leaves out what was not answered', () => {
    expect(
      formContent(fields, { words: ['hi'], count: ['3'], ratio: ['0.5'], flag: ['false'], picks: ['x', 'z'] }),
    ).toEqual({
      ok: true,
      content: { words: 'hi', count: 3, ratio: 0.5, flag: false, picks: ['x', 'z'] },
    });
  });

  it('reports what a question cannot check by itself', () => {
    expect(formContent(fields, { count: ['2.5'], picks: ['x'] })).toEqual({
      ok: false,
      problems: ['"count" must be a whole number; 2.5 is not.', '"picks" needs at least 2 picked.'],
    });
  });
});

describe('secrets', () => {
  it('recognizes secret-looking names in any casing', () => {
    for (const name of [
      'password',
      'userPassword',
      'api_key',
      'apiKey',
      'API key',
      'apikey',
      'access-token',
      'clientSecret',
      'otp',
      'PIN',
      'credentials',
      'passwd',
    ]) {
      expect(looksSecret(name), name).toBe(true);
    }
    for (const name of ['email', 'keyboard_layout', 'spinach', 'topping', 'name', 'monkey']) {
      expect(looksSecret(name), name).toBe(false);
    }
  });

  it('looks at titles too', () => {
    expect(
      secretFields({ code: { type: 'string', title: 'Your PIN' }, city: { type: 'string', title: 'City' } }),
    ).toEqual(['code']);
  });
});
