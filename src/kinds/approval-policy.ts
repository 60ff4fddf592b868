import { HeedError } from '../errors.js';
import { GROUP_PREFIX, isGroupEntry, names, type Member } from '../groups.js';
import type { JsonObject, JsonValue } from '../protocol/values.js';
import type { ApprovalRequest, ApprovalResolution, ApprovalVote } from './approval.js';
import { commentText } from './comment-text.js';
import type { ConversationView } from '../protocol/conversation.js';
import type { ActionRecord } from './index.js';

/** Who decides an approval, given as a list of user ids and `group:<name>` entries, or worked out from the call. */
export type ApproverList<Input = any> =
  string[] | ((input: Input, context: { conversation: ConversationView }) => string[] | Promise<string[]>);

/**
 * An approval decided by votes (docs/approvals.md). Without it, one answer from whoever may answer the
 * conversation decides (docs/concepts.md, "Who may answer").
 */
export interface ApprovalPolicy<Input = any> {
  /**
   * User ids and `group:<name>` entries who may vote (a group's members each vote once, as themselves).
   * Absent: whoever may answer the conversation (its owner; anyone signed in, for an ownerless one).
   */
  approvers?: ApproverList<Input>;
  /** Distinct allows needed; default 1. */
  required?: number;
  /** `any` (default): one deny refuses. `majority`: see `denyDecides`. */
  deny?: 'any' | 'majority';
  /** The conversation's owner may not vote (four eyes). */
  excludeRequester?: boolean;
  /** Adds approvers when `afterMinutes` pass without a decision; the action's lapse time does not move. */
  escalate?: { afterMinutes: number; to: ApproverList<Input> };
}

/** What is wrong with a policy, each line naming the field under `path`; empty when it is fine. */
export function approvalPolicyProblems(policy: unknown, path: string): string[] {
  if (policy === undefined) return [];
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) return [`${path}: must be an object.`];
  const problems: string[] = [];
  const p = policy as Record<string, unknown>;
  for (const key of Object.keys(p)) {
    if (!['approvers', 'required', 'deny', 'excludeRequester', 'escalate'].includes(key))
      problems.push(`${path}.${key}: is not a setting of approval.`);
  }
  const list = (value: unknown, at: string) => {
    if (typeof value === 'function') return;
    if (!Array.isArray(value) || value.some((id) => typeof id !== 'string' || id.length === 0)) {
      problems.push(`${at}: must be a list of user ids or a function returning one.`);
    } else if (value.some((id) => id === GROUP_PREFIX)) {
      problems.push(`${at}: "${GROUP_PREFIX}" needs a group name after it (${GROUP_PREFIX}finance).`);
    } else if (new Set(value).size !== value.length) problems.push(`${at}: names a user twice.`);
  };
  if (p.approvers !== undefined) list(p.approvers, `${path}.approvers`);
  if (p.required !== undefined && (!Number.isInteger(p.required) || (p.required as number) < 1)) {
    problems.push(`${path}.required: must be a whole number of at least 1.`);
  } else if (
    Array.isArray(p.approvers) &&
    p.escalate === undefined &&
    // A group may hold any number of people: only a list of user ids alone can be counted.
    !p.approvers.some((id) => typeof id === 'string' && isGroupEntry(id)) &&
    ((p.required ?? 1) as number) > p.approvers.length
  ) {
    problems.push(
      `${path}.required: asks for ${p.required} allows but only ${p.approvers.length} approvers are named.`,
    );
  }
  if (p.deny !== undefined && p.deny !== 'any' && p.deny !== 'majority')
    problems.push(`${path}.deny: must be "any" or "majority".`);
  if (p.excludeRequester !== undefined && typeof p.excludeRequester !== 'boolean')
    problems.push(`${path}.excludeRequester: must be true or false.`);
  if (p.escalate !== undefined) {
    const escalate = p.escalate as Record<string, unknown> | null;
    if (typeof escalate !== 'object' || escalate === null)
      problems.push(`${path}.escalate: must be { afterMinutes, to }.`);
    else {
      if (
        typeof escalate.afterMinutes !== 'number' ||
        !(escalate.afterMinutes > 0) ||
        !Number.isFinite(escalate.afterMinutes)
      ) {
        problems.push(`${path}.escalate.afterMinutes: must be a number of minutes above 0.`);
      }
      list(escalate.to, `${path}.escalate.to`);
    }
  }
  return problems;
}

