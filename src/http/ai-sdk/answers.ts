import { kindOf } from '../../kinds/index.js';
import { isPlainObject } from '../../kinds/plain-object.js';
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
    const approvalId =
      isPlainObject(part.approval) && typeof part.approval.id === 'string' ? part.approval.id : undefined;
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
  return kindOf(action.kind).answerFromUiPart(part);
}
