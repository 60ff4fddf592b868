import { describeResolution, detailOf, oneClickAnswersOf, summaryOf } from '../kinds/index.js';
import type { ActionView } from '../views.js';
import { askedLine, askerOf } from './email.js';
import type { ActionLinks } from './links.js';

/** One of a notification's buttons, and the answer the service worker sends when it is pressed. */
export interface PushChoice {
  action: string;
  title: string;
  answer: Record<string, unknown>;
}

/**
 * What a push carries (docs/notifications.md, Push): `url` opens the request in the console, `link` is the
 * answer link for that action and person, `actions` the one-click choices. `tag` is the action's id, so a
 * later push about the same request (a reminder, its settling) replaces the notification; `settled` says
 * it is closed (no buttons, nothing to answer).
 */
export interface PushPayload {
  title: string;
  body: string;
  url: string;
  link?: string;
  actions: PushChoice[];
  tag: string;
  settled?: boolean;
  reminder?: boolean;
}

/** The encrypted record holds 3,993 bytes of text at most; this leaves room to spare. */
export const MAX_PAYLOAD_BYTES = 3_000;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const size = (payload: PushPayload) => Buffer.byteLength(JSON.stringify(payload));

/** The request's one-click answers (its kind says which) as buttons: only with a link to send them through. */
function choicesOf(action: ActionView, links: ActionLinks | undefined): PushChoice[] {
  if (!links) return [];
  return oneClickAnswersOf(action).map((choice) => ({
    action: choice.key,
    title: clip(choice.label, 40),
    answer: choice.answer,
  }));
}

/** The push about a request that waits (or a reminder of it), for one person. */
export function requestPush(input: {
  action: ActionView;
  conversation: { id: string; agent: string; ownerId: string | null; channel?: string | null };
  links: ActionLinks | undefined;
  consoleUrl: string;
  reminder?: boolean;
}): PushPayload {
  const { action, conversation, links } = input;
  const detail = detailOf(action);
  const lines = [
    ...(input.reminder && action.expiresAt ? [`Reminder: lapses ${new Date(action.expiresAt).toUTCString()}.`] : []),
    askedLine(askerOf(conversation)),
  ];
  const payload: PushPayload = {
    title: clip(`${conversation.agent}: ${summaryOf(action)}`, 120),
    body: [...lines, ...(detail ? [clip(detail, 300)] : [])].join('\n'),
    url: input.consoleUrl,
    ...(links ? { link: links.page } : {}),
    actions: choicesOf(action, links),
    tag: action.id,
    ...(input.reminder ? { reminder: true } : {}),
  };
  // Long arguments are the first to go (the page behind `url` shows them), then the one-click choices.
  if (size(payload) > MAX_PAYLOAD_BYTES) payload.body = lines.join('\n');
  if (size(payload) > MAX_PAYLOAD_BYTES) payload.actions = [];
  return payload;
}

/** The push that closes a request's notification: how it ended, with nothing to press. */
export function settledPush(input: {
  action: ActionView;
  conversation: { id: string; agent: string };
  consoleUrl: string;
}): PushPayload {
  const { action, conversation } = input;
  const by = action.resolvedBy && action.status === 'resolved' ? ` (by ${action.resolvedBy})` : '';
  return {
    title: clip(`${conversation.agent}: ${summaryOf(action)}`, 120),
    body: clip(`${describeResolution(action)}${by}.`, 300),
    url: input.consoleUrl,
    actions: [],
    tag: action.id,
    settled: true,
  };
}
