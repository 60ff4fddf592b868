import type { Question } from '../../types.js';
import {
  allowsCustom,
  buildAnswers,
  draftProblem,
  initialDrafts,
  optionForHotkey,
  pickOption,
  problemsFromDetails,
  questionControl,
  setCustom,
  type QuestionDraft,
  type QuestionDrafts,
} from '../../client/question-drafts.js';

/**
 * The keyboard form of a question action, one question at a time, kept free of Ink so it can be tested
 * as plain functions. Option questions are answered with keys (numbers, hotkeys, Space, arrows); typed
 * questions, and the "Other" row of an option question, have a text field that takes the keys while
 * it has focus (`editing`); Esc leaves the field so `s`/`x` work again.
 */
export interface QuestionFormState {
  /** The question on screen. */
  index: number;
  drafts: QuestionDrafts;
  /** The highlighted row: an option, or the "Other" row after the options. */
  cursor: number;
  /** The text field has the keys. */
  editing: boolean;
  /** The field still shows its default (or the last answer): the first character typed replaces it; Backspace edits it. */
  pristine: boolean;
  /** Problems by question id: the local check's, then the server's. */
  problems: Record<string, string>;
}

/** The few facts about a key press the form needs (Ink's `Key` has more). */
export interface KeyPress {
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  return?: boolean;
  escape?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
  meta?: boolean;
  tab?: boolean;
}

export type QuestionCommand = 'submit' | 'skip' | 'dismiss' | 'back';

/** The rows a question shows with keys: its options, or Yes/No for a boolean. */
export function choiceRows(question: Question): Array<{ value: string; label: string; hotkey?: string }> {
  if (question.options?.length)
    return question.options.map((option) => ({ value: option.value, label: option.label, hotkey: option.hotkey }));
  if (questionControl(question) === 'boolean') {
    return [
      { value: 'true', label: 'Yes', hotkey: 'y' },
      { value: 'false', label: 'No', hotkey: 'n' },
    ];
  }
  return [];
}

/** True when one of the question's options has `letter` as its own hotkey. */
export function claimsKey(question: Question, letter: string): boolean {
  return (question.options ?? []).some((option) => option.hotkey?.toLowerCase() === letter);
}

/** The key of a command letter (s skip, x dismiss) on this question: the letter, or its capital when an option took it. */
export function commandKey(question: Question, letter: 's' | 'x'): string {
  return claimsKey(question, letter) ? letter.toUpperCase() : letter;
}

/** True when the question is answered by typing only (text, number, date, email, url, textarea). */
export function isTyped(question: Question): boolean {
  return choiceRows(question).length === 0;
}

export function startForm(questions: Question[]): QuestionFormState {
  return enter(
    questions,
    {
      index: 0,
      drafts: initialDrafts(questions),
      cursor: 0,
      editing: false,
      pristine: true,
      problems: Object.create(null),
    },
    0,
  );
}

/** Puts question `index` on screen, its cursor on the picked option and its field focused when it is typed. */
export function enter(questions: Question[], state: QuestionFormState, index: number): QuestionFormState {
  const question = questions[index];
  const draft = state.drafts[question.id];
  const rows = choiceRows(question);
  const picked = question.options?.length ? draft.selected[0] : draft.text;
  const cursor = Math.max(
    0,
    rows.findIndex((row) => row.value === picked),
  );
  return { ...state, index, cursor, editing: isTyped(question), pristine: true };
}

/** The server's per-field problems (`details` of a 400 `invalid_resolution`), shown on the first question that has one. */
export function withServerProblems(
  questions: Question[],
  state: QuestionFormState,
  details: Record<string, unknown> | undefined,
): QuestionFormState {
  const problems = problemsFromDetails(questions, details);
  const first = questions.findIndex((question) => problems[question.id]);
  if (first < 0) return state;
  return { ...enter(questions, state, first), problems };
}

function updateDraft(state: QuestionFormState, question: Question, next: QuestionDraft): QuestionFormState {
  const problems = { ...state.problems };
  delete problems[question.id];
  return { ...state, drafts: { ...state.drafts, [question.id]: next }, problems };
}

/** Enter: checks this question (with the same rules the server uses) and moves on, or asks to submit after the last. */
function confirm(
  questions: Question[],
  state: QuestionFormState,
): { state: QuestionFormState; command?: QuestionCommand } {
  const question = questions[state.index];
  const problem = draftProblem(question, state.drafts[question.id]);
  if (problem) return { state: { ...state, problems: { ...state.problems, [question.id]: problem } } };
  if (state.index === questions.length - 1) {
    // A problem left on another question (from the server) sends the person back there first.
    const other = questions.findIndex((candidate) => state.problems[candidate.id]);
    if (other >= 0) return { state: enter(questions, state, other) };
    return { state, command: 'submit' };
  }
  return { state: enter(questions, state, state.index + 1) };
}

