/** How far an approval decided by votes has got, in one line (the approval kind's own words). */
export { votesSummary } from '../../kinds/approval-votes.js';
