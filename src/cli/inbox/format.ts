import type { ActionView } from '../../client/index.js';
import { describeResolution as settledLine, nounOf } from '../../kinds/index.js';
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

/** The host of a URL as a person should check it (the URL kind's). */
export { hostOf } from '../../kinds/url.js';

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

/**
 * What an answer said, in a few words, as the inbox's sentences read it after `you:`: `allowed`,
 * `denied ("too much")`, `answered (Size: Small)`. The kind's settled line (`describeResolution`), the one
 * the console and Slack show, lower-cased.
 */
export function describeResolution(action: ActionView, resolution: StoredResolution | undefined): string {
  const line = settledLine(action, resolution);
  return line.charAt(0).toLowerCase() + line.slice(1);
}

/** Who settled it, as a sentence's subject: `bob`, `someone`, `the system`, `the deadline`. */
export function describeWho(settled: Pick<ActionView, 'resolvedBy' | 'answeredFor' | 'channel' | 'status'>): string {
  if (settled.status === 'expired' || settled.channel === 'timeout') return 'the deadline';
  // A delegate's answer names both (docs/approvals.md, Delegation).
  if (settled.resolvedBy)
    return settled.answeredFor ? `${settled.resolvedBy} for ${settled.answeredFor}` : settled.resolvedBy;
  if (settled.channel === 'system') return 'Heed';
  if (settled.channel === 'remembered') return 'a remembered approval';
  return 'someone';
}
