import { describe, expect, it } from 'vitest';
import type { Question } from './wire.js';
import { summarizeAnswers } from '../question.js';

const questions: Question[] = [
  {
    id: 'scope',
    header: 'Scope',
    prompt: 'How much should I cover?',
    options: [
      { value: 'file', label: 'This file' },
      { value: 'module', label: 'The whole module' },
    ],
    multiple: false,
    custom: true,
    defaults: ['module'],
  },
  {
    id: 'tests',
    header: 'Tests',
    prompt: 'Which tests should I touch?',
    options: [
      { value: 'unit', label: 'Unit' },
      { value: 'e2e', label: 'End to end' },
    ],
    multiple: true,
    custom: true,
  },
  { id: 'backup', header: 'Backup', prompt: 'Take a backup first?', multiple: false, input: { type: 'boolean' } },
  { id: 'notes', header: 'Notes', prompt: 'Anything else?', multiple: false, input: { type: 'textarea' } },
];

describe('summarizeAnswers', () => {
  it('reads answers back by label, booleans as Yes/No, free text verbatim', () => {
    expect(
      summarizeAnswers(questions, {
        answers: { scope: ['file'], tests: ['e2e', 'Smoke tests'], backup: ['false'], notes: ['Keep the API stable.'] },
      }),
    ).toBe(
      [
        'The user answered:',
        'How much should I cover? → This file',
        'Which tests should I touch? → End to end, Smoke tests',
        'Take a backup first? → No',
        'Anything else? → Keep the API stable.',
      ].join('\n'),
    );
  });

  it('marks a question left without an answer', () => {
    expect(summarizeAnswers(questions, { answers: { scope: ['module'], backup: ['true'] } })).toBe(
      [
        'The user answered:',
        'How much should I cover? → The whole module',
        'Which tests should I touch? → (no answer)',
        'Take a backup first? → Yes',
        'Anything else? → (no answer)',
      ].join('\n'),
    );
  });

  it('says the questions were skipped and lists the pre-picked answers used', () => {
    expect(summarizeAnswers(questions, { skipped: true, answers: { scope: ['module'] } })).toBe(
      [
        'The user skipped these questions; go on with your own assumptions.',
        'Pre-picked answers in effect:',
        'How much should I cover? → The whole module',
      ].join('\n'),
    );
  });

  it('says only that they were skipped when nothing was pre-picked', () => {
    expect(summarizeAnswers(questions, { skipped: true, answers: {} })).toBe(
      'The user skipped these questions; go on with your own assumptions.',
    );
  });
});
