import { describe, expect, it } from 'vitest';
import type { Question } from './wire.js';
import { checkQuestions, settleAnswers, skipAnswers } from '../question.js';

function declared(raw: unknown[]): Question[] {
  const result = checkQuestions(raw, { source: 'intake' });
  if (!result.ok) throw new Error(result.problems.join('\n'));
  return result.questions;
}

const questions = declared([
  {
    id: 'scope',
    header: 'Scope',
    prompt: 'How much should I cover?',
    options: [
      { value: 'file', label: 'This file' },
      { value: 'module', label: 'The whole module' },
    ],
    defaults: ['module'],
  },
  {
    id: 'tests',
    header: 'Tests',
    prompt: 'Which tests should I touch?',
    multiple: true,
    custom: false,
    options: [
      { value: 'unit', label: 'Unit' },
      { value: 'e2e', label: 'End to end' },
    ],
  },
  { id: 'seats', header: 'Seats', prompt: 'How many seats?', input: { type: 'number', min: 1, max: 9 }, defaults: '2' },
  { id: 'contact', header: 'Contact', prompt: 'Who should we email?', input: { type: 'email', required: true } },
  { id: 'notes', header: 'Notes', prompt: 'Anything else?', input: { type: 'textarea', max: 500 } },
]);

describe('settleAnswers', () => {
  it('fills what was left out from defaults and lists those ids in question order', () => {
    expect(settleAnswers(questions, { contact: 'ana@example.com' })).toStrictEqual({
      ok: true,
      answers: { scope: ['module'], seats: ['2'], contact: ['ana@example.com'] },
      defaulted: ['scope', 'seats'],
    });
  });

  it('stores canonical values and does not mark answered questions as defaulted', () => {
    expect(
      settleAnswers(questions, {
        scope: 'This file',
        tests: ['End to end', 'unit'],
        seats: 4.0,
        contact: ' ana@example.com ',
        notes: '  Thanks!  ',
      }),
    ).toStrictEqual({
      ok: true,
      answers: {
        scope: ['file'],
        tests: ['e2e', 'unit'],
        seats: ['4'],
        contact: ['ana@example.com'],
        notes: ['Thanks!'],
      },
      defaulted: [],
    });
  });

  it('treats a blank answer as left out', () => {
    const result = settleAnswers(questions, { scope: '  ', seats: [], contact: 'ana@example.com', notes: '' });
    expect(result).toMatchObject({ ok: true, defaulted: ['scope', 'seats'] });
    expect(result.ok && Object.keys(result.answers)).toEqual(['scope', 'seats', 'contact']);
  });

  it('accepts the header as the key', () => {
    expect(settleAnswers(questions, { Scope: 'file', Contact: 'ana@example.com' })).toMatchObject({
      ok: true,
      answers: { scope: ['file'], contact: ['ana@example.com'] },
      defaulted: ['seats'],
    });
  });

  it('accepts nothing at all when nothing is required', () => {
    const optional = questions.filter((question) => question.id !== 'contact');
    expect(settleAnswers(optional, undefined)).toStrictEqual({
      ok: true,
      answers: { scope: ['module'], seats: ['2'] },
      defaulted: ['scope', 'seats'],
    });
  });

  it('returns every problem, per field, in sentences naming the question', () => {
    expect(
      settleAnswers(questions, {
        color: 'red',
        scope: ['file', 'module'],
        tests: ['Unit', 'Integration'],
        seats: '12',
        notes: 'x'.repeat(501),
      }),
    ).toEqual({
      ok: false,
      problems: [
        {
          field: 'answers.color',
          message:
            'There is no question "color" here. The questions are "scope", "tests", "seats", "contact", "notes".',
        },
        { field: 'answers.scope', message: '"Scope" takes one answer only; 2 were given.' },
        {
          field: 'answers.tests',
          message: '"Tests" must be one of the offered options (Unit, End to end); "Integration" is not.',
        },
        { field: 'answers.seats', message: '"Seats" must be at most 9.' },
        { field: 'answers.contact', message: '"Contact" needs an answer.' },
        { field: 'answers.notes', message: '"Notes" must be at most 500 characters long.' },
      ],
    });
  });

  it('refuses the same question answered under its id and its header', () => {
    expect(settleAnswers(questions, { scope: 'file', Scope: 'module', contact: 'ana@example.com' })).toEqual({
      ok: false,
      problems: [
        { field: 'answers.scope', message: '"Scope" is answered twice, as "scope" and as "Scope"; send one.' },
      ],
    });
  });

  it('wants a plain object', () => {
    for (const raw of [['file'], 'file', 3]) {
      expect(settleAnswers(questions, raw)).toEqual({
        ok: false,
        problems: [{ field: 'answers', message: 'answers must be an object with one entry per question id.' }],
      });
    }
  });

  it('keeps a question id such as "__proto__" an ordinary key', () => {
    const odd = declared([{ id: '__proto__', header: 'Odd', prompt: 'Odd?', input: { type: 'text' } }]);
    const result = settleAnswers(odd, JSON.parse('{"__proto__": "yes"}'));
    expect(result.ok && Object.hasOwn(result.answers, '__proto__')).toBe(true);
    expect(result.ok && result.answers['__proto__']).toEqual(['yes']);
  });
});

describe('skipAnswers', () => {
  it('gives every question with defaults its defaults', () => {
    expect(skipAnswers(questions)).toStrictEqual({
      answers: { scope: ['module'], seats: ['2'] },
      defaulted: ['scope', 'seats'],
    });
  });

  it('gives nothing when nothing was pre-picked', () => {
    expect(skipAnswers(questions.filter((question) => !question.defaults))).toStrictEqual({
      answers: {},
      defaulted: [],
    });
  });
});
