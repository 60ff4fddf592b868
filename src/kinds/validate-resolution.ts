import type { z } from 'zod';
import type { AgentTools } from '../tool.js';
import { HeedError } from '../errors.js';
import { answerSchema, kinds, kindOf, type ActionRecord, type KindName, type TypesFor } from './index.js';
import { clip } from './clip.js';
import { describeIssues, issueList } from './issues.js';
import type { AnswerContext, CheckedResolution } from './kind.js';

export type { CheckedResolution, ResolvedStatus } from './kind.js';

/**
 * Checks an answer against what the action asked: that it is well formed and of the action's kind here,
 * the rest by the action's kind (src/kinds/<kind>.ts). Throws a 400 (`invalid_resolution`,
 * `invalid_approved_args` or `invalid_client_tool_result`) naming what is wrong; nothing is consumed.
 */
export function checkResolution(
  agent: AgentTools | undefined,
  action: ActionRecord,
  raw: unknown,
  context: Pick<AnswerContext, 'limits' | 'validateApprovedArgs'>,
): CheckedResolution<TypesFor> {
  const parsed = answerSchema.safeParse(raw);
  if (!parsed.success) {
    const unknown = unknownKey(raw, parsed.error.issues);
    if (unknown) throw unknown;
    const kindHint =
      raw && typeof raw === 'object' && 'type' in raw
        ? ''
        : ` It needs a "type" equal to the action's kind ("${action.kind}").`;
    throw new HeedError(
      'invalid_resolution',
      `The resolution is not well formed: ${describeIssues(parsed.error.issues)}.${kindHint}`,
      {
        details: { issues: issueList(parsed.error.issues) },
      },
    );
  }
  const input = parsed.data;
  if (input.type !== action.kind) {
    throw new HeedError(
      'invalid_resolution',
      `This action's kind is "${action.kind}"; the resolution's type is "${input.type}".`,
      {
        details: { expected: action.kind, got: input.type },
      },
    );
  }
  return kindOf(action.kind).checkAnswer(input, action, { agent, ...context });
}

/**
 * A key the answer's kind does not take (every kind's answer is strict: a key another product sends,
 * such as `decision` on a question, must not be dropped and the rest read as something else), named, with
 * the keys the kind takes and, where it has one, how to decline it.
 */
function unknownKey(raw: unknown, issues: z.core.$ZodIssue[]): HeedError | undefined {
  const issue = issues.find((entry) => entry.code === 'unrecognized_keys');
  if (!issue || issue.code !== 'unrecognized_keys') return undefined;
  const field = clip([...issue.path.map(String), issue.keys[0]].join('.'), 100);
  const type = (raw as { type?: unknown }).type;
  const kind = typeof type === 'string' && Object.hasOwn(kinds, type) ? kindOf(type as KindName) : undefined;
  const takes = kind ? Object.keys(kind.wire.answer.shape) : [];
  const declined = kind?.decline
    ? ` To decline, send ${JSON.stringify(declineExample(kind.decline, kind.wire.answer))}.`
    : '';
  const what = kind ? `an answer to a "${kind.kind}" request` : 'this answer';
  return new HeedError(
    'invalid_resolution',
    `The resolution has "${field}", which ${what} does not take; it takes ${takes.map((key) => `"${key}"`).join(', ')}.${declined}`,
    {
      details: { field, takes },
    },
  );
}

/** The kind's decline with a note, where its answer takes one; else without. */
function declineExample(decline: (note: string | undefined) => unknown, answer: z.ZodType): unknown {
  const withNote = decline('why');
  return answer.safeParse(withNote).success ? withNote : decline(undefined);
}
