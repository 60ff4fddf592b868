/**
 * Answers an MCP server's `sampling/createMessage` during a tool call with the agent's own model, with
 * a person in the loop as the specification asks: one approval shows the prompt (the person may edit
 * the messages and the system prompt), then the model answers, then a second approval shows the
 * answer (which the person may edit) before it goes back to the server.
 */
import type { CreateMessageRequest, CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentModel } from '../engine/turn/model-spec.js';
import type { ToolContext } from '../tool.js';
import type { ElicitingCall } from './elicitation.js';
import type { SamplingPolicy } from './config.js';

/** The code the specification gives a request the person rejected. */
const USER_REJECTED = -1;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

/** An error the server reads as the JSON-RPC error of its request (code and message as given). */
export function mcpRefusal(code: number, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}

export interface SamplingSetup {
  policy: Exclude<SamplingPolicy, 'never'>;
  model: AgentModel;
  /** True once this conversation holds an allowed prompt approval of this server's (for 'remember'). */
  allowedBefore(ctx: ToolContext): Promise<boolean>;
}

/** The prompt as the person sees it (and may send back edited, as `approvedArgs`). */
interface ShownPrompt {
  server: string;
  systemPrompt?: string;
  messages: Array<{ role: 'user' | 'assistant'; text: string }>;
  maxTokens: number;
}

type Params = CreateMessageRequest['params'];

export async function answerSampling(
  params: Params,
  call: ElicitingCall,
  setup: SamplingSetup,
): Promise<CreateMessageResult> {
  if (params.tools && params.tools.length > 0) {
    throw mcpRefusal(
      INVALID_PARAMS,
      'Heed does not offer tools to the model in a sampling request (it does not announce sampling.tools).',
    );
  }
  const messages: ShownPrompt['messages'] = [];
  for (const message of params.messages) {
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    if (blocks.some((block) => block.type !== 'text')) {
      throw mcpRefusal(INVALID_PARAMS, 'Heed passes only text messages to the model in a sampling request.');
    }
    messages.push({ role: message.role, text: blocks.map((block) => (block as { text: string }).text).join('\n') });
  }
  const asked: ShownPrompt = {
    server: call.server,
    ...(params.systemPrompt ? { systemPrompt: params.systemPrompt } : {}),
    messages,
    maxTokens: params.maxTokens,
  };

  if (!call.ctx.interactive) {
    call.notes.push(`${call.server} asked to use the model, but nobody can review that here, so Heed refused.`);
    throw mcpRefusal(USER_REJECTED, 'No person can review sampling requests in this conversation, so Heed refused it.');
  }
  call.pauseClock();
  try {
    let prompt = asked;
    const skip = setup.policy === 'remember' && (await setup.allowedBefore(call.ctx));
    if (!skip) {
      const answer = await waitFor(
        call,
        call.ctx.askLive({
          kind: 'approval',
          title: `${call.server} asks to use the model`,
          summary: `${call.server} (during its tool ${call.tool}) wants the agent's model to answer this prompt. Allow to send it; you may edit the messages or the system prompt first. You will see the answer before it goes back.`,
          args: asked as never,
        }),
      );
      const approved =
        answer?.status === 'resolved' &&
        answer.resolution?.type === 'approval' &&
        answer.resolution.decision === 'allow';
      if (!approved || answer.resolution?.type !== 'approval') {
        call.notes.push(`The person declined ${call.server}'s request to use the model.`);
        throw mcpRefusal(USER_REJECTED, 'User rejected sampling request');
      }
      if (answer.resolution.approvedArgs !== undefined && answer.resolution.approvedArgs !== null) {
        const edited = editedPrompt(answer.resolution.approvedArgs, asked);
        if (!edited) {
          call.notes.push(
            `The person's edit of ${call.server}'s sampling prompt was not in the shape shown, so nothing was sent to the model.`,
          );
          throw mcpRefusal(
            USER_REJECTED,
            'The edited prompt was not in the shape shown, so the sampling request was not run.',
          );
        }
        prompt = edited;
      }
    }

    const { text, stopReason } = await generate(setup.model, prompt, params, call.ctx.abortSignal);

    const review = await waitFor(
      call,
      call.ctx.askLive({
        kind: 'approval',
        title: `Send the model's answer back to ${call.server}?`,
        summary: `The model answered ${call.server}'s prompt. Allow to send this answer back to the server; you may edit it first.`,
        args: { completion: text },
      }),
    );
    if (
      review?.status !== 'resolved' ||
      review.resolution?.type !== 'approval' ||
      review.resolution.decision !== 'allow'
    ) {
      call.notes.push(`The person kept the model's answer to ${call.server}'s sampling request from going back to it.`);
      throw mcpRefusal(USER_REJECTED, 'User rejected sampling response');
    }
    const edited = review.resolution.approvedArgs as { completion?: unknown } | undefined | null;
    const completion =
      edited && typeof edited === 'object' && typeof edited.completion === 'string' ? edited.completion : text;
    return { role: 'assistant', content: { type: 'text', text: completion }, model: setup.model.modelId, stopReason };
  } finally {
    call.resumeClock();
  }
}

function editedPrompt(value: unknown, asked: ShownPrompt): ShownPrompt | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const edit = value as Record<string, unknown>;
  const messages = edit.messages ?? asked.messages;
  if (!Array.isArray(messages) || messages.length === 0) return undefined;
  const checked: ShownPrompt['messages'] = [];
  for (const message of messages) {
    const { role, text } = (message ?? {}) as { role?: unknown; text?: unknown };
    if ((role !== 'user' && role !== 'assistant') || typeof text !== 'string') return undefined;
    checked.push({ role, text });
  }
  const systemPrompt = edit.systemPrompt === undefined ? asked.systemPrompt : edit.systemPrompt;
  if (systemPrompt !== undefined && typeof systemPrompt !== 'string') return undefined;
  return {
    server: asked.server,
    ...(systemPrompt ? { systemPrompt } : {}),
    messages: checked,
    maxTokens: asked.maxTokens,
  };
}

async function generate(
  model: AgentModel,
  prompt: ShownPrompt,
  params: Params,
  abortSignal: AbortSignal,
): Promise<{ text: string; stopReason: string }> {
  const options = {
    prompt: [
      ...(prompt.systemPrompt ? [{ role: 'system' as const, content: prompt.systemPrompt }] : []),
      ...prompt.messages.map((message) => ({
        role: message.role,
        content: [{ type: 'text' as const, text: message.text }],
      })),
    ],
    maxOutputTokens: prompt.maxTokens,
    temperature: params.temperature,
    stopSequences: params.stopSequences,
    abortSignal,
  };
  let result;
  try {
    result = model.specificationVersion === 'v4' ? await model.doGenerate(options) : await model.doGenerate(options);
  } catch (error) {
    throw mcpRefusal(INTERNAL_ERROR, `The model failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const text = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  return { text, stopReason: result.finishReason.unified === 'length' ? 'maxTokens' : 'endTurn' };
}

/** The person's answer, or null when the call was found to be over elsewhere first. */
function waitFor<T>(call: ElicitingCall, asked: Promise<T>): Promise<T | null> {
  return Promise.race([asked, call.abandoned.then(() => null)]);
}
