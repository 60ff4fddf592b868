import { newAction } from '../new-action.js';
import { HeedError, must } from '../../errors.js';
import { AgentError } from '../../agents/agent-error.js';
import { handlerOf, runHandlerTurn } from '../../agents/handler-turn.js';
import { defaults } from '../../config-schema.js';
import { newId } from '../../ids.js';
import type { TurnResult } from '../../protocol/responses.js';
import type { MessagePart } from '../../types.js';
import { messageViews } from '../../views.js';
import { callModel } from './model-call.js';
import { buildPrompt, INTAKE_TOOL_NAME, offeredTools } from './prompt.js';
import { pause, settleStepCalls } from './tool-calls.js';
import { TurnInterrupted, type Turn } from './turn.js';
import { interruptedResult } from './interrupted.js';
import { isStoreUnavailable } from '../../store/unavailable.js';
import { intakeQuestions } from '../intake.js';
import { lastMessage, openToolCalls } from '../open-calls.js';
import { childPendingActions } from '../child-actions.js';

/** How a turn ended, as the library and the HTTP API return it (its schema: src/protocol/responses.ts). */
export type { TurnResult };
export type TurnStatus = TurnResult['status'];

const DELTA_FLUSH_MS = 25;

/**
 * Runs the agent loop until it pauses, completes, is cancelled or fails. The turn already holds the
 * claim on the conversation (status `running`, a lease) and its opening events are gathered.
 */
export async function runTurn(turn: Turn, options: { askIntake: boolean }): Promise<TurnResult> {
  const engine = turn.engine;
  engine.running.set(turn.conversation.id, turn.abort);
  turn.startLeaseRenewal();
  try {
    // An agent whose work is the host's code (or another service's) runs its handler instead of the model loop.
    const handler = handlerOf(turn.agent);
    if (handler) {
      const outcome = await runHandlerTurn(turn, handler);
      return outcome === 'paused' ? await result(turn, 'requires_action') : await complete(turn);
    }
    if (options.askIntake && (await askIntake(turn))) return await result(turn, 'requires_action');
    const maxSteps = turn.agent.maxSteps ?? defaults.maxSteps;
    let steps = 0;
    for (;;) {
      if (turn.abort.signal.aborted) throw new TurnInterrupted();
      const assistant = openToolCalls(turn.messages)?.assistant;
      if (assistant) {
        const outcome = await settleStepCalls(turn, assistant);
        if (outcome === 'paused') return await result(turn, 'requires_action');
        if (outcome === 'stop') return await complete(turn);
        continue;
      }
      const last = lastMessage(turn.messages);
      if (!last || last.role === 'assistant') return await complete(turn);
      if (steps >= maxSteps) {
        turn.warnings.push({ code: 'max_steps', message: `The turn stopped after ${maxSteps} model calls.` });
        return await complete(turn);
      }
      if (!engine.budgetLeft(turn.conversation)) {
        turn.warnings.push({
          code: 'budget_reached',
          message: 'The conversation used up its token budget, so the turn stopped.',
        });
        return await complete(turn);
      }
      await runStep(turn);
      steps++;
    }
  } catch (thrown) {
    return await stopped(turn, thrown);
  } finally {
    turn.stopLeaseRenewal();
    if (engine.running.get(turn.conversation.id) === turn.abort) engine.running.delete(turn.conversation.id);
  }
}

/** One step of the turn: the model's reply (one call, streamed) recorded as an assistant message, with its tool calls. */
async function runStep(turn: Turn): Promise<void> {
  const agent = turn.agent;
  const messageId = newId('m');
  const prompt = buildPrompt(agent, turn.messages);
  const tools = offeredTools(agent, (kind) => turn.offers(kind));
  // What the model reads back (a tool's result) is stored before it is called, so a process that dies
  // during the call never runs that tool again. Nothing is answered or done on it before this turn's next
  // commit, which waits for the disk (the tool's next side effect, the pause, the reply or the failure
  // flush it first), so this one does not wait (docs/guarantees.md).
  await turn.flush({ waitForFlush: false });

  // Deltas are written in small batches so a live follower sees text as it comes.
  let timer: NodeJS.Timeout | undefined;
  const onDelta = (delta: string) => {
    turn.event('text.delta', { messageId, delta });
    timer ??= setTimeout(() => {
      timer = undefined;
      // Ignored here on purpose: a failed flush stops the turn, and the step's own awaited flush throws the same error.
      turn.flush().catch(() => undefined);
    }, DELTA_FLUSH_MS);
  };
  let reply;
  try {
    reply = await turn.engine.tracing.span('heed.model', { 'heed.agent': agent.name }, async (span) => {
      const answered = await callModel(
        must(agent.model, `The agent "${agent.name}" has no model.`),
        prompt,
        tools,
        onDelta,
        turn.abort.signal,
        agent.name,
      );
      span.set({ 'heed.model.tokens': answered.tokens, 'heed.model.tool_calls': answered.toolCalls.length });
      return answered;
    });
  } finally {
    if (timer) clearTimeout(timer);
  }
  if (turn.abort.signal.aborted) throw new TurnInterrupted();

  const parts: MessagePart[] = [];
  if (reply.text) parts.push({ type: 'text', text: reply.text });
  for (const call of reply.toolCalls)
    parts.push({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: call.input });
  turn.addMessage('assistant', parts, null, messageId);
  turn.event('message.created', { messageId, role: 'assistant' });
  for (const call of reply.toolCalls) {
    turn.event('tool.called', { messageId, toolCallId: call.toolCallId, toolName: call.toolName, input: call.input });
  }
  turn.set({ tokensUsed: turn.conversation.tokensUsed + reply.tokens });
  turn.conversation = { ...turn.conversation, tokensUsed: turn.conversation.tokensUsed + reply.tokens };
}

