import { newId } from '../ids.js';
import { newEvent, type EventData, type NewEvent } from '../protocol/events.js';
import type { JsonValue, MessageMetadata, MessageRecord, ToolOutput, TurnWarning } from '../types.js';
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
  /** The arguments the call ran with, when a person approved other ones than the model's: the model is sent the call with these. */
  approvedArgs?: JsonValue;
  /** What the model reads after the output (a declined question's note). */
  notes?: string[];
  /** Why the call did not run, kept on its message so a reload shows it (`pause_state_too_large`). */
  warnings?: TurnWarning[];
  /** The call did not run though the output is not an error text (a deny whose comment is an object). */
  isError?: true;
}): { message: MessageRecord; event: NewEvent } {
  const { toolCallId, toolName } = fields.call;
  const message: MessageRecord = {
    id: newId('m'),
    conversationId: fields.conversationId,
    position: fields.position,
    role: 'tool',
    parts: [{ type: 'tool-result', toolCallId, toolName, output: fields.output }],
    metadata: resultMetadata(fields),
    createdAt: fields.at,
  };
  const event = newEvent('tool.result', fields.at, {
    toolCallId,
    toolName,
    isError: fields.isError ?? fields.output.type === 'error-text',
    ...(fields.logged ?? eventToolOutput(fields.output)),
  });
  return { message, event };
}

/** What a tool message keeps besides its result: read back by the prompt (src/engine/turn/prompt.ts) and shown on reload. */
function resultMetadata(fields: {
  approvedArgs?: JsonValue;
  notes?: string[];
  warnings?: TurnWarning[];
}): MessageMetadata | null {
  const metadata: MessageMetadata = {};
  if (fields.approvedArgs !== undefined) metadata.approvedArgs = fields.approvedArgs;
  if (fields.notes?.length) metadata.notes = fields.notes;
  if (fields.warnings?.length) metadata.warnings = fields.warnings;
  return Object.keys(metadata).length > 0 ? metadata : null;
}
