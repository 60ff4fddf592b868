import { describe, expect, it } from 'vitest';
import { checkQuestions } from '../question.js';

const color = {
  header: 'Color',
  prompt: 'Which color?',
  options: [{ label: 'Red' }, { label: 'Blue', value: 'blue' }],
  defaults: ['Red'],
};

function problemsOf(raw: unknown, source: 'ask' | 'intake' | 'ctx' = 'intake'): string[] {
  const result = checkQuestions(raw, { source });
  if (result.ok) throw new Error('expected problems, got a valid question set');
  return result.problems;
}

describe('checkQuestions: normalization', () => {
  it('fills id, option values, multiple and custom, and keeps only known fields', () => {
    const result = checkQuestions(
      [
        {
          ...color,
          extra: 1,
          options: [
            { label: ' Red ', junk: true },
            { label: 'Blue', value: 'blue' },
          ],
        },
      ],
      { source: 'intake' },
    );
    expect(result).toStrictEqual({
      ok: true,
      questions: [
        {
          id: 'Color',
          header: 'Color',
          prompt: 'Which color?',
          options: [
            { value: 'Red', label: 'Red' },
            { value: 'blue', label: 'Blue' },
          ],
          multiple: false,
          custom: true,
          defaults: ['Red'],
        },
      ],
    });
  });

  it('accepts `question` as the prompt, a single default string, and defaults given by label', () => {
    const result = checkQuestions(
      [
        {
          id: 'scope',
          header: 'Scope',
          question: 'How much should I cover?',
          description: 'Pick one.',
          options: [
            { value: 'file', label: 'This file', hotkey: 'a', description: 'Only this file.', preview: 'src/a.ts' },
            { value: 'module', label: 'The whole module', hotkey: 'b' },
          ],
          defaults: 'The whole module',
        },
      ],
      { source: 'ask' },
    );
    expect(result.ok && result.questions[0]).toStrictEqual({
      id: 'scope',
      header: 'Scope',
      prompt: 'How much should I cover?',
      description: 'Pick one.',
      options: [
        { value: 'file', label: 'This file', description: 'Only this file.', preview: 'src/a.ts', hotkey: 'a' },
        { value: 'module', label: 'The whole module', hotkey: 'b' },
      ],
      multiple: false,
      custom: true,
      defaults: ['module'],
    });
  });

  it('keeps a typed input with its fields and canonicalizes its defaults', () => {
    const result = checkQuestions(
      [
        {
          id: 'seats',
          header: 'Seats',
          prompt: 'How many seats?',
          input: { type: 'number', min: 1, max: 9, required: true, placeholder: 'e.g. 2', size: 'big' },
          defaults: [' 2.0 '],
        },
      ],
      { source: 'intake' },
    );
    expect(result.ok && result.questions[0]).toStrictEqual({
      id: 'seats',
      header: 'Seats',
      prompt: 'How many seats?',
      multiple: false,
      input: { type: 'number', min: 1, max: 9, required: true, placeholder: 'e.g. 2' },
      defaults: ['2'],
    });
  });

  it('turns custom off for a select input', () => {
    const result = checkQuestions(
      [{ header: 'Plan', prompt: 'Which plan?', input: { type: 'select' }, options: [{ label: 'Free' }] }],
      { source: 'ctx' },
    );
    expect(result.ok && result.questions[0].custom).toBe(false);
  });
});

