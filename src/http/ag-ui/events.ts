import type { BaseEvent, Interrupt, Message, RunFinishedOutcome, ToolCall } from '@ag-ui/core';
import { z } from 'zod';
import { kindOf, type ActionKind } from '../../kinds/index.js';
import type { ActionRecord, EventRecord, JsonObject, MessageRecord, ToolOutput } from '../../types.js';
import { asJsonObject } from '../../protocol/values.js';
import type { ActionView } from '../../views.js';

/*
 * Heed's log as AG-UI events (docs/ag-ui.md): the run's text as TEXT_MESSAGE_*, its tool calls as
 * TOOL_CALL_START/ARGS/END and their results as TOOL_CALL_RESULT, in the log's order; then, before
 * RUN_FINISHED, the state and the messages as snapshots, as AG-UI's interrupts page asks at a pause.
 * The `type` strings are the protocol's EventType values (the enum lives in @ag-ui/core, loaded only
 * when the route is used).
 */

/** What a run's events are written to: one AG-UI event at a time, encoded by the caller. */
export type SendAgUi = (event: BaseEvent) => void;

/** A tool message's id in AG-UI: one per tool call, the same in TOOL_CALL_RESULT and the messages snapshot. */
export const resultMessageId = (toolCallId: string) => `result-${toolCallId}`;

/** A tool result as the text AG-UI's tool messages carry. */
export function outputText(output: ToolOutput | undefined): string {
  if (!output) return '';
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
      return JSON.stringify(output.value);
    case 'content':
      return output.value.map((part) => (part.type === 'text' ? part.text : `[${part.mediaType}]`)).join('\n');
  }
}

/** The conversation as AG-UI messages, for MESSAGES_SNAPSHOT. */
export function snapshotMessages(messages: MessageRecord[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    const text = message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
    if (message.role === 'user') {
      out.push({ id: message.id, role: 'user', content: text });
      continue;
    }
    if (message.role === 'assistant') {
      const toolCalls: ToolCall[] = message.parts.flatMap((part) =>
        part.type === 'tool-call'
          ? [
              {
                id: part.toolCallId,
                type: 'function' as const,
                function: { name: part.toolName, arguments: JSON.stringify(part.input ?? {}) },
              },
            ]
          : [],
      );
      out.push({
        id: message.id,
        role: 'assistant',
        ...(text ? { content: text } : {}),
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      });
      continue;
    }
    for (const part of message.parts) {
      if (part.type !== 'tool-result') continue;
      out.push({
        id: resultMessageId(part.toolCallId),
        role: 'tool',
        toolCallId: part.toolCallId,
        content: outputText(part.output),
        ...(part.output.type === 'error-text' ? { error: part.output.value } : {}),
      });
    }
  }
  return out;
}

const responseSchemas = new Map<string, JsonObject>();

/**
 * The JSON Schema of what answers an action of this kind: the kind's answer as the HTTP API takes it, its
 * `type` optional, or (an approval) the `{ approved, editedArgs }` AG-UI clients send.
 */
export function responseSchema(kind: ActionKind): JsonObject {
  const cached = responseSchemas.get(kind.kind);
  if (cached) return cached;
  const own = kind.wire.documentedAnswer ?? kind.wire.answer;
  const ownOptionalType = own.extend({ type: (own.shape.type as z.ZodType).optional() });
  const schema = kind.agUi.alternativeAnswer
    ? z.union([ownOptionalType, kind.agUi.alternativeAnswer])
    : ownOptionalType;
  const json = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as JsonObject;
  delete json.$schema;
  responseSchemas.set(kind.kind, json);
  return json;
}

/** The schema of an answer to this very action (its kind's `answerSchemaFor`), else the kind's: AG-UI and A2A send it. */
export function actionResponseSchema(kind: ActionKind, view: ActionView): JsonObject {
  return (kind.answerSchemaFor?.(view as never) as JsonObject | undefined) ?? responseSchema(kind);
}

/** A pending action as an AG-UI interrupt. */
export function interruptOf(action: ActionRecord, view: ActionView): Interrupt {
  const kind = kindOf(action.kind);
  const presentation = kind.presentation;
  return {
    id: action.id,
    reason: kind.agUi.reason,
    message: presentation.headline?.(view) ?? presentation.summary(view),
    toolCallId: action.toolCallId,
    responseSchema: actionResponseSchema(kind, view),
    ...(action.expiresAt ? { expiresAt: action.expiresAt } : {}),
    // The action as the HTTP API shows it (every question with its options and inputs, an approval's
    // arguments and schema, a URL): a client that knows only AG-UI draws the form from it, guessing nothing.
    metadata: { heed: { kind: action.kind, toolName: action.toolName, action: asJsonObject(view) } },
  };
}

