import { HeedError } from '../errors.js';
import type { ActionKind } from './kind.js';
import { isPlainObject } from './plain-object.js';
import { refusal } from './refusal.js';

/** Only http and https addresses are ever shown to a person as something to open. */
export function isAllowedUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** URL requests: a person is asked to open a page and says whether they did (accept, decline or cancel). */
export const url: ActionKind<'url'> = {
  kind: 'url',
  viewsToolArgs: false,
  checkRequest(request) {
    if (!isAllowedUrl(request.url)) throw new HeedError('invalid_request', 'Only http and https addresses can be offered to a person.');
    return request;
  },

  checkAnswer: (answer) => ({
    stored: { type: 'url', decision: answer.decision },
    eventStatus: answer.decision === 'accept' ? 'answered' : 'rejected',
    defaulted: null,
  }),

  // A URL is asked only by a running tool (ctx.openUrl), which reads the answer itself.
  modelReads: refusal,

  lapse: () => ({ resolution: { type: 'url', decision: 'cancel' }, status: 'expired', defaulted: null }),

  answerFromUiPart(part) {
    if (part.state === 'output-error') return { type: 'url', decision: 'cancel' };
    if (part.state !== 'output-available') return undefined;
    const decision = isPlainObject(part.output) ? part.output.decision : undefined;
    return { type: 'url', decision };
  },
};
