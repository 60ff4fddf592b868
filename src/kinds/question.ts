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

import { z } from 'zod';
import { assigneesField } from '../protocol/action-base.js';
import { HeedError } from '../errors.js';
import { defineKind, type DetailLine } from './kind.js';
import { expiresInMinutesField, raiseShape } from './raise.js';
import { oneLine } from './one-line.js';
import { isPlainObject } from './plain-object.js';
import { checkQuestions } from './question/check.js';
import { coerceAnswer as coerceWith, type CoerceAnswerResult } from './question/coerce.js';
import { ownField } from './question/names.js';
import { re2PatternTest } from './question/pattern-re2.js';
import { settleAnswers, skipAnswers } from './question/settle.js';
import { summarizeAnswers } from './question/summary.js';
import { DISMISSED, refusal } from './refusal.js';
import { withDetail } from './settled-line.js';
import { question as questionSchema, type Question } from './question/wire.js';
import { questionAnswerSchema } from './question/answer-schema.js';

export type { AskedQuestion, InputType, Question, QuestionInput, QuestionOption } from './question/wire.js';

const request = z.strictObject({
  kind: z.literal('question'),
  preamble: z.string().optional(),
  questions: z.array(questionSchema),
  approvers: assigneesField,
});
const answers = z.record(z.string(), z.array(z.string())).describe('By question id: the canonical answers.');
/** The most a decline's note may hold. */
const MAX_NOTE_CHARS = 4000;
const note = z.string().describe('Why the person declined: the model reads it.');
const answer = z.strictObject({
  type: z.literal('question'),
  answers: z.record(z.string(), z.unknown()).optional(),
  skip: z.literal(true).optional(),
  dismiss: z.literal(true).optional(),
  note: note
    .max(MAX_NOTE_CHARS)
    .optional()
    .describe('With skip or dismiss: why the person declined; the model reads it.'),
});

/** The ask tool's input (what the model sends): the request's preamble and questions, without kind or approvers. */
export const askToolInputSchema = request.omit({ kind: true, approvers: true });
/** The person's answer to an ask, as a question resolution carries it. */
export const askToolAnswerSchema = answer;
export type AskToolInput = z.output<typeof askToolInputSchema>;
export type AskToolAnswer = z.output<typeof askToolAnswerSchema>;

// As documented: each question's answer typed (an option's value or label, or the typed value; a list for a
// multiple choice). The rules check the answers themselves, with messages that say which question is wrong.
const answerValue = z.union([z.string(), z.number(), z.boolean()]);

export type QuestionRequest = z.output<typeof request>;
/** A request as a running tool raises it: its questions are checked by `checkRequest`. */
type RaisedQuestions = Omit<QuestionRequest, 'questions'> & { questions: unknown };

/**
 * `coerceAnswer` as the server runs it: patterns matched by RE2, in time linear in the answer. `raw` may
 * also be the parameters a form posts, of which only this question's entry counts (by id, header or text).
 */
export function coerceAnswer(question: Question, raw: unknown): CoerceAnswerResult {
  return coerceWith(question, ownField(question, raw), re2PatternTest);
}

/** How a question ended, in a few words. */
function questionOutcome(resolution: object): string {
  return 'dismiss' in resolution ? 'Dismissed' : 'skip' in resolution ? 'Skipped' : 'Answered';
}

/** What the model reads for a dismissed question, with the person's note. */
function dismissal(note: string | undefined): string {
  return note ? `${DISMISSED} Their note: ${note}` : DISMISSED;
}

/**
 * Questions: answers (coerced and checked per question), a skip (pre-picked answers stand in) or a
 * dismissal (the agent stops); the model reads a summary of the answers.
 */
