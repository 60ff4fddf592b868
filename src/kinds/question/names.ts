import { isPlainObject } from '../plain-object.js';
import type { Question } from './wire.js';

/**
 * The question an answer's key names: its id, else its header, else its text (the prompt, as seed 002
 * keys answers) when no other question has that text. Undefined when the key names none, or names
 * several by their text (then `questionsWithText` says how many).
 */
export function questionNamed(questions: Question[], key: string): Question | undefined {
  const byName =
    questions.find((question) => question.id === key) ?? questions.find((question) => question.header === key);
  if (byName) return byName;
  const byText = questions.filter((question) => question.prompt === key);
  return byText.length === 1 ? byText[0] : undefined;
}

/** How many of the questions have this text: more than one, and the text names none of them. */
export function questionsWithText(questions: Question[], key: string): number {
  return questions.filter((question) => question.prompt === key).length;
}

/**
 * One question's value out of the parameters a form posts (seed 004: only the fields the question asks for
 * count): the entry under its id, else its header, else its text; other keys are dropped, and with none of
 * those the question is left out. A value that is not an object is the value itself.
 */
export function ownField(question: Question, raw: unknown): unknown {
  if (!isPlainObject(raw)) return raw;
  for (const key of [question.id, question.header, question.prompt]) if (Object.hasOwn(raw, key)) return raw[key];
  return undefined;
}