describe('checkQuestions: the set', () => {
  it('wants a non-empty list', () => {
    expect(problemsOf({ header: 'x' })).toEqual(['questions must be a list of at least one question.']);
    expect(problemsOf([])).toEqual(['questions must hold at least one question.']);
  });

  it('reports repeated headers and ids', () => {
    expect(problemsOf([color, { ...color, defaults: undefined }, { ...color, id: 'Color', header: 'Colour' }])).toEqual(
      [
        'questions[1] ("Color"): header "Color" is already used by questions[0]; headers must be unique.',
        'questions[2] ("Colour"): id "Color" is already used by questions[0]; ids must be unique.',
      ],
    );
  });

  it('returns every problem at once', () => {
    expect(
      problemsOf([
        { prompt: 'Nameless?', options: [{ label: 'A' }] },
        { header: 'A header that is far too long to fit', prompt: 'Long?', input: { type: 'text' } },
        { header: 'Empty', prompt: '' },
        'not a question',
      ]),
    ).toEqual([
      'questions[0]: header is missing; give an id, or a short header of 1 to 30 characters.',
      'questions[1] ("A header that is far too long to fit"): header is 36 characters long; it may have at most 30.',
      'questions[2] ("Empty"): prompt is missing; give the full question as non-empty text.',
      'questions[2] ("Empty"): give either options to pick from or an input to fill in.',
      'questions[3]: must be an object with an id or a header, and a prompt.',
    ]);
  });

  it('checks the types of the known fields', () => {
    expect(
      problemsOf([
        { header: 'Q', id: 7, prompt: 'Q?', description: 3, multiple: 'yes', custom: 1, options: [{ label: 'A' }] },
      ]),
    ).toEqual([
      'questions[0] ("Q"): id must be text.',
      'questions[0] ("Q"): description must be text.',
      'questions[0] ("Q"): multiple must be true or false.',
      'questions[0] ("Q"): custom must be true or false.',
    ]);
  });
});

describe('checkQuestions: options', () => {
  it('reports repeated labels, values and hotkeys', () => {
    expect(
      problemsOf([
        { header: 'Size', prompt: 'Size?', input: { type: 'text' } },
        {
          header: 'Color',
          prompt: 'Which color?',
          options: [
            { label: 'Red', value: 'r', hotkey: 'x' },
            { label: 'Red', value: 'r2', hotkey: 'x' },
            { label: 'Blue', value: 'r' },
          ],
        },
      ]),
    ).toEqual([
      'questions[1] ("Color"): label "Red" appears twice.',
      'questions[1] ("Color"): value "r" appears twice.',
      'questions[1] ("Color"): hotkey "x" appears twice.',
    ]);
  });

  it('wants a non-empty list of labelled options', () => {
    expect(
      problemsOf([
        { header: 'A', prompt: 'A?', options: [] },
        {
          header: 'B',
          prompt: 'B?',
          options: [{ label: ' ' }, 'Red', { label: 'Blue', value: 4, hotkey: 'bb', preview: {} }],
        },
      ]),
    ).toEqual([
      'questions[0] ("A"): options must be a non-empty list of { label, value? } objects.',
      'questions[1] ("B"): options[0] has no label; every option needs non-empty label text.',
      'questions[1] ("B"): options[1] must be an object with a label.',
      'questions[1] ("B"): options[2] ("Blue"): value must be text.',
      'questions[1] ("B"): options[2] ("Blue"): preview must be text.',
      'questions[1] ("B"): options[2] ("Blue"): hotkey must be a single character.',
    ]);
  });

  it('lets options go only with a select input, and a select only with options', () => {
    expect(
      problemsOf([
        { header: 'A', prompt: 'A?', options: [{ label: 'x' }], input: { type: 'number' } },
        { header: 'B', prompt: 'B?', input: { type: 'select' }, custom: true },
      ]),
    ).toEqual([
      'questions[0] ("A"): options only go with a select input, not with a number input.',
      'questions[1] ("B"): a select input picks from options, so give a non-empty options list.',
      'questions[1] ("B"): custom cannot be true for a select input, which picks only from its options.',
    ]);
  });
});