/**
 * Turns a run's events, in the log's order, into AG-UI events. Only what the run itself streams: the run's
 * start, snapshots and finish are the route's.
 */
export class AgUiEventStream {
  ended = false;
  /** How the turn ended, once its last event was seen. */
  outcome: 'paused' | 'completed' | 'cancelled' | { failed: { code: string; message: string } } | undefined;
  /** Tool calls streamed by this run (an interrupt's `toolCallId` must match one the client has). */
  readonly streamedCalls = new Set<string>();
  private waitingForUser: boolean;
  private text: string | undefined;

  constructor(
    private readonly send: SendAgUi,
    options: {
      /** A new message: the events before its `message.created` belong to the previous reply. */
      newMessage: boolean;
      /** Tool outputs this run sent (a client tool's output is not in the log, only its size). */
      sentOutputs?: Map<string, string>;
    },
  ) {
    this.waitingForUser = options.newMessage;
    this.sentOutputs = options.sentOutputs ?? new Map();
  }

  private readonly sentOutputs: Map<string, string>;

  handle(event: EventRecord): void {
    if (this.ended) return;
    if (this.waitingForUser) {
      if (event.type === 'message.created' && event.data.role === 'user') this.waitingForUser = false;
      return;
    }
    switch (event.type) {
      case 'text.delta': {
        const { messageId, delta } = event.data;
        if (delta === '') break;
        if (this.text !== messageId) {
          this.closeText();
          this.send({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' } as BaseEvent);
          this.text = messageId;
        }
        this.send({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta } as BaseEvent);
        break;
      }
      case 'message.created':
        if (event.data.role === 'assistant') this.closeText();
        break;
      case 'tool.called':
        this.closeText();
        this.streamCall(event.data.toolCallId, event.data.toolName, event.data.input, event.data.messageId);
        break;
      case 'tool.result': {
        const { toolCallId } = event.data;
        const content =
          event.data.outputBytes !== undefined
            ? this.sentOutputs.get(toolCallId)
            : outputText(event.data.output as ToolOutput | undefined);
        if (content === undefined) break;
        this.closeText();
        this.send({
          type: 'TOOL_CALL_RESULT',
          messageId: resultMessageId(toolCallId),
          toolCallId,
          content,
          role: 'tool',
        } as BaseEvent);
        break;
      }
      case 'turn.paused':
        this.finish('paused');
        break;
      case 'turn.completed':
        this.finish('completed');
        break;
      case 'turn.cancelled':
        this.finish('cancelled');
        break;
      case 'turn.failed': {
        const error: Partial<typeof event.data.error> | undefined = event.data.error;
        this.finish({
          failed: {
            code: typeof error?.code === 'string' ? error.code : 'internal_error',
            message: typeof error?.message === 'string' ? error.message : 'The turn failed.',
          },
        });
        break;
      }
      default:
        break;
    }
  }

  /** Streams a tool call's start, arguments and end (once per call). */
  streamCall(toolCallId: string, toolName: string, input: unknown, parentMessageId?: string): void {
    if (this.streamedCalls.has(toolCallId)) return;
    this.streamedCalls.add(toolCallId);
    this.send({
      type: 'TOOL_CALL_START',
      toolCallId,
      toolCallName: toolName,
      ...(parentMessageId ? { parentMessageId } : {}),
    } as BaseEvent);
    this.send({ type: 'TOOL_CALL_ARGS', toolCallId, delta: JSON.stringify(input ?? {}) } as BaseEvent);
    this.send({ type: 'TOOL_CALL_END', toolCallId } as BaseEvent);
  }

  closeText(): void {
    if (this.text === undefined) return;
    this.send({ type: 'TEXT_MESSAGE_END', messageId: this.text } as BaseEvent);
    this.text = undefined;
  }

  private finish(outcome: NonNullable<AgUiEventStream['outcome']>): void {
    this.closeText();
    this.outcome = outcome;
    this.ended = true;
  }
}

/** The RUN_FINISHED outcome for what is left open: an interrupt per action, else success (or cancelled). */
export function finishedOutcome(interrupts: Interrupt[], cancelled: boolean): RunFinishedOutcome {
  if (interrupts.length > 0) return { type: 'interrupt', interrupts };
  return cancelled ? { type: 'cancelled' } : { type: 'success' };
}