/** Throws `invalid_config` when the policy is malformed. */
export function checkApprovalPolicy(policy: unknown, path: string): void {
  const problems = approvalPolicyProblems(policy, path);
  if (problems.length) throw new HeedError('invalid_config', problems.join(' '), { details: { path } });
}

/** The request fields a policy adds when the approval is asked: lists worked out now and kept with the action. */
export async function policyFields(
  policy: ApprovalPolicy,
  input: unknown,
  conversation: ConversationView,
  now: Date,
): Promise<Partial<ApprovalRequest>> {
  const resolve = async (list: ApproverList, what: string): Promise<string[]> => {
    const ids = typeof list === 'function' ? await list(input, { conversation }) : list;
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string' || id.length === 0)) {
      throw new HeedError('invalid_config', `The approval's ${what} function must return a list of user ids.`);
    }
    return [...new Set(ids)].filter((id) => !(policy.excludeRequester && id === conversation.ownerId));
  };
  const fields: Partial<ApprovalRequest> = {
    required: policy.required ?? 1,
    deny: policy.deny ?? 'any',
    votes: [],
    canRemember: false,
  };
  if (policy.approvers !== undefined) fields.approvers = await resolve(policy.approvers, 'approvers');
  if (policy.excludeRequester) fields.excludeRequester = true;
  if (policy.escalate) {
    const at = new Date(now.getTime() + policy.escalate.afterMinutes * 60_000).toISOString();
    fields.escalate = { at, to: await resolve(policy.escalate.to, 'escalate.to') };
  }
  return fields;
}

/** True for an approval decided by votes. */
export function isVoted(request: ActionRecord['request']): request is ApprovalRequest & { required: number } {
  return request.kind === 'approval' && request.required !== undefined;
}

/**
 * True when the action names this person among its approvers, by user id or through one of their groups (so
 * they may read the conversation and vote on it), or, for a request made with `POST /api/requests`, among
 * its assignees (so they may answer it).
 */
export function namesApprover(action: ActionRecord, who: Member | null | undefined): boolean {
  return 'approvers' in action.request && names(action.request.approvers, who);
}

/**
 * Whether this person may vote now. `sees`: they may answer the conversation under the usual rule (docs/concepts.md, "Who may answer"),
 * which is who votes when the policy names nobody.
 */
export function mayVote(request: ApprovalRequest, who: Member, ownerId: string | null, sees: boolean): boolean {
  if (who.userId === null) return false;
  if (request.excludeRequester && who.userId === ownerId) return false;
  return request.approvers ? names(request.approvers, who) : sees;
}

/** Whose vote a vote is: the approver it was given for (a delegate's vote counts as theirs), else its voter. */
export function voteOf(vote: Pick<ApprovalVote, 'by' | 'for'>): string {
  return vote.for ?? vote.by;
}

/** The vote this user gave (or a delegate gave for them) that still counts (an allow for replaced arguments does not). */
export function currentVote(request: ApprovalRequest, userId: string): ApprovalVote | undefined {
  return request.votes?.find((vote) => voteOf(vote) === userId && !vote.outdated);
}

export interface VoteOutcome {
  /** The request with the vote in it (what a vote that does not decide stores). */
  request: ApprovalRequest;
  vote: ApprovalVote;
  /** Set when this vote decides the action. */
  decided?: { resolution: ApprovalResolution; eventStatus: 'approved' | 'rejected' };
}

/**
 * Counts one vote. An allow with new arguments proposes them: the allows given for the old ones stop
 * counting (their voters may vote again). Allows decide once `required` count. A deny decides at once
 * under `deny: 'any'`; under `majority` (see `denyDecides`) when enough have denied. `answeredFor`: the
 * approver whose vote a delegate gives (docs/approvals.md, Delegation).
 */
