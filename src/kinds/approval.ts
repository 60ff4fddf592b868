import { z } from 'zod';
import { HeedError } from '../errors.js';
import { argsSchemaField } from '../protocol/action-base.js';
import { isoTime, jsonValue, type JsonValue } from '../protocol/values.js';
import { issueList } from './issues.js';
import { defineKind } from './kind.js';
import { oneLine } from './one-line.js';
import { isPlainObject } from './plain-object.js';
import { refusal } from './refusal.js';

const decision = z.enum(['allow', 'deny']);

/** One approver's answer to an approval decided by votes. */
const vote = z.strictObject({
  by: z.string(),
  decision,
  comment: z.string().optional(),
  at: isoTime,
  args: jsonValue.optional().describe('Arguments this vote proposed (an allow with `approvedArgs`): it cleared the allows given before.'),
  outdated: z.literal(true).optional().describe('An allow given for arguments a later vote replaced: it no longer counts.'),
});

const request = z.strictObject({
  kind: z.literal('approval'),
  args: jsonValue.describe('The arguments of the call.'),
  title: z.string(),
  summary: z.string(),
  canRemember: z.boolean().describe('False for a tool gated by a predicate: such approvals are never remembered.'),
  // An approval decided by votes (the tool's `approval` policy; docs/approvals.md). `args` is then what is under vote.
  approvers: z.array(z.string()).optional().describe('User ids who may vote (escalation adds to it). Absent: whoever may answer the conversation.'),
  required: z.number().int().optional().describe('Distinct allows needed. Its presence marks an approval decided by votes.'),
  deny: z.enum(['any', 'majority']).optional().describe('`any`: one deny refuses; `majority`: see docs/approvals.md.'),
  excludeRequester: z.boolean().optional().describe("The conversation's owner may not vote (four eyes)."),
  escalate: z
    .strictObject({ at: isoTime, to: z.array(z.string()), escalatedAt: isoTime.optional() })
    .optional()
    .describe('When `to` join the approvers if no decision came; `escalatedAt` once they did. The lapse time does not move.'),
  votes: z.array(vote).optional().describe('Votes so far, oldest first (once decided, those of the resolution, the deciding one last).'),
  originalArgs: jsonValue.optional().describe('The arguments first asked about, once a vote proposed others.'),
});

const stored = z.strictObject({
  type: z.literal('approval'),
  decision,
  comment: z.string().optional(),
  approvedArgs: jsonValue.optional(),
  remember: z.boolean().optional(),
  votes: z.array(vote).optional().describe('For an approval decided by votes: every vote, the deciding one last.'),
});

export type ApprovalRequest = z.output<typeof request>;
export type ApprovalResolution = z.output<typeof stored>;
export type ApprovalVote = z.output<typeof vote>;

/**
 * Approvals: a tool call waits for a person's allow or deny (or the votes of docs/approvals.md, in
 * ./approval-policy.ts). An allow may edit the arguments (checked against the tool's input schema) and,
 * where the tool allows it, be remembered.
 */
export const approval = defineKind({
  docName: 'Approval',
  request,
  answer: z.object({
    type: z.literal('approval'),
    decision,
    comment: z.string().max(4000).optional(),
    approvedArgs: z.record(z.string(), z.unknown()).optional(),
    remember: z.boolean().optional(),
  }),
  stored: [stored],
  viewExtras: { argsSchema: argsSchemaField },
}).rules({
  raisedByTools: true,
  viewsToolArgs: true,
  // The approvers and votes are checked where they are worked out (approval-policy.ts), which is async.
  checkRequest: (request) => request,

  checkAnswer(answer, action, { agent }) {
    if (answer.remember && !action.request.canRemember) {
      throw new HeedError('invalid_resolution', 'This approval cannot be remembered: the tool decides per call whether it needs one.', {
        details: { field: 'remember' },
      });
    }
    const resolution: ApprovalResolution = { type: 'approval', decision: answer.decision };
    if (answer.comment) resolution.comment = answer.comment;
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
        resolution.approvedArgs = answer.approvedArgs as JsonValue;
      }
      if (answer.remember) resolution.remember = true;
    }
    return { stored: resolution, eventStatus: answer.decision === 'allow' ? 'approved' : 'rejected', defaulted: null, remember: answer.decision === 'allow' && answer.remember };
  },

  modelReads(action) {
    const resolution = action.resolution;
    if (action.status !== 'resolved' || resolution?.type !== 'approval' || resolution.decision !== 'allow') return refusal(action);
    return undefined;
  },

  lapse: () => ({ resolution: { type: 'approval', decision: 'deny', comment: 'timed out' }, status: 'rejected', defaulted: null }),

  resolvedDetails: (resolution) => ({
    decision: resolution.decision,
    ...(resolution.approvedArgs !== undefined ? { editedArgs: true } : {}),
    ...(resolution.remember ? { remember: true } : {}),
  }),

  answerFromUiPart(part) {
    if (part.state !== 'approval-responded' || !isPlainObject(part.approval)) return undefined;
    const { approved, reason } = part.approval;
    // Anything but a boolean is left for the resolution check to refuse (400, in its place in the order).
    const decision = approved === true ? 'allow' : approved === false ? 'deny' : approved;
    return { type: 'approval', decision, ...(typeof reason === 'string' && reason.trim() ? { comment: reason } : {}) };
  },

  presentation: {
    title: (action) => action.title || action.toolName,
    summary: (action) => `Approve? ${oneLine(action.title ?? action.toolName)}`,
    outcome: (resolution) => (resolution.decision === 'allow' ? (resolution.approvedArgs !== undefined ? 'Allowed with changes' : 'Allowed') : 'Denied'),
    answeredByLink: true,
    oneClickLinks: (_request, page) => ({ allow: `${page}?choice=allow`, deny: `${page}?choice=deny` }),
    aiSdkApproval: true,
    aiSdkTitle: (action) => action.title || undefined,
  },
});
