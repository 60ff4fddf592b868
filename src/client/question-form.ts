import { coerceAnswer as coerceWith, type CoerceAnswerResult } from '../kinds/question/coerce.js';
import { ownField } from '../kinds/question/names.js';
import type { Question } from '../types.js';
import {
  buildAnswers,
  draftAnswer,
  draftFromValue,
  draftProblem,
  initialDrafts,
  problemsFromDetails,
  type QuestionDraft,
  type QuestionDrafts,
} from './question-drafts.js';

export type { CoerceAnswerResult };

/**
 * Coerces and checks one question's raw answer with the server's own rules, the way a form sends it
 * (trimmed; blank means left out): `{ ok: true, values }` in canonical form, or `{ ok: false, message }`
 * with the sentence the server would answer. A `pattern` is checked here only when the server marked it
 * safe for a browser (`input.patternBacktrackSafe`); otherwise the server's check is the one that counts.
 * `raw` may also be the parameters a form posts: only this question's entry counts (by id, header or text),
 * the other keys are dropped.
 */
export function coerceAnswer(question: Question, raw: unknown): CoerceAnswerResult {
  return coerceWith(question, ownField(question, raw));
}

/** One question of a form, as a front end shows it. */
export interface QuestionField {
  question: Question;
  id: string;
  /** The answer as entered, as it would be sent: an option value or typed text, a list for a multiple choice; undefined when nothing is entered (the server then takes the default). */
  value: string | string[] | undefined;
  /** What is entered in the form's terms: picked options, free text besides them, typed text. */
  draft: QuestionDraft;
  /** The pre-picked answers, canonical; the form starts with them entered. */
  defaults: string[];
  /** The sentence the server would answer for `value` (or gave, until the value changes); null when it would pass. */
  error: string | null;
  /** True once the person changed it (`setValue` or `setDraft`). */
  touched: boolean;
  /** Sets the answer from a raw value: an option's value or label, a typed value (text, number, boolean), a list for a multiple choice. */
  setValue(raw: unknown): void;
  setDraft(draft: QuestionDraft): void;
}

/** A form's state: a new object on every change. */
export interface QuestionFormState {
  /** In the order asked. */
  fields: QuestionField[];
  /** True when every field would be accepted as it stands. */
  isValid: boolean;
  /** The `answers` of the resolution, leaving out what was not entered. */
  answers: Record<string, string | string[]>;
}

/**
 * The state of a question action's form, free of any UI library: subscribe, read the state, set values.
 * The console and `heed/react`'s `QuestionCard` are built on it; a front end of your own can be too.
 */
export interface QuestionForm {
  readonly questions: Question[];
  getState(): QuestionFormState;
  subscribe(listener: () => void): () => void;
  /** A field by question id (or header); undefined when there is no such question. */
  field(idOrHeader: string): QuestionField | undefined;
  setValue(id: string, raw: unknown): void;
  setDraft(id: string, draft: QuestionDraft): void;
  /** What to send: `{ type: 'question', answers }` (questions left out take their defaults on the server). */
  resolution(): { type: 'question'; answers: Record<string, string | string[]> };
  /** Shows the server's sentences of a 400 `invalid_resolution` (`error.details`) beside their fields; returns the ids of those fields. */
  showServerErrors(details: Record<string, unknown> | undefined): string[];
}

/** Starts a form for the questions of a `question` action, its defaults entered. */
export function createQuestionForm(questions: Question[]): QuestionForm {
  let drafts: QuestionDrafts = initialDrafts(questions);
  const touched = new Set<string>();
  // The server's sentence for a field, kept until that field changes.
  const fromServer = new Map<string, string>();
  const listeners = new Set<() => void>();
  let state = build();

  function find(key: string): Question | undefined {
    return questions.find((question) => question.id === key) ?? questions.find((question) => question.header === key);
  }

  function build(): QuestionFormState {
    const fields = questions.map((question): QuestionField => {
      const draft = drafts[question.id];
      return {
        question,
        id: question.id,
        value: draftAnswer(question, draft),
        draft,
        defaults: question.defaults ?? [],
        error: fromServer.get(question.id) ?? draftProblem(question, draft),
        touched: touched.has(question.id),
        setValue: (raw) => form.setValue(question.id, raw),
        setDraft: (next) => form.setDraft(question.id, next),
      };
    });
    return { fields, isValid: fields.every((field) => field.error === null), answers: buildAnswers(questions, drafts) };
  }

  function changed() {
    state = build();
    for (const listener of listeners) listener();
  }

  const form: QuestionForm = {
    questions,
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    field: (key) => {
      const question = find(key);
      return question ? state.fields.find((field) => field.id === question.id) : undefined;
    },
    setValue(key, raw) {
      const question = find(key);
      if (question) form.setDraft(question.id, draftFromValue(question, raw));
    },
    setDraft(key, draft) {
      const question = find(key);
      if (!question) return;
      drafts = { ...drafts, [question.id]: draft };
      touched.add(question.id);
      fromServer.delete(question.id);
      changed();
    },
    resolution: () => ({ type: 'question', answers: state.answers }),
    showServerErrors(details) {
      const problems = problemsFromDetails(questions, details);
      const ids = Object.keys(problems);
      if (ids.length === 0) return [];
      for (const id of ids) fromServer.set(id, problems[id]);
      changed();
      return questions.filter((question) => ids.includes(question.id)).map((question) => question.id);
    },
  };
  return form;
}