export function castVote(
  request: ApprovalRequest & { required: number },
  voter: string,
  answer: { decision: 'allow' | 'deny'; comment?: string | JsonObject; approvedArgs?: JsonValue },
  at: string,
  answeredFor?: string,
): VoteOutcome {
  const vote: ApprovalVote = {
    by: voter,
    ...(answeredFor !== undefined ? { for: answeredFor } : {}),
    decision: answer.decision,
    at,
    ...(answer.comment ? { comment: answer.comment } : {}),
  };
  let votes = [...(request.votes ?? [])];
  let next: ApprovalRequest = { ...request };
  if (
    answer.decision === 'allow' &&
    answer.approvedArgs !== undefined &&
    JSON.stringify(answer.approvedArgs) !== JSON.stringify(request.args)
  ) {
    votes = votes.map((entry) =>
      entry.decision === 'allow' && !entry.outdated ? { ...entry, outdated: true as const } : entry,
    );
    vote.args = answer.approvedArgs;
    next = {
      ...next,
      args: answer.approvedArgs,
      originalArgs: request.originalArgs !== undefined ? request.originalArgs : request.args,
    };
  }
  votes.push(vote);
  next.votes = votes;
  const allows = votes.filter((entry) => entry.decision === 'allow' && !entry.outdated).length;
  const denies = votes.filter((entry) => entry.decision === 'deny').length;
  if (answer.decision === 'allow' && allows >= request.required) {
    const resolution: ApprovalResolution = { type: 'approval', decision: 'allow', votes };
    if (answer.comment) resolution.comment = answer.comment;
    if (next.originalArgs !== undefined) resolution.approvedArgs = next.args;
    return { request: next, vote, decided: { resolution, eventStatus: 'approved' } };
  }
  if (answer.decision === 'deny' && denyDecides({ ...next, required: request.required }, denies)) {
    const comments = votes.flatMap((entry) => (entry.decision === 'deny' && entry.comment ? [entry.comment] : []));
    const resolution: ApprovalResolution = { type: 'approval', decision: 'deny', votes };
    // One comment stands as given (an object is then the call's whole result); several are joined as text.
    if (comments.length)
      resolution.comment = comments.length === 1 ? comments[0] : comments.map(commentText).join(' / ');
    return { request: next, vote, decided: { resolution, eventStatus: 'rejected' } };
  }
  return { request: next, vote };
}

/**
 * When denies refuse the action. `any`: the first deny. `majority`, with n named approvers and d denies:
 * when 2d > n (most approvers said no), or when d > n − required (too few are left to reach `required`
 * allows, even if every one of them allowed). With nobody named, or a group named (n unknown): when d
 * reaches `required`.
 */
export function denyDecides(request: ApprovalRequest & { required: number }, denies: number): boolean {
  if (denies === 0) return false;
  if ((request.deny ?? 'any') === 'any') return true;
  // A group may hold any number of people: with one named, how many may vote is unknown too.
  if (!request.approvers || request.approvers.some(isGroupEntry)) return denies >= request.required;
  const n = request.approvers.length;
  return 2 * denies > n || denies > n - request.required;
}

/** When the sweep must escalate this action; null when it has no escalation or it happened. */
export function escalationDue(action: ActionRecord): string | null {
  if (action.status !== 'pending' || action.request.kind !== 'approval') return null;
  const escalate = action.request.escalate;
  return escalate && !escalate.escalatedAt ? escalate.at : null;
}

/** The request once escalated: the escalation's people join the approvers (never the requester when excluded). */
export function escalatedRequest(
  request: ApprovalRequest,
  ownerId: string | null,
  at: string,
): { request: ApprovalRequest; added: string[] } {
  const escalate = request.escalate!;
  // Nobody named: the owner was deciding; from now on the owner and the escalation's people are named.
  const before = request.approvers ?? (ownerId !== null && !request.excludeRequester ? [ownerId] : []);
  const added = escalate.to.filter((id) => !before.includes(id) && !(request.excludeRequester && id === ownerId));
  return {
    request: { ...request, approvers: [...before, ...added], escalate: { ...escalate, escalatedAt: at } },
    added,
  };
}
