import { commentText } from '../../kinds/comment-text.js';
import { toolResults } from '../../protocol/tool-results.js';
import type { JsonValue, ToolOutput } from '../../types.js';
import type { ActionView, MessageView } from '../../views.js';

/** One thing a chat shows, in order. */
export type TranscriptItem =
  /** `queued`: sent while a turn ran, waiting for it (its place in the queue, 1 runs next). */
  | { type: 'user'; id: string; text: string; createdAt?: string; queued?: number }
  | { type: 'assistant'; id: string; text: string; streaming: boolean }
  | {
      type: 'tool';
      id: string;
      toolCallId: string;
      toolName: string;
      input: JsonValue;
      output?: ToolOutput;
      notRun?: NotRun;
    }
  /** A request that was settled (or closed); pending ones are answered in the dock instead. */
  | { type: 'action'; id: string; action: ActionView };

/** Why a call that needed a person did not run: they denied it (with their comment), nobody answered in time, or it was withdrawn. */
export interface NotRun {
  reason: 'denied' | 'timed out' | 'cancelled';
  comment?: string;
}

/** Why the call an approval guarded did not run; undefined when it ran (or is still waiting). */
function notRunBy(actions: ActionView[]): NotRun | undefined {
  const approval = actions.find((action) => action.kind === 'approval');
  if (!approval) return undefined;
  if (approval.status === 'expired') return { reason: 'timed out' };
  if (approval.status === 'cancelled') return { reason: 'cancelled' };
  const resolution = approval.resolution;
  if (approval.status !== 'resolved' || resolution?.type !== 'approval' || resolution.decision !== 'deny')
    return undefined;
  // A lapse under `deny` is recorded as a refusal too, by the time limit.
  if (approval.channel === 'timeout') return { reason: 'timed out' };
  return { reason: 'denied', ...(resolution.comment ? { comment: commentText(resolution.comment) } : {}) };
}

/** Tool calls that only exist to carry a request: the request's card says it all. */
const CARRIER_TOOLS = new Set(['intake', 'ask']);

/**
 * The transcript of a conversation: user and assistant text, tool calls with their results, and the
 * cards of settled requests where they were asked; then text still being streamed, and last the
 * messages queued behind the running turn.
 */
export function buildTranscript(
  messages: MessageView[],
  streaming: Array<{ messageId: string; text: string }> = [],
  queued: Array<{ id: string; text: string; queuedAt?: string }> = [],
): TranscriptItem[] {
  const results = toolResults(messages);
  const items: TranscriptItem[] = [];
  for (const message of messages) {
    if (message.role === 'tool') continue;
    const text = message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    if (message.role === 'user') {
      items.push({ type: 'user', id: message.id, text, createdAt: message.createdAt });
      continue;
    }
    if (text) items.push({ type: 'assistant', id: message.id, text, streaming: false });
    const actions = message.metadata?.actions ?? [];
    for (const part of message.parts) {
      if (part.type !== 'tool-call') continue;
      const asked = actions.filter((action) => action.toolCallId === part.toolCallId);
      if (!(CARRIER_TOOLS.has(part.toolName) && asked.length > 0)) {
        const output = results.get(part.toolCallId);
        const notRun = notRunBy(asked);
        items.push({
          type: 'tool',
          id: `${message.id}:${part.toolCallId}`,
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: part.input,
          ...(output ? { output } : {}),
          ...(notRun ? { notRun } : {}),
        });
      }
      for (const action of asked)
        if (action.status !== 'pending') items.push({ type: 'action', id: action.id, action });
    }
    // Requests not tied to a call of this message's parts still belong here.
    const shown = new Set(message.parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : [])));
    for (const action of actions)
      if (!shown.has(action.toolCallId) && action.status !== 'pending')
        items.push({ type: 'action', id: action.id, action });
  }
  for (const entry of streaming)
    items.push({ type: 'assistant', id: entry.messageId, text: entry.text, streaming: true });
  // A queued message that has just started is already among the messages: shown once.
  const shown = new Set(messages.map((message) => message.id));
  queued
    .filter((entry) => !shown.has(entry.id))
    .forEach((entry, index) =>
      items.push({
        type: 'user',
        id: entry.id,
        text: entry.text,
        ...(entry.queuedAt ? { createdAt: entry.queuedAt } : {}),
        queued: index + 1,
      }),
    );
  return items;
}

/** " by ada", " by the time limit"… for a notice about an answer that came first; empty when nothing says who. */
export function byWhom(
  settled: { resolvedBy?: string | null; answeredFor?: string; channel?: string },
  me?: string | null,
): string {
  return settled.resolvedBy || settled.channel ? ` by ${describeResolver(settled, me)}` : '';
}

/**
 * Who settled a request, in words: "ada", "you", "the time limit"… Read from `channel` (how) and
 * `resolvedBy` (the user id) separately, so a user whose id is "system:timeout" is shown as that user.
 * A delegate's answer names both: "ada for grace" (docs/approvals.md, Delegation).
 */
export function describeResolver(
  settled: { resolvedBy?: string | null; answeredFor?: string; channel?: string },
  me?: string | null,
): string {
  if (settled.channel === 'timeout') return 'the time limit';
  if (settled.channel === 'remembered') return 'a remembered approval';
  if (settled.channel === 'system') return 'the system';
  if (!settled.resolvedBy) return settled.channel === 'api' ? 'an anonymous user' : 'someone';
  const who = me && settled.resolvedBy === me ? 'you' : settled.resolvedBy;
  if (settled.answeredFor === undefined) return who;
  return `${who} for ${me && settled.answeredFor === me ? 'you' : settled.answeredFor}`;
}
