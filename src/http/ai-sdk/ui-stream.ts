import type { UIMessageChunk } from 'ai';
import type { TurnResult } from '../../engine/turn/run-turn.js';
import type { AgentConfig } from '../../config.js';
import type { EventData } from '../../protocol/events.js';
import type { EventRecord, JsonObject, JsonValue, ToolOutput } from '../../types.js';
import { aiSdkTitleOf } from '../../kinds/index.js';
import type { ActionView } from '../../views.js';
import { heedMetadata, isDenied, isQuestionTool, isUiApproval, partInput, questionOutput } from './ui-messages.js';

export interface UiStreamOptions {
  agent: AgentConfig | undefined;
  /**
   * A new message: the events before the user's `message.created` (requests it closed under
   * `pendingActionPolicy: 'cancel'`) belong to the previous reply and are not sent.
   */
  newMessage: boolean;
  /** Tool calls the client already shows (a continuation of its last assistant message). */
  knownCalls?: Iterable<string>;
  /** Stored tool calls the turn may come back to (a continuation), with their input. */
  storedCalls?: Iterable<{ toolCallId: string; toolName: string; input: JsonValue }>;
  /** The conversation's actions once the answers were recorded: how each answered call ended. */
  actions?: ActionView[];
}

type FinishReason = 'stop' | 'tool-calls' | 'other';

/**
 * Turns a turn's events, in order, into AI SDK UI message stream chunks for one assistant message:
 * `start`, a `start-step`/`finish-step` pair per model call, text as `text-start/delta/end`, tool
 * calls as `tool-input-available`, results as `tool-output-available/error/denied`, pending approvals
 * as `tool-approval-request`, then `finish` (or `error` for a failed turn).
 */
export class UiChunkStream {
  ended = false;
  private waitingForUser: boolean;
  private started = false;
  private step: string | undefined;
  private text: string | undefined;
  private resultsSinceStep = false;
  private readonly known: Set<string>;
  private readonly calls = new Map<string, { toolName: string; input: JsonValue }>();
  private readonly denied = new Set<string>();
  private readonly actionsByCall = new Map<string, ActionView>();
  /** The lead's `agent_<name>` call each child conversation runs under (from `child.started`/`child.paused`). */
  private readonly childCalls = new Map<string, string>();
  /** A pause on children: their requests are in the turn's outcome, not in this log, so `end` finishes it. */
  private pausedOnChildren = false;

  constructor(
    private readonly send: (chunk: UIMessageChunk) => void,
    private readonly options: UiStreamOptions,
  ) {
    this.waitingForUser = options.newMessage;
    this.known = new Set(options.knownCalls ?? []);
    for (const call of options.storedCalls ?? [])
      this.calls.set(call.toolCallId, { toolName: call.toolName, input: call.input });
    for (const action of options.actions ?? []) {
      this.actionsByCall.set(action.toolCallId, action);
      if (isDenied(action)) this.denied.add(action.toolCallId);
    }
  }

  handle(event: EventRecord): void {
    if (this.ended) return;
    if (this.waitingForUser) {
      if (event.type === 'message.created' && event.data.role === 'user') this.waitingForUser = false;
      return;
    }
    switch (event.type) {
      case 'text.delta': {
        const { messageId, delta } = event.data;
        this.enterStep(messageId);
        if (this.text !== messageId) {
          this.send({ type: 'text-start', id: messageId });
          this.text = messageId;
        }
        this.send({ type: 'text-delta', id: messageId, delta });
        break;
      }
      case 'message.created':
        if (event.data.role === 'assistant' && !event.data.failed) {
          this.enterStep(event.data.messageId);
          this.closeText();
        }
        break;
      case 'tool.called': {
        const { toolCallId, toolName } = event.data;
        this.calls.set(toolCallId, { toolName, input: (event.data.input ?? null) as JsonValue });
        // A question tool's part shows the questions, which come with its action.
        if (!isQuestionTool(toolName, this.options.agent)) this.showCall(toolCallId);
        break;
      }
      case 'action.required':
        // Filled in with the action's view when the log is read (hydrate.ts).
        this.showAction(event.data.action);
        break;
      case 'action.resolved':
        // A lapse is recorded as a refusal, but nobody denied it: the call's part is the error the model read.
        if (event.data.kind === 'approval' && event.data.decision === 'deny' && !event.data.expired)
          this.denied.add(event.data.toolCallId);
        break;
      case 'tool.result':
        this.showResult(event.data);
        break;
      case 'child.started':
        this.childCalls.set(event.data.conversationId, event.data.toolCallId);
        break;
      case 'child.paused':
        this.childCalls.set(event.data.conversationId, event.data.toolCallId);
        this.pausedOnChildren = true;
        break;
      case 'turn.paused':
        if (!this.pausedOnChildren) this.finish('tool-calls');
        break;
      case 'turn.completed':
        this.finish('stop');
        break;
      case 'turn.cancelled':
        this.finish('other');
        break;
      case 'turn.failed': {
        const error: Partial<typeof event.data.error> | undefined = event.data.error;
        this.fail(typeof error?.message === 'string' ? error.message : 'The turn failed.');
        break;
      }
      default:
        break;
    }
  }