const printable = (input: string, key: KeyPress) =>
  !key.ctrl &&
  !key.meta &&
  !key.escape &&
  !key.return &&
  !key.tab &&
  input !== '' &&
  !/[\u0000-\u001f\u007f]/.test(input);

function typeText(
  question: Question,
  state: QuestionFormState,
  input: string,
  key: KeyPress,
): QuestionFormState | undefined {
  const draft = state.drafts[question.id];
  const onOther = !isTyped(question);
  const current = onOther ? draft.custom : draft.text;
  let next: string;
  if (key.backspace || key.delete) next = Array.from(current).slice(0, -1).join('');
  else if (printable(input, key)) next = (state.pristine && !onOther ? '' : current) + input;
  else return undefined;
  const updated = onOther ? setCustom(question, draft, next) : { ...draft, text: next };
  return { ...updateDraft(state, question, updated), pristine: false };
}

/** Applies one key press; returns the next state and, for Enter on the last question, `s`, `x` and Esc, a command. */
export function questionKey(
  questions: Question[],
  state: QuestionFormState,
  input: string,
  key: KeyPress,
): { state: QuestionFormState; command?: QuestionCommand } {
  const question = questions[state.index];
  const rows = choiceRows(question);
  const otherRow = allowsCustom(question) ? rows.length : -1;
  if (key.return) return confirm(questions, state);

  if (state.editing) {
    if (key.escape) return { state: { ...state, editing: false } };
    if (otherRow >= 0 && (key.upArrow || key.downArrow)) {
      const cursor = key.upArrow ? otherRow - 1 : otherRow;
      return { state: { ...state, cursor, editing: cursor === otherRow } };
    }
    return { state: typeText(question, state, input, key) ?? state };
  }

  if (key.escape) return { state, command: 'back' };
  if (key.leftArrow && state.index > 0) return { state: enter(questions, state, state.index - 1) };
  const last = otherRow >= 0 ? otherRow : rows.length - 1;
  // An option's own hotkey wins over the view's letters (j, k, s, x); the arrows still move, and a
  // skip or dismiss whose letter an option took is its capital (S, X).
  const up = key.upArrow || (input === 'k' && !claimsKey(question, 'k'));
  const down = key.downArrow || (input === 'j' && !claimsKey(question, 'j'));
  if (up || down) {
    if (rows.length === 0) return { state };
    const cursor = Math.min(last, Math.max(0, state.cursor + (up ? -1 : 1)));
    return { state: { ...state, cursor, editing: cursor === otherRow, pristine: true } };
  }
  if (input === commandKey(question, 's')) return { state, command: 'skip' };
  if (input === commandKey(question, 'x')) return { state, command: 'dismiss' };

  const draft = state.drafts[question.id];
  const pick = (value: string) =>
    question.options?.length
      ? pickOption(question, draft, value)
      : { ...draft, text: draft.text === value ? '' : value };
  if (input === ' ' && rows[state.cursor])
    return { state: updateDraft(state, question, pick(rows[state.cursor].value)) };
  const hotkeyed = question.options?.length
    ? optionForHotkey(question, input)
    : rows.find((row, index) => row.hotkey === input.toLowerCase() || String(index + 1) === input);
  if (hotkeyed) {
    const cursor = rows.findIndex((row) => row.value === hotkeyed.value);
    return { state: { ...updateDraft(state, question, pick(hotkeyed.value)), cursor } };
  }
  // Any other character in a typed question goes back into its field.
  if (isTyped(question)) {
    const typed = typeText(question, { ...state, editing: true }, input, key);
    if (typed) return { state: { ...typed, editing: true } };
  }
  return { state };
}

/** The `answers` of the resolution, leaving out what was not entered (the server then uses the defaults). */
export function formAnswers(questions: Question[], state: QuestionFormState): Record<string, string | string[]> {
  return buildAnswers(questions, state.drafts);
}

/** A hint of what a typed question takes, from its input rules. */
export function inputHint(question: Question): string {
  const input = question.input;
  const type = input?.type ?? 'text';
  const range = (unit: string) =>
    input?.min !== undefined && input?.max !== undefined
      ? ` ${unit} ${input.min} to ${input.max}`
      : input?.min !== undefined
        ? ` ${unit === 'from' ? 'at least' : unit} ${input.min}`
        : input?.max !== undefined
          ? ` at most ${input.max}`
          : '';
  switch (type) {
    case 'number':
      return `a number${range('from')}`;
    case 'date':
      return `a date, YYYY-MM-DD${range('from')}`;
    case 'email':
      return 'an email address';
    case 'url':
      return 'a web address (https://…)';
    case 'textarea':
      return 'text (one line here)';
    default:
      return 'text';
  }
}
