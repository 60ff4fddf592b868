import type { Question } from './wire.js';

export const SKIPPED_SUMMARY = 'The user skipped these questions; go on with your own assumptions.';

/** An answer as a person reads it: option labels, Yes/No for booleans, anything else as written. */
function describe(question: Question, value: string): string {
  const option = question.options?.find((candidate) => candidate.value === value);
  if (option) return option.label;
  if (question.input?.type === 'boolean') {
    if (value === 'true') return 'Yes';
    if (value === 'false') return 'No';
  }
  return value;
}

function answerOf(answers: Record<string, string[]>, id: string): string[] {
  return Object.hasOwn(answers, id) ? answers[id] : [];
}

function line(question: Question, values: string[]): string {
  const text = values.length > 0 ? values.map((value) => describe(question, value)).join(', ') : '(no answer)';
  return `${question.prompt} → ${text}`;
}

/**
 * What the model reads back once the questions are settled: by labels, never opaque option values.
 * A skipped set says so first and then lists the pre-picked answers that stand in for the person's.
 */
export function summarizeAnswers(
  questions: Question[],
  outcome: { answers: Record<string, string[]>; skipped?: boolean; note?: string },
): string {
  if (outcome.skipped) {
    const used = questions
      .map((question) => ({ question, values: answerOf(outcome.answers, question.id) }))
      .filter(({ values }) => values.length > 0)
      .map(({ question, values }) => line(question, values));
    const said = outcome.note ? `${SKIPPED_SUMMARY}\nTheir note: ${outcome.note}` : SKIPPED_SUMMARY;
    return used.length > 0 ? `${said}\nPre-picked answers in effect:\n${used.join('\n')}` : said;
  }
  const lines = questions.map((question) => line(question, answerOf(outcome.answers, question.id)));
  return `The user answered:\n${lines.join('\n')}`;
}
