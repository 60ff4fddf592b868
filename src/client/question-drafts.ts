import { coerceAnswer, quote } from '../kinds/question/coerce.js';
import type { Question, QuestionOption } from '../types.js';

/**
 * What a person has entered for one question so far. Option questions use `selected` (option values)
 * and `custom` (free text besides the options); typed questions use `text`.
 */
export interface QuestionDraft {
  selected: string[];
  custom: string;
  text: string;
}

export type QuestionDrafts = Record<string, QuestionDraft>;

/** How a question is answered on screen. */
export type QuestionControl =
  'single' | 'multiple' | 'select' | 'text' | 'textarea' | 'number' | 'boolean' | 'date' | 'email' | 'url';

export function questionControl(question: Question): QuestionControl {
  if (question.options && question.options.length > 0) {
    if (question.input?.type === 'select') return 'select';
    return question.multiple ? 'multiple' : 'single';
  }
  return question.input?.type === 'select' ? 'text' : (question.input?.type ?? 'text');
}

/** True when the question offers a free-text answer besides its options. */
export function allowsCustom(question: Question): boolean {
  return Boolean(question.options?.length) && question.custom !== false && question.input?.type !== 'select';
}

/** The option a hotkey picks: the option's own `hotkey`, else 1–9 by position. */
export function optionHotkey(question: Question, index: number): string | undefined {
  const option = question.options?.[index];
  if (!option) return undefined;
  if (option.hotkey) return option.hotkey.toLowerCase();
  const taken = new Set(
    (question.options ?? []).flatMap((other) => (other.hotkey ? [other.hotkey.toLowerCase()] : [])),
  );
  const digit = index < 9 ? String(index + 1) : undefined;
  return digit && !taken.has(digit) ? digit : undefined;
}

export function optionForHotkey(question: Question, key: string): QuestionOption | undefined {
  const wanted = key.toLowerCase();
  return (question.options ?? []).find((_, position) => optionHotkey(question, position) === wanted);
}

/** Drafts with each question's defaults pre-picked, so confirming straight away sends them. */
export function initialDrafts(questions: Question[]): QuestionDrafts {
  const drafts: QuestionDrafts = Object.create(null);
  for (const question of questions) {
    const defaults = question.defaults ?? [];
    const draft: QuestionDraft = { selected: [], custom: '', text: '' };
    if (question.options?.length) {
      const values = new Set(question.options.map((option) => option.value));
      draft.selected = defaults.filter((value) => values.has(value));
      const extra = defaults.filter((value) => !values.has(value));
      if (extra.length > 0) draft.custom = extra.join(', ');
    } else {
      draft.text = defaults[0] ?? '';
    }
    drafts[question.id] = draft;
  }
  return drafts;
}

/**
 * The draft that shows a raw answer (what `setValue` takes: an option's value or label, a typed value,
 * a list for a multiple choice): picks for the offered options, the rest as free text or typed text.
 */
export function draftFromValue(question: Question, raw: unknown): QuestionDraft {
  const items = (Array.isArray(raw) ? raw : [raw])
    .filter((item) => item !== undefined && item !== null)
    .map((item) => (typeof item === 'string' ? item : String(item)));
  if (question.options?.length) {
    const selected: string[] = [];
    const other: string[] = [];
    for (const item of items) {
      const text = item.trim();
      if (text === '') continue;
      const option =
        question.options.find((candidate) => candidate.value === text) ??
        question.options.find((candidate) => candidate.label === text);
      if (option && !selected.includes(option.value)) selected.push(option.value);
      else if (!option) other.push(item);
    }
    return { selected, custom: other.join(', '), text: '' };
  }
  return { selected: [], custom: '', text: items.join(', ') };
}

