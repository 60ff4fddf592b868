import { isGroupEntry, names } from '../../groups.js';
import type { ActionView } from '../../views.js';

/** Who a pending request waits on, as the viewer sees it. */
export interface WhoDecides {
  /** False when the viewer may not answer it now: the server would refuse them, so no controls are shown. */
  mayAnswer: boolean;
  /** Whom it waits on, in a line ("Waiting for 2 of: bob, cat"); set for an approval decided by votes. */
  waitingFor?: string;
  /** Why the viewer may not answer, in a sentence; set when `mayAnswer` is false. */
  reason?: string;
}

/**
 * Who decides a pending request, for the viewer `me` (undefined or null when the page does not know who
 * they are: then the controls stay and the server decides). Only an approval decided by votes
 * (docs/approvals.md) leaves anyone out: the conversation's owner under four eyes (`excludeRequester`),
 * someone not among the named approvers, and whoever has a vote that still counts. `standsFor`: the people
 * whose delegation the viewer holds (`GET /api/me/delegation`): the viewer may also vote in their place.
 * `groups`: the viewer's groups (`GET /api/me`), for `group:<name>` approvers; unknown, such an approval keeps
 * the controls and the server decides.
 */
export function whoDecides(
  action: ActionView,
  viewer: { me?: string | null; ownerId?: string | null; standsFor?: string[]; groups?: string[] },
): WhoDecides {
  if (action.kind !== 'approval' || action.required === undefined || action.status !== 'pending')
    return { mayAnswer: true };
  const votes = action.votes ?? [];
  const counted = votes.filter((vote) => !vote.outdated);
  const allows = counted.filter((vote) => vote.decision === 'allow').length;
  const needed = Math.max(1, action.required - allows);
  // A delegate's vote counts as the approver's it was given for (docs/approvals.md, Delegation).
  const voted = new Set(counted.map((vote) => vote.for ?? vote.by));
  const requester = action.excludeRequester ? (viewer.ownerId ?? undefined) : undefined;
  const left = (action.approvers ?? []).filter((id) => !voted.has(id) && id !== requester);
  const me = viewer.me ?? undefined;
  const name = (id: string) => (id === me ? 'you' : id);
  const waitingFor = action.approvers
    ? `Waiting for ${needed} of: ${left.length ? left.map(name).join(', ') : 'nobody left to vote'}`
    : `Waiting for ${needed} more approval${needed === 1 ? '' : 's'}${requester ? ` from someone other than ${name(requester)}` : ''}`;
  if (!me) return { mayAnswer: true, waitingFor };
  // A seat the viewer may fill for someone who delegated to them (never the requester's own under four eyes).
  const delegated =
    requester !== me &&
    (viewer.standsFor ?? []).some(
      (id) =>
        id !== requester &&
        !voted.has(id) &&
        (action.approvers ? action.approvers.includes(id) : id === viewer.ownerId),
    );
  if (delegated) return { mayAnswer: true, waitingFor };
  if (requester === me)
    return { mayAnswer: false, waitingFor, reason: 'You asked for this, so someone else must approve it (four eyes).' };
  const mine = counted.find((vote) => vote.by === me);
  if (mine)
    return {
      mayAnswer: false,
      waitingFor,
      reason: `You ${mine.decision === 'allow' ? 'allowed' : 'denied'} it; the others decide the rest.`,
    };
  const unknownGroups = viewer.groups === undefined && action.approvers?.some(isGroupEntry);
  if (action.approvers && !unknownGroups && !names(action.approvers, { userId: me, groups: viewer.groups }))
    return { mayAnswer: false, waitingFor, reason: 'You are not one of its approvers.' };
  return { mayAnswer: true, waitingFor };
}
