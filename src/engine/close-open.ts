import type { Engine } from './engine.js';
import { newId } from '../ids.js';
import type { ActionSettlement, NewEvent } from '../store/store.js';
import { newEvent } from '../protocol/events.js';
import type { ActionRecord, ActionStatus, JsonObject, MessageRecord, ToolOutput } from '../types.js';

export interface ClosingWrites {
  settle: ActionSettlement[];
  messages: MessageRecord[];
  events: NewEvent[];
}

/**
 * The writes that close what is open without running anything: each pending action settles as
 * `cancelled` (or `expired` for the ones in `lapsed`), and every tool call of the conversation's last
 * assistant message without a result gets one saying so, so the history stays whole for the model.
 */
export function closeOpen(
  engine: Engine,
  messages: MessageRecord[],
  pending: ActionRecord[],
  options: { resolvedBy: string | null; channel: 'api' | 'system' | 'timeout'; reason: string; lapsed?: Set<string> },
): ClosingWrites {
  const at = engine.now();
  const settle: ActionSettlement[] = [];
  const events: NewEvent[] = [];
  for (const action of pending) {
    const status: Exclude<ActionStatus, 'pending'> = options.lapsed?.has(action.id) ? 'expired' : 'cancelled';
    settle.push({ id: action.id, status, resolution: { type: 'cancelled', reason: options.reason }, resolvedBy: options.resolvedBy, channel: options.channel, resolvedAt: at });
    events.push(
      newEvent('action.resolved', at, {
        actionId: action.id,
        kind: action.kind,
        toolCallId: action.toolCallId,
        toolName: action.toolName,
        status,
        resolvedBy: options.resolvedBy,
        channel: options.channel,
        cancelled: true,
      }),
    );
  }
  // A call that asked from inside its tool (an MCP server's form, say) had already started: say so.
  const started = new Set(pending.filter((action) => action.origin === 'live' || action.origin === 'ctx').map((action) => action.toolCallId));
  const startedText = `${STARTED_REASON[options.reason] ?? STARTED_REASON.new_message} The tool had already started (an MCP tool's server had run up to its request), so it may have done part of its work.`;
  const results = openCallResults(engine, messages, 'Cancelled: this request was withdrawn before it was answered, and the call did not run.', (toolCallId) =>
    started.has(toolCallId) ? startedText : undefined,
  );
  for (const message of results) {
    const part = message.parts[0];
    if (part.type === 'tool-result') {
      events.push(newEvent('tool.result', at, { toolCallId: part.toolCallId, toolName: part.toolName, isError: true, output: part.output }));
    }
  }
  return { settle, messages: results, events };
}

const STARTED_REASON: Record<string, string> = {
  cancelled: "The call was cancelled while it was waiting for the person's answer.",
  expired: "Nobody answered in time while the call was waiting for the person's answer.",
  new_message: "A new message closed the request while the call was waiting for the person's answer.",
};

/**
 * Tool messages answering, with `text` as an error, the open calls of the last assistant message
 * (`textFor` may give a call its own text).
 */
export function openCallResults(engine: Engine, messages: MessageRecord[], text: string, textFor?: (toolCallId: string) => string | undefined): MessageRecord[] {
  const answered = new Set<string>();
  let assistant: MessageRecord | undefined;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message.role === 'tool') {
      for (const part of message.parts) if (part.type === 'tool-result') answered.add(part.toolCallId);
    } else {
      if (message.role === 'assistant') assistant = message;
      break;
    }
  }
  if (!assistant) return [];
  const results: MessageRecord[] = [];
  for (const part of assistant.parts) {
    if (part.type !== 'tool-call' || answered.has(part.toolCallId)) continue;
    const output: ToolOutput = { type: 'error-text', value: textFor?.(part.toolCallId) ?? text };
    results.push({
      id: newId('m'),
      conversationId: assistant.conversationId,
      position: messages.length + results.length,
      role: 'tool',
      parts: [{ type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, output }],
      metadata: null,
      createdAt: engine.now(),
    });
  }
  return results;
}

/**
 * After a pause was closed without an answer, a tool still waiting in memory (ctx.askLive) is told so
 * (its request settles as cancelled) and forgotten; whatever it returns later is not used.
 */
export function releaseLiveCalls(engine: Engine, closed: ActionRecord[]): void {
  for (const action of closed) {
    if (action.origin !== 'live') continue;
    const live = engine.liveCalls.get(action.toolCallId);
    if (!live) continue;
    engine.liveCalls.delete(action.toolCallId);
    live.answer({ ...action, status: 'cancelled', resolution: { type: 'cancelled', reason: 'closed' } });
  }
}
