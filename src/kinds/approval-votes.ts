import type { ApprovalRequest } from './approval.js';

/**
 * How far an approval decided by votes has got, in one line: "1 of 2 approvals: bob allowed, cat denied".
 * Allows given for arguments that were edited since are left out of the count and marked. Undefined for
 * an approval one answer decides.
 */
export function votesSummary(action: Pick<ApprovalRequest, 'required' | 'votes' | 'approvers'>): string | undefined {
  if (action.required === undefined) return undefined;
  const votes = action.votes ?? [];
  const allows = votes.filter((vote) => vote.decision === 'allow' && !vote.outdated).length;
  const head = `${allows} of ${action.required} approval${action.required === 1 ? '' : 's'}`;
  const said = votes.map(
    (vote) =>
      `${vote.by}${vote.for !== undefined ? ` for ${vote.for}` : ''} ${vote.decision === 'allow' ? (vote.args !== undefined ? 'allowed edited arguments' : 'allowed') : 'denied'}${vote.outdated ? ' (before the edit)' : ''}`,
  );
  const voted = new Set(votes.filter((vote) => !vote.outdated).map((vote) => vote.for ?? vote.by));
  const waiting = (action.approvers ?? []).filter((id) => !voted.has(id));
  return `${head}${said.length ? `: ${said.join(', ')}` : ''}${waiting.length ? ` · waiting on ${waiting.join(', ')}` : ''}`;
}
