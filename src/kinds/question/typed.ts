import type { Question } from './wire.js';

/** How an answer is typed for code that reads it: a tool's `ctx.ask`, an MCP server's form. */
export type AnswerShape = 'text' | 'number' | 'boolean' | 'single' | 'multiple';

/**
 * One answer as code reads it: a number, a boolean, a list of option values for a multiple choice, else
 * text (a date as YYYY-MM-DD).
 */
export type TypedAnswer = string | number | boolean | string[];

/** The shape a question's answer takes, from what it asks: a choice (one or several), else its input's type. */
export function answerShape(question: Question): AnswerShape {
  if (question.multiple) return 'multiple';
  if (question.options && question.options.length > 0) return 'single';
  if (question.input?.type === 'number') return 'number';
  if (question.input?.type === 'boolean') return 'boolean';
  return 'text';
}

/** Canonical answer strings (src/kinds/question/coerce.ts), not empty, typed as `shape` says. */
export function typedAnswer(shape: AnswerShape, values: string[]): TypedAnswer {
  switch (shape) {
    case 'number':
      return Number(values[0]);
    case 'boolean':
      return values[0] === 'true';
    case 'multiple':
      return [...values];
    default:
      return values[0];
  }
}

/** A question set's canonical answers, typed: a question with no answer has no entry. */
export function typedAnswers(questions: Question[], answers: Record<string, string[]>): Record<string, TypedAnswer> {
  const typed: Record<string, TypedAnswer> = {};
  for (const question of questions) {
    const values = Object.hasOwn(answers, question.id) ? answers[question.id] : undefined;
    if (values && values.length > 0) typed[question.id] = typedAnswer(answerShape(question), values);
  }
  return typed;
}
