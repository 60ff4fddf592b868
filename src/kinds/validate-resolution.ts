import type { AgentTools } from '../tool.js';
import { HeedError } from '../errors.js';
import { answerSchema, kindOf, type ActionRecord, type TypesFor } from './index.js';
import { describeIssues, issueList } from './issues.js';
import type { CheckedResolution } from './kind.js';

export type { CheckedResolution, ResolvedStatus } from './kind.js';

/**
 * Checks an answer against what the action asked: that it is well formed and of the action's kind here,
 * the rest by the action's kind (src/kinds/<kind>.ts). Throws a 400 (`invalid_resolution`,
 * `invalid_approved_args` or `invalid_client_tool_result`) naming what is wrong; nothing is consumed.
 */
export function checkResolution(agent: AgentTools | undefined, action: ActionRecord, raw: unknown, limits: { clientToolOutputBytes: number }): CheckedResolution<TypesFor> {
  const parsed = answerSchema.safeParse(raw);
  if (!parsed.success) {
    const kindHint = raw && typeof raw === 'object' && 'type' in raw ? '' : ` It needs a "type" equal to the action's kind ("${action.kind}").`;
    throw new HeedError('invalid_resolution', `The resolution is not well formed: ${describeIssues(parsed.error.issues)}.${kindHint}`, {
      details: { issues: issueList(parsed.error.issues) },
    });
  }
  const input = parsed.data;
  if (input.type !== action.kind) {
    throw new HeedError('invalid_resolution', `This action's kind is "${action.kind}"; the resolution's type is "${input.type}".`, {
      details: { expected: action.kind, got: input.type },
    });
  }
  return kindOf(action.kind).checkAnswer(input, action, { agent, limits });
}
