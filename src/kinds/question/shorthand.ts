import { HeedError } from '../../errors.js';
import { isPlainObject } from '../plain-object.js';
import { quote } from './coerce.js';
import type { Question } from './wire.js';
import { questionNamed, questionsWithText } from './names.js';

/** Keys that make an object a whole question resolution rather than answers by name. */
const RESOLUTION_KEYS = ['type', 'answers', 'skip', 'dismiss'];

/**
 * What the library's `pending.answer(given)` sends for a question action (seed 004's `answer`): an
 * object with `answers`, `skip` or `dismiss` is the resolution as it stands; any other object answers
 * the questions by id (or header, or text), keeping only the keys that name a question, as seed 004 reads
 * the parameters a form posts (a token, the button's name); a bare value answers the only question;
 * nothing confirms the defaults. Questions left out take their defaults on the server, which checks every
 * value. The HTTP API stays strict: there a key that names no question is refused.
 */
export function questionResolutionFrom(questions: Question[], given: unknown): Record<string, unknown> {
  if (given === undefined) return { type: 'question' };
  if (isPlainObject(given)) {
    if (RESOLUTION_KEYS.some((key) => Object.hasOwn(given, key))) return { ...given, type: 'question' };
    return { type: 'question', answers: askedFields(questions, given) };
  }
  if (questions.length === 1) return { type: 'question', answers: { [questions[0].id]: given } };
  const ids = questions.map((question) => question.id);
  throw new HeedError(
    'invalid_resolution',
    `This request asks ${questions.length} questions (${ids.map(quote).join(', ')}), so one value cannot answer it; answer them by id, like answer({ ${JSON.stringify(ids[0])}: … }).`,
    { details: { field: 'answers', questions: ids } },
  );
}

/** The entries of posted form parameters that name a question (a text several questions share stays, for the server to say so). */
function askedFields(questions: Question[], given: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(given).filter(
      ([key]) => questionNamed(questions, key) !== undefined || questionsWithText(questions, key) > 1,
    ),
  );
}
