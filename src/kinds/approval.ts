import { HeedError } from '../errors.js';
import type { JsonValue, StoredResolution } from '../types.js';
import { issueList } from './issues.js';
import { isPlainObject } from './plain-object.js';
import type { ActionKind } from './kind.js';
import { refusal } from './refusal.js';

/**
 * Approvals: a tool call waits for a person's allow or deny (or the votes of docs/approvals.md, in
 * ./approval-policy.ts). An allow may edit the arguments (checked against the tool's input schema) and,
 * where the tool allows it, be remembered.
 */
export const approval: ActionKind<'approval'> = {
  kind: 'approval',
  viewsToolArgs: true,
  // The approvers and votes are checked where they are worked out (approval-policy.ts), which is async.
  checkRequest: (request) => request,

  checkAnswer(answer, action, { agent }) {
    if (answer.remember && !action.request.canRemember) {
      throw new HeedError('invalid_resolution', 'This approval cannot be remembered: the tool decides per call whether it needs one.', {
        details: { field: 'remember' },
      });
    }
    const stored: StoredResolution = { type: 'approval', decision: answer.decision };
    if (answer.comment) stored.comment = answer.comment;
    if (answer.decision === 'allow') {
      if (answer.approvedArgs !== undefined) {
        const schema = action.origin === 'tool' ? agent?.tools?.[action.toolName]?.inputSchema : undefined;
        if (schema) {
          const result = schema.safeParse(answer.approvedArgs);
          if (!result.success) {
            const first = result.error.issues[0];
            const field = first.path.length ? first.path.join('.') : '(the arguments)';
            throw new HeedError('invalid_approved_args', `The edited arguments are not accepted by ${action.toolName}: ${field}: ${first.message}.`, {
              details: { field, issues: issueList(result.error.issues) },
            });
          }
        }
        stored.approvedArgs = answer.approvedArgs as JsonValue;
      }
      if (answer.remember) stored.remember = true;
    }
    return { stored, eventStatus: answer.decision === 'allow' ? 'approved' : 'rejected', defaulted: null, remember: answer.decision === 'allow' && answer.remember };
  },

  modelReads(action) {
    const resolution = action.resolution;
    if (action.status !== 'resolved' || resolution?.type !== 'approval' || resolution.decision !== 'allow') return refusal(action);
    return undefined;
  },

  lapse: () => ({ resolution: { type: 'approval', decision: 'deny', comment: 'timed out' }, status: 'rejected', defaulted: null }),

  answerFromUiPart(part) {
    if (part.state !== 'approval-responded' || !isPlainObject(part.approval)) return undefined;
    const { approved, reason } = part.approval;
    // Anything but a boolean is left for the resolution check to refuse (400, in its place in the order).
    const decision = approved === true ? 'allow' : approved === false ? 'deny' : approved;
    return { type: 'approval', decision, ...(typeof reason === 'string' && reason.trim() ? { comment: reason } : {}) };
  },
};