export const question = defineKind({
  docName: 'Question',
  request,
  answer,
  documentedAnswer: answer.extend({
    answers: z
      .record(z.string(), z.union([answerValue, z.array(answerValue)]))
      .optional()
      .describe(
        'By question id (or header, or its text when no other question has it): an option value or label, or the typed value; a list for a multiple choice. A question left out takes its default.',
      ),
  }),
  stored: [
    z.strictObject({ type: z.literal('question'), answers }),
    z.strictObject({ type: z.literal('question'), skip: z.literal(true), answers, note: note.optional() }),
    z.strictObject({ type: z.literal('question'), dismiss: z.literal(true), note: note.optional() }),
  ],
  viewExtras: { defaulted: z.array(z.string()).optional().describe('Question ids that took their default.') },
}).rules({
  raisedByTools: true,
  raise: raiseShape(
    z.strictObject({
      kind: z.literal('question'),
      preamble: z.string().optional(),
      questions: z.array(z.record(z.string(), z.unknown())).min(1).describe('As `ctx.ask` takes them.'),
      expiresInMinutes: expiresInMinutesField,
    }),
    ({ expiresInMinutes, ...raised }) => ({
      raised,
      ...(expiresInMinutes !== undefined ? { expiresInMinutes } : {}),
    }),
  ),
  viewsToolArgs: false,
  // The ask tool checks its questions too, but tells the model the problems instead of throwing (tool-calls.ts).
  checkRequest(request: RaisedQuestions) {
    const checked = checkQuestions(request.questions, { source: 'ctx' });
    if (!checked.ok)
      throw new HeedError('invalid_request', `The tool asked malformed questions: ${checked.problems.join(' ')}`);
    return { ...request, questions: checked.questions };
  },

  checkAnswer(answer, action) {
    const chosen = [answer.skip, answer.dismiss, answer.answers !== undefined].filter(Boolean).length;
    if (chosen > 1) {
      throw new HeedError('invalid_resolution', 'Send answers, or skip, or dismiss: only one of them.');
    }
    // A note says why the person declined; the model reads it. Blank is no note.
    const note = answer.note?.trim() ? answer.note : undefined;
    if (answer.dismiss)
      return {
        stored: { type: 'question', dismiss: true, ...(note ? { note } : {}) },
        eventStatus: 'dismissed',
        defaulted: null,
      };
    const questions = action.request.questions;
    if (answer.skip) {
      // Skipping never fails on a required question: the agent goes on with the pre-picked answers and its own assumptions.
      const { answers, defaulted } = skipAnswers(questions);
      return {
        stored: { type: 'question', skip: true, answers, ...(note ? { note } : {}) },
        eventStatus: 'skipped',
        defaulted,
      };
    }
    if (answer.note !== undefined) {
      // A note alone declines nothing: taken as an answer it would stand for the pre-picked defaults, which nobody chose.
      throw new HeedError(
        'invalid_resolution',
        'A note goes with a decline: send it with skip: true (the agent goes on without these answers) or dismiss: true (the agent stops here).',
        { details: { field: 'note' } },
      );
    }
    const outcome = settleAnswers(questions, answer.answers);
    if (!outcome.ok) {
      const message = outcome.problems.map((problem) => problem.message).join(' ');
      throw new HeedError('invalid_resolution', message, { details: { fields: outcome.problems } });
    }
    return {
      stored: { type: 'question', answers: outcome.answers },
      eventStatus: 'answered',
      defaulted: outcome.defaulted,
    };
  },

  modelReads(action, options) {
    const resolution = action.resolution;
    if (!resolution || resolution.type !== 'question') return refusal(action, options);
    if ('dismiss' in resolution)
      return { output: { type: 'error-text', value: dismissal(resolution.note) }, stop: true };
    const skipped = 'skip' in resolution;
    return {
      output: {
        type: 'text',
        value: summarizeAnswers(action.request.questions, {
          answers: resolution.answers,
          skipped,
          note: skipped ? resolution.note : undefined,
        }),
      },
    };
  },

  // Seed 004's decline: the agent carries on without answers (a skip), and reads why.
  decline: (note) => ({ type: 'question', skip: true, ...(note !== undefined ? { note: note as string } : {}) }),

  noteAfterResult(action) {
    const resolution = action.resolution;
    if (resolution?.type !== 'question' || !('note' in resolution) || !resolution.note) return undefined;
    const asked = action.request.questions.map((question) => `"${question.prompt}"`).join(', ');
    return `The user ${'dismiss' in resolution ? 'dismissed' : 'skipped'} ${asked} with a note: ${resolution.note}`;
  },

  lapse(action) {
    const { answers } = skipAnswers(action.request.questions);
    return {
      resolution: { type: 'question', skip: true, answers },
      status: 'skipped',
      defaulted: Object.keys(answers),
    };
  },

  answerSchemaFor: (action) => questionAnswerSchema(action.questions, MAX_NOTE_CHARS),
  a2aPause: 'input_required',
  agUi: {
    reason: 'input_required',
    answerFromResume(status, payload) {
      if (status === 'cancelled') return { type: 'question', dismiss: true };
      // Read as the AI SDK output is: `{ answers }`, `{ skip }` or `{ dismiss }`, else a bare record of answers.
      return answerFromOutput(payload);
    },
  },

  answerFromUiPart(part) {
    if (part.state === 'output-error') return { type: 'question', dismiss: true };
    if (part.state !== 'output-available') return undefined;
    return answerFromOutput(part.output);
  },

  presentation: {
    title: (action) =>
      action.questions.length > 1
        ? `${action.questions.length} questions`
        : (action.questions[0]?.prompt ?? 'Question'),
    summary(action) {
      const more = action.questions.length > 1 ? ` (+${action.questions.length - 1} more)` : '';
      return `Question: ${oneLine(action.questions[0]?.prompt ?? 'an answer is needed')}${more}`;
    },
    noun: 'Question',
    headline(action) {
      const questions = action.questions ?? [];
      const first = questions[0]?.prompt ?? 'A question';
      return questions.length > 1 ? `${first} (+${questions.length - 1} more)` : first;
    },
    outcome: questionOutcome,
    describeResolution(action, resolution) {
      if ('dismiss' in resolution) return questionOutcome(resolution);
      // Labels, not stored values: what the person picked, as they saw it.
      const picked = Object.entries(resolution.answers).map(([id, values]) => {
        const asked = action.questions.find((candidate) => candidate.id === id);
        const labels = values.map((value) => asked?.options?.find((option) => option.value === value)?.label ?? value);
        return `${asked?.header ?? id}: ${labels.join(', ')}`;
      });
      return withDetail(questionOutcome(resolution), picked.length ? oneLine(picked.join('; '), 80) : undefined);
    },
    detailLines(action) {
      const lines: DetailLine[] = action.preamble ? [{ text: action.preamble }] : [];
      for (const [index, asked] of (action.questions ?? []).entries()) {
        lines.push({ text: `${index + 1}. ${asked.header} — ${asked.prompt}`, tone: 'strong' });
        const defaults = new Set(asked.defaults ?? []);
        for (const option of asked.options ?? [])
          lines.push({ text: `   ${defaults.has(option.value) ? '(•)' : '( )'} ${option.label}` });
        if (asked.input)
          lines.push({
            text: `   ${asked.input.type}${defaults.size ? `, pre-filled ${[...defaults].join(', ')}` : ''}`,
            tone: 'dim',
          });
      }
      return lines;
    },
    searchText: (action) =>
      (action.questions ?? []).flatMap((asked) => [
        asked.header,
        asked.prompt,
        ...(asked.options ?? []).map((option) => option.label),
      ]),
    answeredByLink: true,
    oneClickLinks(request, page) {
      const options: Record<string, Record<string, string>> = {};
      for (const asked of request.questions) {
        if (!asked.options?.length) continue;
        options[asked.id] = Object.fromEntries(
          asked.options.map((option) => [
            option.value,
            `${page}?${new URLSearchParams({ q: asked.id, v: option.value })}`,
          ]),
        );
      }
      return Object.keys(options).length > 0 ? { options } : {};
    },
    // Several questions cannot be answered with one press, nor a multiple choice: a tap opens those.
    oneClickAnswers(action) {
      const questions = action.questions ?? [];
      const only = questions.length === 1 && !questions[0].multiple ? questions[0] : undefined;
      return (only?.options ?? []).map((option, index) => ({
        key: `option-${index}`,
        label: option.label,
        answer: { type: 'question', answers: { [only!.id]: [option.value] } },
      }));
    },
    // The card opens on the link's option, picked in place of the defaults (added to them on a multiple choice);
    // Skip still means the agent's own defaults.
    // A question is answered, not approved or denied: a batch leaves it for the person to open.
    batch: (_action, decision) => ({
      refused:
        decision === 'approve'
          ? 'A question cannot be approved: open it to answer it.'
          : 'A question cannot be denied: open it to answer or skip it.',
    }),
    oneClickChoice(action, params) {
      const asked = action.questions.find((entry) => entry.id === params.get('q'));
      const option = asked?.options?.find((entry) => entry.value === params.get('v'));
      if (!asked || !option) return undefined;
      const questions = action.questions.map((question) =>
        question !== asked
          ? question
          : {
              ...question,
              defaults: question.multiple ? [...new Set([...(question.defaults ?? []), option.value])] : [option.value],
            },
      );
      return { view: { ...action, questions }, label: option.label };
    },
    aiSdkApproval: false,
    aiSdkTitle: () => undefined,
  },
});

/**
 * An answer as a client's tool output or resume payload gives it: `{ answers }`, `{ skip: true, note? }` or
 * `{ dismiss: true, note? }`, checked like any answer (a key it does not take is refused by name); a bare
 * record of answers is read as `{ answers }`.
 */
function answerFromOutput(output: unknown): Record<string, unknown> {
  if (isPlainObject(output) && ('answers' in output || 'skip' in output || 'dismiss' in output || 'note' in output)) {
    return { ...output, type: 'question' };
  }
  return { type: 'question', answers: output };
}
