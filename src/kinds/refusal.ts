import type { ActionRecordOf } from '../protocol/action-base.js';
import type { JsonObject } from '../protocol/values.js';
import type { ModelReads, ModelReadsOptions } from './kind.js';

/** What the model reads when a person dismissed a question (or a tool's ask); the turn stops after it. */
export const DISMISSED = 'Dismissed by the user.';

/** Why a call did not run, as the model reads it. */
export function refusal(
  action: ActionRecordOf<string, unknown, { type: string; decision?: string; comment?: string | JsonObject }>,
  options: ModelReadsOptions = {},
): ModelReads {
  const resolution = action.resolution;
  let value = 'The call did not run.';
  if (action.status === 'cancelled') value = 'Cancelled: the request was withdrawn before anyone answered.';
  else if (action.status === 'expired' && options.lapseMessage) value = options.lapseMessage;
  else if (action.status === 'expired' && action.kind === 'approval')
    value = 'Nobody answered in time, so the call was not approved and did not run.';
  else if (resolution?.type === 'approval' && resolution.decision === 'deny') {
    // An object is the call's whole result, as the person gave it (seed 004's structured decline).
    if (typeof resolution.comment === 'object')
      return { output: { type: 'json', value: resolution.comment }, isError: true };
    value = `The user denied this call.${resolution.comment ? ` Their comment: ${resolution.comment}` : ''}`;
  }
  return { output: { type: 'error-text', value } };
}
