/**
 * Questions: the shape a question set must have, how answers are coerced and settled, and what the
 * model reads back. Pure rules, no I/O; intake, the ask tool and a tool's ctx.ask all go through them.
 */
export { checkQuestions, MAX_ASK_QUESTIONS } from './question/check.js';
export type { CheckQuestionsResult, QuestionSource } from './question/check.js';
export type { CoerceAnswerResult } from './question/coerce.js';
export { MAX_ANSWER_LENGTH } from './question/coerce.js';
export { MAX_PATTERN_ANSWER_LENGTH, MAX_PATTERN_SIZE } from './question/pattern.js';
export { settleAnswers, skipAnswers } from './question/settle.js';
export type { AnswerProblem, SettleAnswersResult, SettledAnswers } from './question/settle.js';
export { summarizeAnswers } from './question/summary.js';
export { ASK_TOOL_NAME, askToolDescription, questionsJsonSchema } from './question/schema.js';

import type { Question } from '../types.js';
import { coerceAnswer as coerceWith, type CoerceAnswerResult } from './question/coerce.js';
import { re2PatternTest } from './question/pattern-re2.js';

/** `coerceAnswer` as the server runs it: patterns matched by RE2, in time linear in the answer. */
export function coerceAnswer(question: Question, raw: unknown): CoerceAnswerResult {
  return coerceWith(question, raw, re2PatternTest);
}
