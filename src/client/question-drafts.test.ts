import { describe, expect, it } from 'vitest';
import { settleAnswers } from '../kinds/question/settle.js';
import type { Question } from '../types.js';
import {
  answerLabels,
  buildAnswers,
  draftProblem,
  draftProblems,
  initialDrafts,
  optionForHotkey,
  optionHotkey,
  pickOption,
  problemsFromDetails,
  questionControl,
  setCustom,
} from './question-drafts.js';

const topic: Question = {
  id: 'topic',
  header: 'Topic',
  prompt: 'What about?',
  options: [
    { value: 'billing', label: 'Billing' },
    { value: 'tech', label: 'Technical', hotkey: 'T' },
    { value: 'other', label: 'Other' },
  ],
  defaults: ['billing'],
};
const toppings: Question = {
  id: 'toppings',
  header: 'Toppings',
  prompt: 'Which?',
  multiple: true,
  options: [
    { value: 'cheese', label: 'Cheese' },
    { value: 'basil', label: 'Basil' },
  ],
  defaults: ['cheese', 'pineapple'],
};
const seats: Question = {
  id: 'seats',
  header: 'Seats',
  prompt: 'How many?',
  input: { type: 'number', min: 1, max: 9, required: true },
};
const email: Question = { id: 'email', header: 'Email', prompt: 'Where?', input: { type: 'email' } };
const flexible: Question = {
  id: 'flexible',
  header: 'Flexible',
  prompt: 'Flexible?',
  input: { type: 'boolean' },
  defaults: ['true'],
};

describe('question drafts', () => {
  it('pre-picks defaults: offered values as picks, others as free text, typed defaults as text', () => {
    const drafts = initialDrafts([topic, toppings, flexible, seats]);
    expect(drafts.topic).toEqual({ selected: ['billing'], custom: '', text: '' });
    expect(drafts.toppings).toEqual({ selected: ['cheese'], custom: 'pineapple', text: '' });
    expect(drafts.flexible.text).toBe('true');
    expect(drafts.seats.text).toBe('');
    expect(buildAnswers([topic, toppings, flexible, seats], drafts)).toEqual({
      topic: 'billing',
      toppings: ['cheese', 'pineapple'],
      flexible: 'true',
    });
  });

  it('gives the same sentence the server gives for the same answer', () => {
    const cases: Array<[Question, string]> = [
      [seats, '12'],
      [seats, 'abc'],
      [email, 'not-an-email'],
      // As the server stores it: marked safe for the browser's backtracking RegExp.
      [
        {
          id: 'code',
          header: 'Code',
          prompt: 'Code?',
          input: { type: 'text', pattern: '[A-Z]{3}', patternBacktrackSafe: true },
        },
        'abcd',
      ],
      [{ id: 'when', header: 'When', prompt: 'When?', input: { type: 'date', min: '2030-01-01' } }, '2029-12-31'],
    ];
    for (const [question, text] of cases) {
      const draft = question.options
        ? setCustom(question, initialDrafts([question])[question.id], text)
        : { selected: [], custom: '', text };
      const server = settleAnswers([question], { [question.id]: question.options ? text : text });
      expect(server.ok).toBe(false);
      const local = draftProblem(question, draft);
      expect(local).toBe(server.ok ? null : server.problems[0].message);
    }
    // A required question left empty, as the server says it.
    const server = settleAnswers([seats], {});
    expect(draftProblems([seats], initialDrafts([seats]))).toEqual({
      seats: server.ok ? '' : server.problems[0].message,
    });
    expect(draftProblem(seats, { selected: [], custom: '', text: '4' })).toBeNull();
  });

  it('runs only patterns the server marked safe for a backtracking engine, and only those it also finds safe', () => {
    const code = (pattern: string, patternBacktrackSafe?: boolean): Question => ({
      id: 'code',
      header: 'Code',
      prompt: 'Code?',
      input: { type: 'text', pattern, ...(patternBacktrackSafe ? { patternBacktrackSafe } : {}) },
    });
    const typed = (text: string) => ({ selected: [], custom: '', text });
    expect(draftProblem(code('[A-Z]{3}', true), typed('abcd'))).toBe(
      '"Code" must match the pattern [A-Z]{3}; "abcd" does not.',
    );
    // Not marked: left to the server, which shows its own sentence beside the field.
    expect(draftProblem(code('[A-Z]{3}'), typed('abcd'))).toBeNull();
    // Marked by someone else than the server (a forged view): still not run, since it could backtrack.
    expect(draftProblem(code('(a+)+', true), typed('a'.repeat(40) + '!'))).toBeNull();
    // Longer than a pattern may check: the length rule speaks, the pattern is not run.
    expect(draftProblem(code('[a-z]+', true), typed('a'.repeat(1001)))).toBe(
      '"Code" must be at most 1000 characters long, as it is checked against a pattern.',
    );
  });

  it('picks replace on a single choice (and clear free text), toggle in offered order on a multiple choice', () => {
    const single = pickOption(topic, { selected: ['billing'], custom: 'x', text: '' }, 'other');
    expect(single).toEqual({ selected: ['other'], custom: '', text: '' });
    expect(setCustom(topic, single, 'mine').selected).toEqual([]);
    const multi = pickOption(toppings, pickOption(toppings, { selected: [], custom: '', text: '' }, 'basil'), 'cheese');
    expect(multi.selected).toEqual(['cheese', 'basil']);
    expect(pickOption(toppings, multi, 'basil').selected).toEqual(['cheese']);
  });

  it("hotkeys: an option's own key, else its position", () => {
    expect([0, 1, 2].map((index) => optionHotkey(topic, index))).toEqual(['1', 't', '3']);
    expect(optionForHotkey(topic, 't')?.value).toBe('tech');
    expect(optionForHotkey(topic, '3')?.value).toBe('other');
    expect(optionForHotkey(topic, '9')).toBeUndefined();
  });

  it('controls, labels and server problems by question', () => {
    expect([topic, toppings, seats, email, flexible].map(questionControl)).toEqual([
      'single',
      'multiple',
      'number',
      'email',
      'boolean',
    ]);
    expect(questionControl({ ...topic, input: { type: 'select' } })).toBe('select');
    expect(answerLabels(topic, ['tech', 'mine'])).toEqual(['Technical', 'mine']);
    expect(answerLabels(flexible, ['false'])).toEqual(['No']);
    expect(
      problemsFromDetails([topic, seats], {
        fields: [
          { field: 'answers.seats', message: 'Too many.' },
          { field: 'answers', message: 'x' },
        ],
      }),
    ).toEqual({
      seats: 'Too many.',
    });
  });
});
