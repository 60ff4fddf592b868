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

import { HeedError } from '../errors.js';
import type { Question } from '../types.js';
import type { ActionKind } from './kind.js';
import { isPlainObject } from './plain-object.js';
import { checkQuestions } from './question/check.js';
import { coerceAnswer as coerceWith, type CoerceAnswerResult } from './question/coerce.js';
import { re2PatternTest } from './question/pattern-re2.js';
import { settleAnswers, skipAnswers } from './question/settle.js';
import { summarizeAnswers } from './question/summary.js';
import { DISMISSED, refusal } from './refusal.js';

/** `coerceAnswer` as the server runs it: patterns matched by RE2, in time linear in the answer. */
export function coerceAnswer(question: Question, raw: unknown): CoerceAnswerResult {
  return coerceWith(question, raw, re2PatternTest);
}

/**
 * Questions: answers (coerced and checked per question), a skip (pre-picked answers stand in) or a
 * dismissal (the agent stops); the model reads a summary of the answers.
 */
export const question: ActionKind<'question'> = {
  kind: 'question',
  viewsToolArgs: false,
  // The ask tool checks its questions too, but tells the model the problems instead of throwing (tool-calls.ts).
  checkRequest(request) {
    const checked = checkQuestions(request.questions, { source: 'ctx' });
    if (!checked.ok) throw new HeedError('invalid_request', `The tool asked malformed questions: ${checked.problems.join(' ')}`);
    return { ...request, questions: checked.questions };
  },

  checkAnswer(answer, action) {
    const chosen = [answer.skip, answer.dismiss, answer.answers !== undefined].filter(Boolean).length;
    if (chosen > 1) {
      throw new HeedError('invalid_resolution', 'Send answers, or skip, or dismiss: only one of them.');
    }
    if (answer.dismiss) return { stored: { type: 'question', dismiss: true }, eventStatus: 'dismissed', defaulted: null };
    const questions = action.request.questions;
    if (answer.skip) {
      // Skipping never fails on a required question: the agent goes on with the pre-picked answers and its own assumptions.
      const { answers, defaulted } = skipAnswers(questions);
      return { stored: { type: 'question', skip: true, answers }, eventStatus: 'skipped', defaulted };
    }
    const outcome = settleAnswers(questions, answer.answers);
    if (!outcome.ok) {
      const message = outcome.problems.map((problem) => problem.message).join(' ');
      throw new HeedError('invalid_resolution', message, { details: { fields: outcome.problems } });
    }
    return { stored: { type: 'question', answers: outcome.answers }, eventStatus: 'answered', defaulted: outcome.defaulted };
  },

  modelReads(action) {
    const resolution = action.resolution;
    if (!resolution || resolution.type !== 'question') return refusal(action);
    if ('dismiss' in resolution) return { output: { type: 'error-text', value: DISMISSED }, stop: true };
    return { output: { type: 'text', value: summarizeAnswers(action.request.questions, { answers: resolution.answers, skipped: 'skip' in resolution }) } };
  },

  lapse(action) {
    const { answers } = skipAnswers(action.request.questions);
    return { resolution: { type: 'question', skip: true, answers }, status: 'skipped', defaulted: Object.keys(answers) };
  },

  answerFromUiPart(part) {
    if (part.state === 'output-error') return { type: 'question', dismiss: true };
    if (part.state !== 'output-available') return undefined;
    const output = part.output;
    // `{ answers }`, `{ skip: true }` or `{ dismiss: true }`; a bare record of answers is read as `{ answers }`.
    if (isPlainObject(output) && ('answers' in output || 'skip' in output || 'dismiss' in output)) {
      const { answers, skip, dismiss } = output;
      return { type: 'question', answers, skip, dismiss };
    }
    return { type: 'question', answers: output };
  },
};
