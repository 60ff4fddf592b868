import { z } from 'zod';
import { HeedError } from '../errors.js';
import { argsSchemaField, type ActionRecordOf } from '../protocol/action-base.js';
import { isoTime, jsonValue, type JsonObject, type JsonValue } from '../protocol/values.js';
import { inputJsonSchema } from './json-schema.js';
import { checkApprovedArgs, sameJson, schemasFromJson, type ArgsSchemas } from './approved-args.js';
import { votesSummary } from './approval-votes.js';
import { commentText } from './comment-text.js';
import { defineKind, type AnswerContext } from './kind.js';
import { expiresInMinutesField, raisedTitle, raiseShape, type Raise } from './raise.js';
import { oneLine } from './one-line.js';
import { isPlainObject } from './plain-object.js';
import { refusal } from './refusal.js';
import { jsonLines, withDetail } from './settled-line.js';
import { clip } from './clip.js';

export { commentText } from './comment-text.js';
export { votesSummary } from './approval-votes.js';

const decision = z.enum(['allow', 'deny']);

/** The most a comment may hold: characters of text, or of an object's JSON. */
const MAX_COMMENT_CHARS = 4000;

/** A comment: text, or (on a deny) a JSON object that is the call's whole result as the model reads it (seed 004). */
const comment = z
  .union([z.string(), z.record(z.string(), jsonValue)])
  .describe('Text; on a deny also a JSON object, which is then the whole result the model reads for the call.');

/** One approver's answer to an approval decided by votes. */
const vote = z.strictObject({
  by: z.string(),
  for: z
    .string()
    .optional()
    .describe("Set when `by` voted as this approver's delegate: the vote counts as theirs (one vote per approver)."),
  decision,
  comment: comment.optional(),
  at: isoTime,
  args: jsonValue
    .optional()
    .describe('Arguments this vote proposed (an allow with `approvedArgs`): it cleared the allows given before.'),
  outdated: z
    .literal(true)
    .optional()
    .describe('An allow given for arguments a later vote replaced: it no longer counts.'),
});

const request = z.strictObject({
  kind: z.literal('approval'),
  args: jsonValue.describe('The arguments of the call.'),
  title: z.string(),
  summary: z.string(),
  canRemember: z.boolean().describe('False for a tool gated by a predicate: such approvals are never remembered.'),
  // An approval decided by votes (the tool's `approval` policy; docs/approvals.md). `args` is then what is under vote.
  approvers: z
    .array(z.string())
    .optional()
    .describe(
      'User ids who may vote (escalation adds to it); on a request made with `POST /api/requests`, its assignees, who may answer it. Absent: whoever may answer the conversation.',
    ),
  required: z
    .number()
    .int()
    .optional()
    .describe('Distinct allows needed. Its presence marks an approval decided by votes.'),
  deny: z.enum(['any', 'majority']).optional().describe('`any`: one deny refuses; `majority`: see docs/approvals.md.'),
  excludeRequester: z.boolean().optional().describe("The conversation's owner may not vote (four eyes)."),
  escalate: z
    .strictObject({ at: isoTime, to: z.array(z.string()), escalatedAt: isoTime.optional() })
    .optional()
    .describe(
      'When `to` join the approvers if no decision came; `escalatedAt` once they did. The lapse time does not move.',
    ),
  votes: z
    .array(vote)
    .optional()
    .describe('Votes so far, oldest first (once decided, those of the resolution, the deciding one last).'),
  originalArgs: jsonValue.optional().describe('The arguments first asked about, once a vote proposed others.'),
  argsSchema: argsSchemaField.describe(
    'JSON Schema of the arguments, given by a tool asking with `ctx.approve({ argsSchema })`; edits are checked against it.',
  ),
});