/** Asks the agent's intake questions before the model is called, when they are due. */
async function askIntake(turn: Turn): Promise<boolean> {
  const intake = turn.agent.intake;
  if (!intake) return false;
  if ((intake.when ?? defaults.intakeWhen) === 'thread-start' && turn.conversation.intakeDone) return false;
  const messageId = newId('m');
  const toolCallId = newId('call');
  const message = turn.addMessage(
    'assistant',
    [{ type: 'tool-call', toolCallId, toolName: INTAKE_TOOL_NAME, input: {} }],
    { intake: true },
    messageId,
  );
  turn.event('message.created', { messageId, role: 'assistant', intake: true });
  turn.set({ intakeDone: true });
  const action = newAction(turn, {
    origin: 'intake',
    messageId,
    toolCallId,
    toolName: INTAKE_TOOL_NAME,
    request: {
      kind: 'question',
      ...(intake.preamble ? { preamble: intake.preamble } : {}),
      questions: intakeQuestions(turn.agent),
    },
  });
  return pause(turn, message, [action]);
}

async function complete(turn: Turn): Promise<TurnResult> {
  turn.set({ status: 'idle', leaseOwner: null, leaseExpiresAt: null, actionDueAt: null });
  turn.event('turn.completed', turn.warnings.length ? { warnings: turn.warnings } : {});
  await turn.flush();
  return result(turn, 'completed');
}

/**
 * How a turn that threw ends. A write that failed in the background (a flush for text deltas or the
 * lease) is the reason, whatever the step threw on its way out. Its claim lost (a cancel, a takeover):
 * what became of the conversation. The store out of reach or full: `store_unavailable` is thrown and
 * nothing is recorded as failed (start.ts carries the turn on once the store answers). Otherwise the
 * turn failed, and says why.
 */
async function stopped(turn: Turn, thrown: unknown): Promise<TurnResult> {
  const cause = turn.failure ?? thrown;
  if (cause instanceof TurnInterrupted || (turn.abort.signal.aborted && turn.failure === undefined))
    return interruptedResult(turn);
  if (isStoreUnavailable(cause)) throw cause;
  return fail(turn, thrown);
}

async function fail(turn: Turn, thrown: unknown): Promise<TurnResult> {
  const error = HeedError.isInstance(thrown)
    ? { code: thrown.code, message: thrown.message }
    : thrown instanceof AgentError
      ? { code: thrown.code, message: thrown.message }
      : { code: 'model_error', message: thrown instanceof Error ? thrown.message : String(thrown) };
  try {
    turn.set({ status: 'idle', leaseOwner: null, leaseExpiresAt: null, actionDueAt: null });
    // The record keeps the failure, so a reader who comes later (a reload) sees why the agent stopped.
    const messageId = newId('m');
    turn.addMessage('assistant', [], { failed: error }, messageId);
    turn.event('message.created', { messageId, role: 'assistant', failed: true });
    turn.event('turn.failed', { error });
    await turn.flush();
    // Said where the operator looks too; the conversation (and a channel's thread) says it to the person.
    turn.engine.logger.warn(
      { conversationId: turn.conversation.id, code: error.code, message: error.message },
      `Heed: a turn of conversation ${turn.conversation.id} failed (${error.code})`,
    );
  } catch (failed) {
    // The claim was lost meanwhile: whoever took it records the outcome. The store out: nothing was recorded.
    if (failed instanceof TurnInterrupted) return interruptedResult(turn);
    if (isStoreUnavailable(failed)) throw failed;
  }
  const outcome = await result(turn, 'failed');
  return { ...outcome, error };
}

async function result(turn: Turn, status: TurnResult['status']): Promise<TurnResult> {
  const actions = await turn.actions();
  const messages = messageViews(turn.engine, turn.conversation, turn.created, actions);
  const outcome: TurnResult = { status, conversationId: turn.conversation.id, messages };
  if (status === 'requires_action') {
    outcome.pendingActions = [
      ...actions.filter((action) => action.status === 'pending').map((action) => turn.view(action)),
      // A pause on child conversations lists what they wait on, each with `via`.
      ...(await childPendingActions(turn.engine, turn.conversation, turn.messages)),
    ];
  }
  if (turn.warnings.length) outcome.warnings = turn.warnings;
  return outcome;
}