describe('checkQuestions: input', () => {
  const typed = (input: unknown, extra: object = {}) => [{ header: 'F', prompt: 'F?', input, ...extra }];

  it('knows the input types', () => {
    expect(problemsOf(typed({ type: 'color' }))).toEqual([
      'questions[0] ("F"): input.type "color" is not one of text, textarea, number, boolean, date, email, url, select.',
    ]);
    expect(problemsOf(typed({}))).toEqual([
      'questions[0] ("F"): input.type is missing; use one of text, textarea, number, boolean, date, email, url, select.',
    ]);
    expect(problemsOf(typed('text'))).toEqual([
      'questions[0] ("F"): input must be an object with a type, such as { "type": "text" }.',
    ]);
  });

  it('checks min and max per type, and that min is not above max', () => {
    expect(problemsOf(typed({ type: 'number', min: '1', max: Infinity }))).toEqual([
      'questions[0] ("F"): input.min must be a number for a number input.',
      'questions[0] ("F"): input.max must be a number for a number input.',
    ]);
    expect(problemsOf(typed({ type: 'textarea', min: -1, max: 2.5 }))).toEqual([
      'questions[0] ("F"): input.min must be a whole number of characters (0 or more) for a textarea input.',
      'questions[0] ("F"): input.max must be a whole number of characters (0 or more) for a textarea input.',
    ]);
    expect(problemsOf(typed({ type: 'date', min: '2025-02-30', max: 20250101 }))).toEqual([
      'questions[0] ("F"): input.min must be a real date written YYYY-MM-DD for a date input.',
      'questions[0] ("F"): input.max must be a real date written YYYY-MM-DD for a date input.',
    ]);
    expect(problemsOf(typed({ type: 'boolean', min: 0 }))).toEqual([
      'questions[0] ("F"): input.min does not apply to a boolean input.',
    ]);
    expect(problemsOf(typed({ type: 'number', min: 10, max: 2 }))).toEqual([
      'questions[0] ("F"): input.min (10) is greater than input.max (2).',
    ]);
    expect(problemsOf(typed({ type: 'date', min: '2025-06-01', max: '2025-01-01' }))).toEqual([
      'questions[0] ("F"): input.min (2025-06-01) is greater than input.max (2025-01-01).',
    ]);
  });

  it('checks pattern, required and placeholder', () => {
    expect(problemsOf(typed({ type: 'text', pattern: '([a-z', required: 'yes', placeholder: 1 }))).toEqual([
      'questions[0] ("F"): input.pattern "([a-z" cannot be used: a character class "[" is not closed. Patterns use RE2 syntax (JavaScript\'s, without backreferences or lookaround).',
      'questions[0] ("F"): input.required must be true or false.',
      'questions[0] ("F"): input.placeholder must be text.',
    ]);
    expect(problemsOf(typed({ type: 'number', pattern: '\\d+' }))).toEqual([
      'questions[0] ("F"): input.pattern does not apply to a number input; it is for text, textarea, email and url inputs.',
    ]);
  });
});

describe('checkQuestions: defaults', () => {
  it('must pass the question rules', () => {
    expect(
      problemsOf([
        { header: 'Seats', prompt: 'Seats?', input: { type: 'number', max: 9 }, defaults: ['12'] },
        { header: 'Code', prompt: 'Code?', input: { type: 'text', pattern: '[A-Z]{3}' }, defaults: ['ABCD'] },
        { header: 'Day', prompt: 'Day?', input: { type: 'date', min: '2025-01-01' }, defaults: '2024-12-31' },
        { ...color, custom: false, defaults: ['Purple'] },
        { ...color, header: 'Tone', defaults: ['Red', 'blue'] },
        { ...color, header: 'Hue', defaults: { value: 'Red' } },
      ]),
    ).toEqual([
      'questions[0] ("Seats"): the default must be at most 9.',
      'questions[1] ("Code"): the default must match the pattern [A-Z]{3}; "ABCD" does not.',
      'questions[2] ("Day"): the default must be on or after 2025-01-01.',
      'questions[3] ("Color"): the default must be one of the offered options (Red, Blue); "Purple" is not.',
      'questions[4] ("Tone"): defaults hold 2 answers, but the question takes only one.',
      'questions[5] ("Hue"): defaults must be text or a list of texts.',
    ]);
  });

  it('allows several defaults on a multiple-choice question and free-text defaults when custom is on', () => {
    const result = checkQuestions(
      [
        { ...color, multiple: true, defaults: ['blue', 'Red', 'Blue'] },
        { ...color, header: 'Tone', defaults: ['Purple'] },
      ],
      { source: 'intake' },
    );
    expect(result.ok && result.questions.map((question) => question.defaults)).toEqual([['blue', 'Red'], ['Purple']]);
  });
});

