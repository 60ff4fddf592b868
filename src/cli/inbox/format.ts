import type { ActionView } from '../../client/index.js';
import { nounOf, presentationOf } from '../../kinds/index.js';
import { commentText } from '../../kinds/comment-text.js';
import type { StoredResolution } from '../../types.js';

/** What the action's kind is called on screen: its kind's `noun`. */
export const kindWord = nounOf;

/** A short span of time: `45s`, `12m`, `3h`, `2d`. */
export function shortSpan(milliseconds: number): string {
  const seconds = Math.max(0, Math.round(milliseconds / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h`;
  return `${Math.floor(hours / 24)}d`;
}

/** How long ago it was asked. */
export function ageOf(action: ActionView, now: number): string {
  return `${shortSpan(now - Date.parse(action.createdAt))} ago`;
}

/** Time left before it lapses: `12m left`, `lapsed`, or empty when it never lapses. */
export function timeLeftOf(action: ActionView, now: number): string {
  if (!action.expiresAt) return '';
  const left = Date.parse(action.expiresAt) - now;
  return left <= 0 ? 'lapsing' : `${shortSpan(left)} left`;
}

/** The host of a URL as a person should check it, or the URL itself when it does not parse. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** Cuts a text to `width` characters, ending with `…` when cut; newlines become spaces. */
export function fit(text: string, width: number): string {
  const flat = text.replace(/[\r\n\t]+/g, ' ');
  if (width <= 0) return '';
  const characters = Array.from(flat);
  return characters.length <= width ? flat : `${characters.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/** Pads (or cuts) to exactly `width` characters. */
export function column(text: string, width: number): string {
  const cut = fit(text, width);
  return cut + ' '.repeat(Math.max(0, width - Array.from(cut).length));
}

/** What an answer said, in a few words: `allowed`, `denied ("too much")`, `answered Size: Small`, `lapsed`. */
export function describeResolution(action: ActionView, resolution: StoredResolution | undefined): string {
  if (!resolution) return 'settled';
  switch (resolution.type) {
    case 'approval': {
      const word =
        resolution.decision === 'allow'
          ? resolution.approvedArgs !== undefined
            ? 'allowed with edited arguments'
            : 'allowed'
          : 'denied';
      return resolution.comment ? `${word} ("${fit(commentText(resolution.comment), 60)}")` : word;
    }
    case 'question': {
      if ('dismiss' in resolution) return 'dismissed';
      const picked = Object.entries(resolution.answers).map(([id, values]) => {
        const question =
          action.kind === 'question' ? action.questions.find((candidate) => candidate.id === id) : undefined;
        const labels = values.map(
          (value) => question?.options?.find((option) => option.value === value)?.label ?? value,
        );
        return `${question?.header ?? id}: ${labels.join(', ')}`;
      });
      const word = 'skip' in resolution ? 'skipped' : 'answered';
      return picked.length ? `${word} (${fit(picked.join('; '), 80)})` : word;
    }
    case 'url':
      return resolution.decision === 'accept'
        ? 'accepted'
        : resolution.decision === 'decline'
          ? 'declined'
          : 'cancelled';
    case 'client_tool':
      return 'error' in resolution ? 'answered by the page with an error' : 'answered by the page';
    case 'cancelled':
      return 'cancelled';
    default:
      // A kind with nothing of its own here: how its kind says it ended.
      return presentationOf(action.kind).outcome(resolution).toLowerCase();
  }
}

/** Who settled it, as a sentence's subject: `bob`, `someone`, `the system`, `the deadline`. */
export function describeWho(settled: Pick<ActionView, 'resolvedBy' | 'channel' | 'status'>): string {
  if (settled.status === 'expired' || settled.channel === 'timeout') return 'the deadline';
  if (settled.resolvedBy) return settled.resolvedBy;
  if (settled.channel === 'system') return 'Heed';
  if (settled.channel === 'remembered') return 'a remembered approval';
  return 'someone';
}
