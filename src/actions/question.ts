/**
 * Questions: the shape a question set must have, how answers are coerced and settled, and what the
 * model reads back. Pure rules, no I/O; intake, the ask tool and a tool's ctx.ask all go through them.
 */
export { checkQuestions, MAX_ASK_QUESTIONS } from './question-check.js';
export type { CheckQuestionsResult, QuestionSource } from './question-check.js';
export { coerceAnswer } from './question-coerce.js';
export type { CoerceAnswerResult } from './question-coerce.js';
export { settleAnswers, skipAnswers } from './question-settle.js';
export type { AnswerProblem, SettleAnswersResult, SettledAnswers } from './question-settle.js';
export { summarizeAnswers } from './question-summary.js';
export { ASK_TOOL_NAME, askToolDescription, questionsJsonSchema } from './question-schema.js';