describe('checkQuestions: ask source', () => {
  it('holds at most 5 questions', () => {
    const six = ['A', 'B', 'C', 'D', 'E', 'F'].map((header) => ({ ...color, header }));
    expect(problemsOf(six, 'ask')).toEqual(['questions holds 6 questions; one ask may hold at most 5.']);
    expect(checkQuestions(six, { source: 'intake' }).ok).toBe(true);
  });

  it('wants defaults on every question with options, but not on a typed input', () => {
    const set = [
      { ...color, defaults: undefined },
      { ...color, header: 'Plan', input: { type: 'select' }, defaults: [] },
      { header: 'Email', prompt: 'Who should we email?', input: { type: 'email' } },
    ];
    expect(problemsOf(set, 'ask')).toEqual([
      'questions[0] ("Color"): defaults are missing; an ask must pre-pick an answer for every question with options.',
      'questions[1] ("Plan"): defaults are missing; an ask must pre-pick an answer for every question with options.',
    ]);
    expect(checkQuestions(set, { source: 'ctx' }).ok).toBe(true);
  });
});

describe("checkQuestions: seed 003's own shape", () => {
  it('takes a question with an id and no header, making the header from the id', () => {
    const result = checkQuestions(
      [
        {
          id: 'scope',
          prompt: 'How much should I cover?',
          options: [{ value: 'file', label: 'This file', hotkey: 'a' }],
          defaults: ['file'],
        },
        { id: 'due_date', prompt: 'When is it due?', input: { type: 'date' } },
        { id: 'a-very-long-identifier-for-a-question', prompt: 'Long?', input: { type: 'text' } },
      ],
      { source: 'intake' },
    );
    expect(result.ok && result.questions.map((question) => [question.id, question.header])).toEqual([
      ['scope', 'Scope'],
      ['due_date', 'Due date'],
      ['a-very-long-identifier-for-a-question', 'A very long identifier for a…'],
    ]);
  });

  it('reads allowFreeText as custom; left out, free text stays allowed', () => {
    const options = [{ value: 'unit', label: 'Unit' }];
    const result = checkQuestions(
      [
        { id: 'strict', prompt: 'Strict?', options, allowFreeText: false },
        { id: 'open', prompt: 'Open?', options, allowFreeText: true },
        { id: 'unsaid', prompt: 'Unsaid?', options },
      ],
      { source: 'intake' },
    );
    expect(result.ok && result.questions.map((question) => question.custom)).toEqual([false, true, true]);
    // The stored question has one name for it.
    expect(result.ok && Object.keys(result.questions[0])).not.toContain('allowFreeText');
  });

  it('says so when custom and allowFreeText disagree, or when free text is asked for on a select', () => {
    const options = [{ label: 'A' }];
    expect(problemsOf([{ id: 'q', prompt: 'Q?', options, custom: true, allowFreeText: false }])).toEqual([
      'questions[0] ("Q"): custom and allowFreeText say different things; give one of them.',
    ]);
    expect(
      problemsOf([{ id: 'plan', prompt: 'Plan?', input: { type: 'select' }, options, allowFreeText: true }]),
    ).toEqual([
      'questions[0] ("Plan"): allowFreeText cannot be true for a select input, which picks only from its options.',
    ]);
  });

  it('refuses two ids that make the same header, asking for a header of its own', () => {
    expect(
      problemsOf([
        { id: 'due_date', prompt: 'Due?', input: { type: 'date' } },
        { id: 'due-date', prompt: 'Due again?', input: { type: 'date' } },
      ]),
    ).toEqual([
      'questions[1] ("Due date"): header "Due date", made from the id, is already used by questions[0]; give this question a header of its own.',
    ]);
  });
});
