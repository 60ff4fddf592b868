import type { ActionRecord, StoredResolution } from '../types.js';

/** Whether an answer allows other arguments than the ones asked about. */
export function editedArguments(resolution: StoredResolution, action: ActionRecord): boolean {
  if (!('approvedArgs' in resolution) || resolution.approvedArgs === undefined) return false;
  const asked = 'args' in action.request ? action.request.args : undefined;
  return JSON.stringify(resolution.approvedArgs) !== JSON.stringify(asked);
}
