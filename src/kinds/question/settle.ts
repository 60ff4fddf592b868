import type { Question } from './wire.js';
import { isPlainObject } from '../plain-object.js';
import { coerceAnswer, quote } from './coerce.js';
import { re2PatternTest } from './pattern-re2.js';
import { questionNamed, questionsWithText } from './names.js';

/** One thing wrong with a submitted answer; `field` is `answers.<id>` (or `answers` for the whole). */
export interface AnswerProblem {
  field: string;
  message: string;
}

export interface SettledAnswers {
  /** Canonical answers by question id; a question with neither answer nor default has no entry. */
  answers: Record<string, string[]>;
  /** Ids of the questions that took their defaults because the answer left them out, in question order. */
  defaulted: string[];
}

export type SettleAnswersResult = ({ ok: true } & SettledAnswers) | { ok: false; problems: AnswerProblem[] };

/**
 * Checks the `answers` a client sent against the questions asked and settles them: canonical values,
 * and defaults for the questions left out. Returns every problem, each with a sentence a person can read.
 */
export function settleAnswers(questions: Question[], raw: unknown): SettleAnswersResult {
  if (raw !== undefined && raw !== null && !isPlainObject(raw)) {
    return {
      ok: false,
      problems: [{ field: 'answers', message: 'answers must be an object with one entry per question id.' }],
    };
  }
  const entries = Object.entries(raw ?? {});
  // Each question takes one entry, so more entries than questions is wrong as a whole; saying so
  // once keeps a flood of made-up keys from becoming a flood of sentences.
  if (entries.length > questions.length) {
    return {
      ok: false,
      problems: [
        {
          field: 'answers',
          message: `answers has ${entries.length} entries, but ${questions.length === 1 ? 'one question was' : `${questions.length} questions were`} asked; answer each once, by its id, header or text.`,
        },
      ],
    };
  }
  const problems: AnswerProblem[] = [];
  // Keys are client-sent; a Map keeps a key such as "__proto__" an ordinary key.
  const given = new Map<string, { key: string; value: unknown }>();
  for (const [key, value] of entries) {
    const question = questionNamed(questions, key);
    if (!question) {
      const ids = questions.map((q) => quote(q.id)).join(', ');
      const shared = questionsWithText(questions, key);
      problems.push({
        field: `answers.${key}`,
        message:
          shared > 1
            ? `${shared} questions have the text ${quote(key)}, so it names none of them; answer by id: ${ids}.`
            : `There is no question ${quote(key)} here. The questions are ${ids}.`,
      });
      continue;
    }
    const earlier = given.get(question.id);
    if (earlier) {
      problems.push({
        field: `answers.${question.id}`,
        message: `${quote(question.header)} is answered twice, as ${quote(earlier.key)} and as ${quote(key)}; send one.`,
      });
      continue;
    }
    given.set(question.id, { key, value });
  }

  const answers = new Map<string, string[]>();
  const defaulted: string[] = [];
  for (const question of questions) {
    const field = `answers.${question.id}`;
    const result = coerceAnswer(question, given.get(question.id)?.value, re2PatternTest);
    if (!result.ok) {
      problems.push({ field, message: result.message });
    } else if (result.values.length > 0) {
      answers.set(question.id, result.values);
    } else if (question.defaults && question.defaults.length > 0) {
      answers.set(question.id, [...question.defaults]);
      defaulted.push(question.id);
    } else if (question.input?.required) {
      problems.push({ field, message: `${quote(question.header)} needs an answer.` });
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, answers: Object.fromEntries(answers), defaulted };
}

/** The outcome of skipping: every question that has defaults takes them. */
export function skipAnswers(questions: Question[]): SettledAnswers {
  const answers = new Map<string, string[]>();
  const defaulted: string[] = [];
  for (const question of questions) {
    if (question.defaults && question.defaults.length > 0) {
      answers.set(question.id, [...question.defaults]);
      defaulted.push(question.id);
    }
  }
  return { answers: Object.fromEntries(answers), defaulted };
}
