import { z } from 'zod';
import { assigneesField } from '../protocol/action-base.js';
import { HeedError } from '../errors.js';
import { defineKind } from './kind.js';
import { expiresInMinutesField, raisedTitle, raiseShape } from './raise.js';
import { oneLine } from './one-line.js';
import { isPlainObject } from './plain-object.js';
import { refusal } from './refusal.js';

/** Only http and https addresses are ever shown to a person as something to open. */
export function isAllowedUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    // Not a URL: that is the answer.
    return false;
  }
}

/** The host of a URL as a person should check it, or the URL itself when it does not parse. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    // Not a URL: shown as it is.
    return url;
  }
}

const decision = z.enum(['accept', 'decline', 'cancel']);

/** How a URL request ended, in a few words. */
function urlOutcome(resolution: { decision: z.output<typeof decision> }): string {
  return resolution.decision === 'accept' ? 'Opened' : resolution.decision === 'decline' ? 'Declined' : 'Not now';
}

/** URL requests: a person is asked to open a page and says whether they did (accept, decline or cancel). */
export const url = defineKind({
  docName: 'Url',
  request: z.strictObject({
    kind: z.literal('url'),
    url: z.string(),
    title: z.string().optional(),
    message: z.string().optional(),
    approvers: assigneesField,
  }),
  answer: z.strictObject({ type: z.literal('url'), decision }),
  stored: [z.strictObject({ type: z.literal('url'), decision })],
}).rules({
  raisedByTools: true,
  raise: raiseShape(
    z.strictObject({
      kind: z.literal('url'),
      url: z.string(),
      title: raisedTitle.optional(),
      message: z.string().optional(),
      expiresInMinutes: expiresInMinutesField,
    }),
    ({ expiresInMinutes, ...raised }) => ({
      raised,
      ...(expiresInMinutes !== undefined ? { expiresInMinutes } : {}),
    }),
  ),
  viewsToolArgs: false,
  checkRequest(request) {
    if (!isAllowedUrl(request.url))
      throw new HeedError('invalid_request', 'Only http and https addresses can be offered to a person.');
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

  resolvedDetails: (resolution) => ({ decision: resolution.decision }),

  // A URL answer has no note: one given is sent along, and refused by name rather than lost.
  decline: (note) => ({ type: 'url', decision: 'decline', ...(note !== undefined ? ({ note } as object) : {}) }),
  // Seed 004: answering a page to visit says the person agreed to go.
  agree: () => ({ type: 'url', decision: 'accept' }),

  a2aPause: 'input_required',
  agUi: {
    reason: 'input_required',
    answerFromResume: (status, payload) =>
      status === 'cancelled'
        ? { type: 'url', decision: 'cancel' }
        : isPlainObject(payload)
          ? { ...payload, type: 'url' }
          : { type: 'url', decision: payload },
  },

  answerFromUiPart(part) {
    if (part.state === 'output-error') return { type: 'url', decision: 'cancel' };
    if (part.state !== 'output-available') return undefined;
    const decision = isPlainObject(part.output) ? part.output.decision : undefined;
    return { type: 'url', decision };
  },

  presentation: {
    title: (action) => action.title || 'Open a page',
    summary: (action) => `Please open: ${oneLine(action.title ?? action.url ?? 'a page')}`,
    noun: 'Open URL',
    headline: (action) => action.title || action.url || 'Open a page',
    outcome: urlOutcome,
    describeResolution: (_action, resolution) => urlOutcome(resolution),
    detailLines: (action) => [
      { text: action.title ?? 'The agent asks you to open a page', tone: 'strong' },
      ...(action.message ? [{ text: action.message }] : []),
      { text: `Host: ${hostOf(action.url ?? '')}` },
      { text: action.url ?? '' },
    ],
    // The title stands for the address in the headline: the address itself goes under it.
    detail: (action) => (action.title ? action.url : undefined),
    searchText: (action) => [action.url, action.message],
    answeredByLink: true,
    oneClickLinks: () => ({}),
    aiSdkApproval: false,
    aiSdkTitle: () => undefined,
    // The card's own buttons; opening the page is left to whatever shows them.
    choices: () => [
      { label: 'Done', answer: { type: 'url', decision: 'accept' }, primary: true },
      { label: 'Decline', answer: { type: 'url', decision: 'decline' } },
      { label: 'Not now', answer: { type: 'url', decision: 'cancel' } },
    ],
    // Only the person can say they opened the page; declining it needs no visit.
    batch: (_action, decision) =>
      decision === 'approve'
        ? { refused: 'Only you can say you opened the page: open it to do so.' }
        : { answer: { type: 'url', decision: 'decline' } },
  },
});