  /** Ends the message from the turn's outcome, when its last event was not seen. */
  end(result: TurnResult): void {
    if (this.ended) return;
    if (result.status === 'requires_action')
      for (const action of result.pendingActions ?? []) if (action.via?.length) this.showChildAction(action);
    if (result.status === 'failed') this.fail(result.error?.message ?? 'The turn failed.');
    else
      this.finish(
        result.status === 'requires_action' ? 'tool-calls' : result.status === 'completed' ? 'stop' : 'other',
      );
  }

  /** Ends the message with an error chunk (the client's chat goes to its error state). */
  fail(errorText: string): void {
    if (this.ended) return;
    this.closeStep();
    this.begin();
    this.send({ type: 'error', errorText });
    this.ended = true;
  }

  /** `start` with the message id when known; a continuation keeps the client's own. */
  begin(messageId?: string): void {
    if (this.started) return;
    this.started = true;
    this.send(messageId && this.options.newMessage ? { type: 'start', messageId } : { type: 'start' });
  }

  private finish(reason: FinishReason): void {
    this.closeStep();
    this.begin();
    // Tool results after the last model call would leave the last step looking like answered client
    // tools, and `lastAssistantMessageIsCompleteWithToolCalls` would send the message back: close it
    // with an empty step. Only a chunk that updates the message makes a client keep that step, hence
    // the (empty) metadata on `finish`.
    if (this.resultsSinceStep && reason !== 'tool-calls') {
      this.send({ type: 'start-step' });
      this.send({ type: 'finish-step' });
      this.send({ type: 'finish', finishReason: reason, messageMetadata: {} });
    } else {
      this.send({ type: 'finish', finishReason: reason });
    }
    this.ended = true;
  }

  private enterStep(messageId: string): void {
    if (this.step === messageId) return;
    this.closeStep();
    this.begin(messageId);
    this.send({ type: 'start-step' });
    this.step = messageId;
    this.resultsSinceStep = false;
  }

  private closeText(): void {
    if (this.text === undefined) return;
    this.send({ type: 'text-end', id: this.text });
    this.text = undefined;
  }

  private closeStep(): void {
    this.closeText();
    if (this.step === undefined) return;
    this.send({ type: 'finish-step' });
    this.step = undefined;
  }

  /** Sends the call's part (again, with `extra`); false when the call is unknown here and to the client. */
  private showCall(
    toolCallId: string,
    extra: { input?: unknown; title?: string; toolMetadata?: JsonObject } = {},
  ): boolean {
    const call = this.calls.get(toolCallId);
    if (!call) return this.known.has(toolCallId);
    this.begin();
    this.send({
      type: 'tool-input-available',
      toolCallId,
      toolName: call.toolName,
      input: 'input' in extra ? extra.input : call.input,
      ...(extra.title ? { title: extra.title } : {}),
      ...(extra.toolMetadata ? { toolMetadata: extra.toolMetadata } : {}),
    });
    this.known.add(toolCallId);
    return true;
  }

  private showAction(action: ActionView | undefined): void {
    if (!action) return;
    this.actionsByCall.set(action.toolCallId, action);
    // An intake's call has no `tool.called` event; a call the client already shows keeps its input.
    let call = this.calls.get(action.toolCallId);
    if (!call) {
      call = { toolName: action.toolName, input: ('args' in action ? action.args : null) ?? {} };
      this.calls.set(action.toolCallId, call);
    }
    const input = partInput(action.toolName, call.input, action, this.options.agent);
    this.showCall(action.toolCallId, {
      input,
      title: aiSdkTitleOf(action),
      toolMetadata: heedMetadata(action),
    });
    if (isUiApproval(action))
      this.send({ type: 'tool-approval-request', approvalId: action.id, toolCallId: action.toolCallId });
  }

  /**
   * A child's request (`via`), shown on the lead's own `agent_<name>` part, the call the client sees: answering
   * that part's approval answers the child's request. Its metadata says what the part does not (`heedMetadata`).
   */
  private showChildAction(action: ActionView): void {
    const toolCallId = this.childCalls.get(action.via?.[0]?.conversationId ?? '');
    if (!toolCallId || !this.known.has(toolCallId)) return;
    this.showCall(toolCallId, { title: aiSdkTitleOf(action), toolMetadata: heedMetadata(action) });
    if (isUiApproval(action)) this.send({ type: 'tool-approval-request', approvalId: action.id, toolCallId });
  }

  private showResult(data: EventData<'tool.result'>): void {
    const toolCallId = data.toolCallId;
    this.resultsSinceStep = true;
    // A client tool's output is not in the log (only its size), and the page that sent it has it.
    if (data.outputBytes !== undefined) return;
    if (!this.known.has(toolCallId) && !this.showCall(toolCallId)) return;
    // The log keeps a tool's output as it was (media by size only: the message holds it once).
    const output = data.output as ToolOutput | undefined;
    if (!output) return;
    this.begin();
    // A denied call did not run, whatever the model read (a deny's object comment is a JSON result, logged as an error).
    if (data.isError && this.denied.has(toolCallId)) {
      this.send({ type: 'tool-output-denied', toolCallId });
      return;
    }
    if (output.type === 'error-text') {
      this.send({ type: 'tool-output-error', toolCallId, errorText: output.value });
      return;
    }
    const toolName = data.toolName;
    const question = isQuestionTool(toolName, this.options.agent)
      ? questionOutput(this.actionsByCall.get(toolCallId), String(output.value))
      : undefined;
    this.send({ type: 'tool-output-available', toolCallId, output: question ?? output.value });
  }
}
