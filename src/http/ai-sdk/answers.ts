import type { ActionView } from '../../views.js';

/** A part of a UI message as the browser sent it: nothing in it is trusted but its tool call id and its answer. */
export type SentPart = Record<string, unknown>;

/** One answer found in the browser's last assistant message, for an action Heed stored. */
export interface FoundAnswer {
  action: ActionView;
  /** A resolution for `settleAction` (checked there against the stored action). */
  resolution: Record<string, unknown>;
}

export interface FoundAnswers {
  /** Answers to actions that are pending. */
  open: FoundAnswer[];
  /** Answers in the last step to actions already settled (elsewhere, or earlier): settling one gives the stored outcome as a 409/410. */
  settled: FoundAnswer[];
}

function isToolPart(part: SentPart): part is SentPart & { type: string; toolCallId: string; state: string } {
  return (
    typeof part.type === 'string' &&
    (part.type.startsWith('tool-') || part.type === 'dynamic-tool') &&
    typeof part.toolCallId === 'string' &&
    typeof part.state === 'string'
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads the answers the browser put on its last assistant message: `addToolApprovalResponse` leaves a
 * part `approval-responded` with `approval: { id, approved, reason? }`; `addToolOutput` leaves it
 * `output-available` with `output`, or `output-error` with `errorText`. Each is matched to the stored
 * action by tool call id (an approval also by its id); the part's input, name and anything else the
 * browser holds are ignored.
 */
export function findAnswers(parts: SentPart[], actions: ActionView[]): FoundAnswers {
  const lastStep = parts.reduce((index, part, at) => (part.type === 'step-start' ? at : index), -1);
  const found: FoundAnswers = { open: [], settled: [] };
  const seen = new Set<string>();
  parts.forEach((part, index) => {
    if (!isToolPart(part) || seen.has(part.toolCallId)) return;
    seen.add(part.toolCallId);
    const forCall = actions.filter((action) => action.toolCallId === part.toolCallId);
    let action = forCall.find((entry) => entry.status === 'pending');
    const approvalId = isObject(part.approval) && typeof part.approval.id === 'string' ? part.approval.id : undefined;
    // An approval answers the request it was shown for; one given for an earlier request of the same call is stale.
    if (action && part.state === 'approval-responded' && approvalId !== action.id) action = undefined;
    if (!action) {
      if (index < lastStep) return;
      action = part.state === 'approval-responded' ? forCall.find((entry) => entry.id === approvalId) : forCall.at(-1);
      if (!action) return;
      const resolution = resolutionFrom(part, action);
      if (resolution) found.settled.push({ action, resolution });
      return;
    }
    const resolution = resolutionFrom(part, action);
    if (resolution) found.open.push({ action, resolution });
  });
  return found;
}

/** The resolution a part's answer stands for, or undefined when the part holds no answer for this kind. */
function resolutionFrom(part: SentPart & { state: string }, action: ActionView): Record<string, unknown> | undefined {
  const answered = part.state === 'output-available';
  const failed = part.state === 'output-error';
  switch (action.kind) {
    case 'approval': {
      if (part.state !== 'approval-responded' || !isObject(part.approval)) return undefined;
      const { approved, reason } = part.approval;
      // Anything but a boolean is left for the resolution check to refuse (400, in its place in the order).
      const decision = approved === true ? 'allow' : approved === false ? 'deny' : approved;
      return { type: 'approval', decision, ...(typeof reason === 'string' && reason.trim() ? { comment: reason } : {}) };
    }
    case 'question': {
      if (failed) return { type: 'question', dismiss: true };
      if (!answered) return undefined;
      const output = part.output;
      // `{ answers }`, `{ skip: true }` or `{ dismiss: true }`; a bare record of answers is read as `{ answers }`.
      if (isObject(output) && ('answers' in output || 'skip' in output || 'dismiss' in output)) {
        const { answers, skip, dismiss } = output;
        return { type: 'question', answers, skip, dismiss };
      }
      return { type: 'question', answers: output };
    }
    case 'client_tool':
      if (failed) return { type: 'client_tool', error: typeof part.errorText === 'string' ? part.errorText : 'The page could not run the tool.' };
      return answered ? { type: 'client_tool', output: part.output } : undefined;
    case 'url': {
      if (failed) return { type: 'url', decision: 'cancel' };
      if (!answered) return undefined;
      const decision = isObject(part.output) ? part.output.decision : undefined;
      return { type: 'url', decision };
    }
  }
}