const stored = z.strictObject({
  type: z.literal('approval'),
  decision,
  comment: comment.optional(),
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
  answer: z.strictObject({
    type: z.literal('approval'),
    decision,
    comment: z.union([z.string().max(MAX_COMMENT_CHARS), z.record(z.string(), jsonValue)]).optional(),
    approvedArgs: z.record(z.string(), z.unknown()).optional(),
    remember: z.boolean().optional(),
  }),
  stored: [stored],
  viewExtras: { argsSchema: argsSchemaField },
}).rules({
  raisedByTools: true,
  raise: raiseShape(
    z.strictObject({
      kind: z.literal('approval'),
      title: raisedTitle.min(1, 'an approval needs a title'),
      summary: z.string().optional(),
      toolName: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe("Shown with the request; default `request` (a handler's: `approval`)."),
      args: jsonValue.optional().describe('What is to be approved; a person may send back edited ones.'),
      argsSchema: z
        .record(z.string(), jsonValue)
        .optional()
        .describe('JSON Schema edited arguments must satisfy; without it edits are refused.'),
      approval: z
        .unknown()
        .optional()
        .describe("An approval policy (docs/approvals.md); an agent's own approvals only."),
      expiresInMinutes: expiresInMinutesField,
    }),
    (written): Raise<z.output<typeof request>> => ({
      raised: {
        kind: 'approval',
        title: written.title,
        summary: written.summary ?? '',
        args: written.args ?? null,
        canRemember: false,
        ...(written.argsSchema !== undefined ? { argsSchema: written.argsSchema } : {}),
      },
      ...(written.toolName !== undefined ? { toolName: written.toolName } : {}),
      ...(written.expiresInMinutes !== undefined ? { expiresInMinutes: written.expiresInMinutes } : {}),
      ...(written.approval !== undefined ? { policy: written.approval } : {}),
    }),
  ),
  viewsToolArgs: true,
  checkRequest(request) {
    // A schema the check could not read would let any edit through: refused when the tool asks, not when a person answers.
    if (request.argsSchema !== undefined) {
      try {
        z.fromJSONSchema(request.argsSchema as Parameters<typeof z.fromJSONSchema>[0]);
      } catch (error) {
        throw new HeedError(
          'invalid_request',
          `argsSchema is not a JSON Schema Heed can check edits against: ${error instanceof Error ? error.message : String(error)}`,
          {
            details: { field: 'argsSchema' },
          },
        );
      }
    }
    // The approvers and votes are checked where they are worked out (approval-policy.ts), which is async.
    return request;
  },

  checkAnswer(answer, action, context) {
    if (answer.remember && !action.request.canRemember) {
      throw new HeedError(
        'invalid_resolution',
        'This approval cannot be remembered: its tool decides per call whether it needs one, or remembering approvals is turned off.',
        {
          details: { field: 'remember' },
        },
      );
    }
    const resolution: ApprovalResolution = { type: 'approval', decision: answer.decision };
    if (answer.comment) resolution.comment = checkComment(answer.comment, answer.decision);
    if (answer.decision === 'allow') {
      if (answer.approvedArgs !== undefined) {
        // Arguments that are the very ones asked about are not an edit, and are not checked (seed 002).
        const schemas =
          context.validateApprovedArgs && !sameJson(answer.approvedArgs, action.request.args)
            ? argsSchemas(action, context)
            : undefined;
        if (schemas) checkApprovedArgs(answer.approvedArgs, schemas, action.toolName);
        resolution.approvedArgs = answer.approvedArgs as JsonValue;
      }
      if (answer.remember) resolution.remember = true;
    }
    return {
      stored: resolution,
      eventStatus: answer.decision === 'allow' ? 'approved' : 'rejected',
      defaulted: null,
      remember: answer.decision === 'allow' && answer.remember,
    };
  },

  modelReads(action, options) {
    const resolution = action.resolution;
    if (action.status !== 'resolved' || resolution?.type !== 'approval' || resolution.decision !== 'allow')
      return refusal(action, options);
    return undefined;
  },

  lapse: () => ({
    resolution: { type: 'approval', decision: 'deny', comment: 'timed out' },
    status: 'rejected',
    defaulted: null,
  }),

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

  decline: (note) => ({ type: 'approval', decision: 'deny', ...(note !== undefined ? { comment: note } : {}) }),
  // Seed 004: answering an approval approves its call.
  agree: () => ({ type: 'approval', decision: 'allow' }),

  // The decision, and edited arguments as this approval's own schema says they must be (both ways AG-UI
  // clients send it); no edits where it has none.
  answerSchemaFor(action) {
    const args = action.argsSchema ? { ...action.argsSchema } : undefined;
    const comment = { type: 'string', maxLength: MAX_COMMENT_CHARS };
    return {
      anyOf: [
        {
          type: 'object',
          properties: {
            type: { const: 'approval' },
            decision: { enum: ['allow', 'deny'] },
            comment,
            ...(args ? { approvedArgs: args } : {}),
            ...(action.canRemember ? { remember: { type: 'boolean' } } : {}),
          },
          required: ['decision'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: { approved: { type: 'boolean' }, comment, ...(args ? { editedArgs: args } : {}) },
          required: ['approved'],
          additionalProperties: false,
        },
      ],
    };
  },

  a2aPause: 'auth_required',
  agUi: {
    reason: 'tool_call',
    // The pattern AG-UI's interrupts page recommends for a tool approval; `editedArgs` is its approve-with-edits.
    alternativeAnswer: z.strictObject({
      approved: z.boolean(),
      editedArgs: z
        .record(z.string(), z.unknown())
        .optional()
        .describe(
          "The tool's arguments to run with instead of the model's: a full replacement, checked like `approvedArgs`.",
        ),
      comment: z.string().max(MAX_COMMENT_CHARS).optional(),
    }),
    answerFromResume(status, payload) {
      if (status === 'cancelled') return { type: 'approval', decision: 'deny' };
      if (!isPlainObject(payload)) return { type: 'approval', decision: payload };
      if (!('approved' in payload)) return { ...payload, type: 'approval' };
      const { approved, editedArgs, ...rest } = payload;
      // Anything but a boolean is left for the resolution check to refuse (400, in its place in the order).
      const decided = approved === true ? 'allow' : approved === false ? 'deny' : approved;
      return {
        ...rest,
        type: 'approval',
        decision: decided,
        ...(editedArgs !== undefined && approved === true ? { approvedArgs: editedArgs } : {}),
      };
    },
  },

  presentation: {
    title: (action) => action.title || action.toolName,
    summary: (action) => `Approve? ${oneLine(action.title ?? action.toolName)}`,
    noun: 'Approval',
    headline: (action) => action.title || `Run ${action.toolName}?`,
    outcome,
    describeResolution: (_action, resolution) =>
      withDetail(
        outcome(resolution),
        resolution.comment ? `"${oneLine(commentText(resolution.comment), 60)}"` : undefined,
      ),
    progress: votesSummary,
    changedByAnswer: (resolution) => resolution.approvedArgs !== undefined,
    detailLines(action) {
      const votes = votesSummary(action);
      return [
        { text: action.title || `Run ${action.toolName}?`, tone: 'strong' },
        ...(action.summary ? [{ text: action.summary }] : []),
        ...(votes ? [{ text: votes, tone: 'dim' as const }] : []),
        { text: `Arguments of ${action.toolName}:`, tone: 'dim' },
        { text: jsonLines(action.args) },
      ];
    },
    detail: (action) => `${action.toolName}: ${argumentsLine(action.args)}`,
    searchText: (action) => [JSON.stringify(action.args)],
    answeredByLink: true,
    oneClickLinks: (_request, page) => ({ allow: `${page}?choice=allow`, deny: `${page}?choice=deny` }),
    oneClickAnswers: () => [
      { key: 'allow', label: 'Allow', answer: { type: 'approval', decision: 'allow' } },
      { key: 'deny', label: 'Deny', answer: { type: 'approval', decision: 'deny' } },
    ],
    oneClickChoice(action, params) {
      const choice = params.get('choice');
      if (choice !== 'allow' && choice !== 'deny') return undefined;
      return { view: action, label: choice === 'allow' ? 'Allow' : 'Deny', confirm: choice };
    },
    aiSdkApproval: true,
    aiSdkTitle: (action) => action.title || undefined,
    batch(action, decision) {
      // One press of a batch is one answer: a request decided by votes is voted on its own page.
      if (votesSummary(action)) return { refused: 'It is decided by votes: open it to cast yours.' };
      return decision === 'approve'
        ? { answer: { type: 'approval', decision: 'allow' }, runs: `${action.toolName}: ${argumentsLine(action.args)}` }
        : { answer: { type: 'approval', decision: 'deny' } };
    },
  },
});

/** How an approval ended, in a few words. */
function outcome(resolution: ApprovalResolution): string {
  if (resolution.decision === 'deny') return 'Denied';
  return resolution.approvedArgs !== undefined ? 'Allowed with changes' : 'Allowed';
}

/** Arguments at a glance: `orderId 1042 · amount 80 · reason “customer request”`, cut short. */
function argumentsLine(args: unknown): string {
  const text = isPlainObject(args)
    ? Object.entries(args)
        .map(([key, value]) => `${key} ${typeof value === 'string' ? `“${value}”` : JSON.stringify(value)}`)
        .join(' · ')
    : JSON.stringify(args ?? null);
  return clip(text, 140, '…');
}

/** A comment as stored: an object only on a deny, and at most 4,000 characters of JSON. */
function checkComment(comment: string | JsonObject, decision: 'allow' | 'deny'): string | JsonObject {
  if (typeof comment === 'string') return comment;
  if (decision !== 'deny') {
    throw new HeedError(
      'invalid_resolution',
      'A comment may be a JSON object only on a deny (it is then what the model reads for the call); on an allow, send text.',
      {
        details: { field: 'comment' },
      },
    );
  }
  const chars = JSON.stringify(comment).length;
  if (chars > MAX_COMMENT_CHARS) {
    throw new HeedError(
      'invalid_resolution',
      `The comment is ${chars} characters of JSON; at most ${MAX_COMMENT_CHARS} are accepted.`,
      {
        details: { field: 'comment', chars, maxChars: MAX_COMMENT_CHARS },
      },
    );
  }
  return comment;
}

/** What an edit is checked against: the tool's own schema, or the one a tool gave `ctx.approve`; none, nothing to check. */
function argsSchemas(
  action: ActionRecordOf<string, ApprovalRequest, unknown>,
  context: AnswerContext,
): ArgsSchemas | undefined {
  const definition = action.origin === 'tool' ? context.agent?.tools?.[action.toolName] : undefined;
  if (definition) return { validator: definition.inputSchema, jsonSchema: inputJsonSchema(definition) };
  if (action.request.argsSchema) return schemasFromJson(action.request.argsSchema);
  // A call no tool of the agent describes (a request made over HTTP, a tool gone from the config): with
  // no schema to check an edit against, it takes none.
  if (action.origin === 'tool')
    throw new HeedError(
      'invalid_approved_args',
      `The arguments of ${action.toolName} cannot be edited here: the request gave no argsSchema to check them against. Approve them as they are, or deny.`,
      { details: { field: 'approvedArgs' } },
    );
  return undefined;
}
