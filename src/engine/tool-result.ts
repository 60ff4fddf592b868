import { newId } from '../ids.js';
import { newEvent, type EventData, type NewEvent } from '../protocol/events.js';
import type { MessageRecord, ToolOutput } from '../types.js';
import { eventToolOutput } from './turn/tool-output.js';

/** What the `tool.result` event says of the output: the output itself (media by size), or only its size. */
export type LoggedOutput = Pick<EventData<'tool.result'>, 'output' | 'outputBytes'>;

/**
 * A tool call's result as it is written: the tool message the model reads back, and its `tool.result`
 * event. Every writer of a tool result (the turn loop, an answer, a lapse, a cancel) builds both here.
 */
export function toolResultWrites(fields: {
  conversationId: string;
  position: number;
  at: string;
  call: { toolCallId: string; toolName: string };
  output: ToolOutput;
  /** What the event logs instead of the output (a client tool's answer: only its size). */
  logged?: LoggedOutput;
}): { message: MessageRecord; event: NewEvent } {
  const { toolCallId, toolName } = fields.call;
  const message: MessageRecord = {
    id: newId('m'),
    conversationId: fields.conversationId,
    position: fields.position,
    role: 'tool',
    parts: [{ type: 'tool-result', toolCallId, toolName, output: fields.output }],
    metadata: null,
    createdAt: fields.at,
  };
  const event = newEvent('tool.result', fields.at, {
    toolCallId,
    toolName,
    isError: fields.output.type === 'error-text',
    ...(fields.logged ?? eventToolOutput(fields.output)),
  });
  return { message, event };
}
