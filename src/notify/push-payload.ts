import { describeResolution, detailOf, summaryOf } from '../kinds/index.js';
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

/**
 * The one-click choices of a request, read from the same one-click links a mail offers (the kind says
 * which): an approval's Allow and Deny, and the options of a request that asks one question with one
 * choice (with several questions, one press cannot answer them all).
 */
function choicesOf(action: ActionView, links: ActionLinks): PushChoice[] {
  if (links.allow && links.deny)
    return [
      { action: 'allow', title: 'Allow', answer: { type: action.kind, decision: 'allow' } },
      { action: 'deny', title: 'Deny', answer: { type: action.kind, decision: 'deny' } },
    ];
  const questions = action.kind === 'question' ? (action.questions ?? []) : [];
  const only = questions.length === 1 && !questions[0].multiple ? questions[0] : undefined;
  const options = only && links.options?.[only.id];
  if (!only || !options) return [];
  return (only.options ?? [])
    .filter((option) => options[option.value] !== undefined)
    .map((option, index) => ({
      action: `option-${index}`,
      title: clip(option.label, 40),
      answer: { type: 'question', answers: { [only.id]: [option.value] } },
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
    actions: links ? choicesOf(action, links) : [],
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
