import type { ActionView } from '../../client/index.js';
import { presentationOf, summaryOf as kindSummary } from '../../kinds/index.js';
import { commentText } from '../../kinds/comment-text.js';
import type { StoredResolution } from '../../types.js';

/** What each kind is called on screen; a kind left out is called by its name. */
const KIND_WORDS: Partial<Record<ActionView['kind'], string>> = {
  approval: 'Approval',
  question: 'Question',
  client_tool: 'Page tool',
  url: 'Open URL',
};

/** What the action's kind is called on screen. */
export function kindWord(action: ActionView): string {
  return KIND_WORDS[action.kind] ?? action.kind;
}

/** One line saying what the action asks: the approval's title, the first question, the URL's title (another kind's own summary). */
export function summaryOf(action: ActionView): string {
  if (action.kind === 'approval') return action.title || `Run ${action.toolName}?`;
  if (action.kind === 'url') return action.title || action.url || 'Open a page';
  if (action.kind === 'client_tool') return `${action.toolName} (answered by the page)`;
  if (action.kind !== 'question') return kindSummary(action);
  const questions = action.questions ?? [];
  const first = questions[0]?.prompt ?? 'A question';
  return questions.length > 1 ? `${first} (+${questions.length - 1} more)` : first;
}

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
      const word = resolution.decision === 'allow' ? (resolution.approvedArgs !== undefined ? 'allowed with edited arguments' : 'allowed') : 'denied';
      return resolution.comment ? `${word} ("${fit(commentText(resolution.comment), 60)}")` : word;
    }
    case 'question': {
      if ('dismiss' in resolution) return 'dismissed';
      const picked = Object.entries(resolution.answers).map(([id, values]) => {
        const question = action.kind === 'question' ? action.questions.find((candidate) => candidate.id === id) : undefined;
        const labels = values.map((value) => question?.options?.find((option) => option.value === value)?.label ?? value);
        return `${question?.header ?? id}: ${labels.join(', ')}`;
      });
      const word = 'skip' in resolution ? 'skipped' : 'answered';
      return picked.length ? `${word} (${fit(picked.join('; '), 80)})` : word;
    }
    case 'url':
      return resolution.decision === 'accept' ? 'accepted' : resolution.decision === 'decline' ? 'declined' : 'cancelled';
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