/** What goes into `answers` for one question; undefined when nothing was entered (the server then uses the default). */
export function draftAnswer(question: Question, draft: QuestionDraft): string | string[] | undefined {
  if (question.options?.length) {
    // Free text where the question takes none can only come from `setValue`: sent, so the check refuses it.
    const custom = draft.custom.trim();
    if (question.multiple) {
      const values = custom ? [...draft.selected, custom] : [...draft.selected];
      return values.length > 0 ? values : undefined;
    }
    // A draft holds one pick or the free text, unless `setValue` was given more (then the check says so).
    const values = custom ? [...draft.selected, custom] : draft.selected;
    return values.length > 1 ? [...values] : values[0];
  }
  const text = draft.text.trim();
  return text === '' ? undefined : text;
}

/**
 * The sentence the server would answer with for this question's draft, or null when it would pass.
 * Uses the same rules as the server (`coerceAnswer`), so the message next to the field is the server's,
 * except that a pattern runs here only when the server marked it safe for the browser's backtracking
 * RegExp (`input.patternBacktrackSafe`); other patterns are checked by the server alone.
 */
export function draftProblem(question: Question, draft: QuestionDraft): string | null {
  const answer = draftAnswer(question, draft);
  const result = coerceAnswer(question, answer);
  if (!result.ok) return result.message;
  if (result.values.length === 0 && !(question.defaults && question.defaults.length > 0) && question.input?.required) {
    return `${quote(question.header)} needs an answer.`;
  }
  return null;
}

/** Every problem by question id (empty when the whole set would be accepted). */
export function draftProblems(questions: Question[], drafts: QuestionDrafts): Record<string, string> {
  const problems: Record<string, string> = Object.create(null);
  for (const question of questions) {
    const problem = draftProblem(question, drafts[question.id] ?? { selected: [], custom: '', text: '' });
    if (problem) problems[question.id] = problem;
  }
  return problems;
}

/** The `answers` of a question resolution, leaving out what was not entered. */
export function buildAnswers(questions: Question[], drafts: QuestionDrafts): Record<string, string | string[]> {
  const answers: Record<string, string | string[]> = {};
  for (const question of questions) {
    const draft = drafts[question.id];
    const answer = draft ? draftAnswer(question, draft) : undefined;
    if (answer !== undefined) answers[question.id] = answer;
  }
  return answers;
}

/** Picks (or, for a multiple-choice question, toggles) an option; picking on a single choice clears the free text. */
export function pickOption(question: Question, draft: QuestionDraft, value: string): QuestionDraft {
  if (question.multiple) {
    const selected = draft.selected.includes(value)
      ? draft.selected.filter((item) => item !== value)
      : [...draft.selected, value];
    // Keep the offered order, so what is sent reads like the list.
    const order = (question.options ?? []).map((option) => option.value);
    selected.sort((a, b) => order.indexOf(a) - order.indexOf(b));
    return { ...draft, selected };
  }
  return { ...draft, selected: [value], custom: '' };
}

/** Sets the free text; on a single-choice question typing replaces the picked option. */
export function setCustom(question: Question, draft: QuestionDraft, custom: string): QuestionDraft {
  if (!question.multiple && custom.trim() !== '') return { ...draft, custom, selected: [] };
  return { ...draft, custom };
}

/** Canonical stored values as a person reads them: option labels, Yes/No for booleans. */
export function answerLabels(question: Question, values: string[]): string[] {
  return values.map((value) => {
    const option = question.options?.find((candidate) => candidate.value === value);
    if (option) return option.label;
    if (question.input?.type === 'boolean') return value === 'true' ? 'Yes' : value === 'false' ? 'No' : value;
    return value;
  });
}

/** Server problems (`details.fields` of a 400) by question id. */
export function problemsFromDetails(
  questions: Question[],
  details: Record<string, unknown> | undefined,
): Record<string, string> {
  const problems: Record<string, string> = Object.create(null);
  const given = details?.fields;
  const fields = Array.isArray(given) ? (given as Array<{ field?: unknown; message?: unknown }>) : [];
  for (const entry of fields) {
    if (typeof entry.field !== 'string' || typeof entry.message !== 'string') continue;
    const key = entry.field.replace(/^answers\./, '');
    const question = questions.find((candidate) => candidate.id === key || candidate.header === key);
    if (question && !problems[question.id]) problems[question.id] = entry.message;
  }
  return problems;
}
