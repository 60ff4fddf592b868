import type { z } from 'zod';
import type { AgentTools } from '../tool.js';
import { HeedError } from '../errors.js';
import type { ActionRecord, JsonValue, StoredResolution, ToolOutput } from '../types.js';
import { settleAnswers, skipAnswers } from './question.js';
import { resolutionInputSchema, type ResolutionInput } from '../protocol/resolution-input.js';

/** How an answer reads in `action.resolved` events. */
export type ResolvedStatus = 'approved' | 'rejected' | 'answered' | 'skipped' | 'dismissed' | 'failed' | 'cancelled' | 'expired';

export interface CheckedResolution {
  stored: StoredResolution;
  eventStatus: ResolvedStatus;
  defaulted: string[] | null;
  /** For a client tool: the tool result the model will read (never kept on the record). */
  toolOutput?: ToolOutput;
  remember?: boolean;
}

/**
 * Checks an answer against what the action asked. Throws a 400 (`invalid_resolution`,
 * `invalid_approved_args` or `invalid_client_tool_result`) naming what is wrong; nothing is consumed.
 */
export function checkResolution(
  agent: AgentTools | undefined,
  action: ActionRecord,
  raw: unknown,
  limits: { clientToolOutputBytes: number },
): CheckedResolution {
  const parsed = resolutionInputSchema.safeParse(raw);
  if (!parsed.success) {
    const kindHint = raw && typeof raw === 'object' && 'type' in raw ? '' : ` It needs a "type" equal to the action's kind ("${action.kind}").`;
    throw new HeedError('invalid_resolution', `The resolution is not well formed: ${describeIssues(parsed.error.issues)}.${kindHint}`, {
      details: { issues: issueList(parsed.error.issues) },
    });
  }
  const input = parsed.data;
  if (input.type !== action.kind) {
    throw new HeedError('invalid_resolution', `This action is a ${action.kind}; the resolution's type is "${input.type}".`, {
      details: { expected: action.kind, got: input.type },
    });
  }
  switch (input.type) {
    case 'approval':
      return checkApproval(agent, action, input);
    case 'question':
      return checkQuestion(action, input);
    case 'client_tool':
      return checkClientTool(agent, action, input, limits.clientToolOutputBytes);
    case 'url':
      return { stored: { type: 'url', decision: input.decision }, eventStatus: input.decision === 'accept' ? 'answered' : 'rejected', defaulted: null };
  }
}

function checkApproval(agent: AgentTools | undefined, action: ActionRecord, input: Extract<ResolutionInput, { type: 'approval' }>): CheckedResolution {
  if (action.request.kind !== 'approval') throw new Error('unreachable');
  if (input.remember && !action.request.canRemember) {
    throw new HeedError('invalid_resolution', 'This approval cannot be remembered: the tool decides per call whether it needs one.', {
      details: { field: 'remember' },
    });
  }
  const stored: StoredResolution = { type: 'approval', decision: input.decision };
  if (input.comment) stored.comment = input.comment;
  if (input.decision === 'allow') {
    if (input.approvedArgs !== undefined) {
      const schema = action.origin === 'tool' ? agent?.tools?.[action.toolName]?.inputSchema : undefined;
      if (schema) {
        const result = schema.safeParse(input.approvedArgs);
        if (!result.success) {
          const first = result.error.issues[0];
          const field = first.path.length ? first.path.join('.') : '(the arguments)';
          throw new HeedError('invalid_approved_args', `The edited arguments are not accepted by ${action.toolName}: ${field}: ${first.message}.`, {
            details: { field, issues: issueList(result.error.issues) },
          });
        }
      }
      stored.approvedArgs = input.approvedArgs as JsonValue;
    }
    if (input.remember) stored.remember = true;
  }
  return { stored, eventStatus: input.decision === 'allow' ? 'approved' : 'rejected', defaulted: null, remember: input.decision === 'allow' && input.remember };
}

function checkQuestion(action: ActionRecord, input: Extract<ResolutionInput, { type: 'question' }>): CheckedResolution {
  if (action.request.kind !== 'question') throw new Error('unreachable');
  const chosen = [input.skip, input.dismiss, input.answers !== undefined].filter(Boolean).length;
  if (chosen > 1) {
    throw new HeedError('invalid_resolution', 'Send answers, or skip, or dismiss: only one of them.');
  }
  if (input.dismiss) return { stored: { type: 'question', dismiss: true }, eventStatus: 'dismissed', defaulted: null };
  const questions = action.request.questions;
  if (input.skip) {
    // Skipping never fails on a required question: the agent goes on with the pre-picked answers and its own assumptions.
    const { answers, defaulted } = skipAnswers(questions);
    return { stored: { type: 'question', skip: true, answers }, eventStatus: 'skipped', defaulted };
  }
  const outcome = settleAnswers(questions, input.answers);
  if (!outcome.ok) {
    const message = outcome.problems.map((problem) => problem.message).join(' ');
    throw new HeedError('invalid_resolution', message, { details: { fields: outcome.problems } });
  }
  return { stored: { type: 'question', answers: outcome.answers }, eventStatus: 'answered', defaulted: outcome.defaulted };
}

function checkClientTool(
  agent: AgentTools | undefined,
  action: ActionRecord,
  input: Extract<ResolutionInput, { type: 'client_tool' }>,
  maxBytes: number,
): CheckedResolution {
  const hasOutput = input.output !== undefined;
  const hasError = input.error !== undefined;
  if (hasOutput === hasError) {
    throw new HeedError('invalid_client_tool_result', 'Send either output (what the page produced) or error (why it could not), not both and not neither.');
  }
  if (hasError) {
    return {
      stored: { type: 'client_tool', error: input.error! },
      eventStatus: 'failed',
      defaulted: null,
      toolOutput: { type: 'error-text', value: input.error! },
    };
  }
  const text = JSON.stringify(input.output);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) {
    throw new HeedError('invalid_client_tool_result', `The output is ${bytes} bytes; at most ${maxBytes} are accepted.`, {
      details: { bytes, maxBytes },
    });
  }
  const definition = agent?.tools?.[action.toolName];
  let output: unknown = input.output;
  if (definition?.outputSchema) {
    const result = (definition.outputSchema as z.ZodType).safeParse(input.output);
    if (!result.success) {
      throw new HeedError('invalid_client_tool_result', `The output does not match what ${action.toolName} returns: ${describeIssues(result.error.issues)}.`, {
        details: { issues: issueList(result.error.issues) },
      });
    }
    output = result.data;
  }
  if (definition?.client?.validate && action.request.kind === 'client_tool') {
    const verdict = definition.client.validate({ input: action.request.args, output });
    if (verdict !== true) {
      throw new HeedError('invalid_client_tool_result', typeof verdict === 'string' ? verdict : 'The output was refused by the tool.');
    }
  }
  return {
    stored: { type: 'client_tool', outputBytes: bytes },
    eventStatus: 'answered',
    defaulted: null,
    toolOutput: { type: 'json', value: (output ?? null) as JsonValue },
  };
}

/** The first issues (a huge answer could otherwise make a huge error). */
function issueList(issues: z.core.$ZodIssue[]) {
  return issues.slice(0, 20).map((issue) => ({ path: issue.path.map(String).join('.'), message: clip(issue.message) }));
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

function describeIssues(issues: z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => clip(issue.path.length ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}
