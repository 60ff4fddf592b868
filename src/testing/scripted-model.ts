import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';

/** What a scripted model answers for one call. */
export interface ScriptedResponse {
  text?: string;
  toolCalls?: Array<{ toolName: string; input: unknown; toolCallId?: string }>;
  /** Tokens to report; by default a rough count from the prompt and answer lengths. */
  usage?: { inputTokens: number; outputTokens: number };
}

export interface ScriptedCall {
  /** The prompt the model was sent (system, user, assistant and tool messages). */
  messages: LanguageModelV3Prompt;
  /** Names of the tools offered. */
  tools: string[];
  /** Index of this model call within the current turn (0 for the first call after a user message). */
  stepIndex: number;
}

export type ScriptedRespond = (call: {
  messages: LanguageModelV3Prompt;
  stepIndex: number;
  tools: string[];
}) => ScriptedResponse | Promise<ScriptedResponse>;

export interface ScriptedModelOptions {
  modelId?: string;
  /** Stream text word by word (for demos); by default the text comes as one delta. */
  chunkText?: 'word' | 'whole';
  /** Wait this long before each streamed chunk (for demos). */
  chunkDelayMs?: number;
}

export type ScriptedModel = LanguageModelV3 & {
  /** Every call made to the model, oldest first. */
  readonly calls: ScriptedCall[];
};

/**
 * An AI SDK language model with no network: `respond` decides each answer. Tests and benchmarks
 * build agents with it; `model.calls` shows exactly what the model was sent.
 */
export function scriptedModel(respond: ScriptedRespond, options: ScriptedModelOptions = {}): ScriptedModel {
  const calls: ScriptedCall[] = [];
  let callCounter = 0;

  async function answer(callOptions: LanguageModelV3CallOptions) {
    const messages = callOptions.prompt;
    const tools = (callOptions.tools ?? []).map((entry) => (entry as LanguageModelV3FunctionTool).name);
    const stepIndex = stepIndexOf(messages);
    calls.push({ messages, tools, stepIndex });
    const response = await respond({ messages, stepIndex, tools });
    const content: LanguageModelV3Content[] = [];
    if (response.text) content.push({ type: 'text', text: response.text });
    for (const call of response.toolCalls ?? []) {
      callCounter += 1;
      content.push({
        type: 'tool-call',
        toolCallId: call.toolCallId ?? `call_${callCounter}_${Math.random().toString(36).slice(2, 8)}`,
        toolName: call.toolName,
        input: JSON.stringify(call.input ?? {}),
      });
    }
    const usage = toUsage(response.usage ?? roughUsage(messages, response));
    const finishReason = {
      unified: response.toolCalls?.length ? ('tool-calls' as const) : ('stop' as const),
      raw: undefined,
    };
    return { content, usage, finishReason, text: response.text };
  }

  const model: ScriptedModel = {
    specificationVersion: 'v3',
    provider: 'heed-testing',
    modelId: options.modelId ?? 'scripted',
    supportedUrls: {},
    calls,
    async doGenerate(callOptions) {
      const { content, usage, finishReason } = await answer(callOptions);
      return { content, usage, finishReason, warnings: [] };
    },
    async doStream(callOptions) {
      const { content, usage, finishReason, text } = await answer(callOptions);
      const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      if (text) {
        parts.push({ type: 'text-start', id: 't0' });
        const chunks = options.chunkText === 'word' ? text.match(/\S+\s*|\s+/g) ?? [text] : [text];
        for (const delta of chunks) parts.push({ type: 'text-delta', id: 't0', delta });
        parts.push({ type: 'text-end', id: 't0' });
      }
      for (const part of content) if (part.type === 'tool-call') parts.push(part);
      parts.push({ type: 'finish', usage, finishReason });
      const delay = options.chunkDelayMs ?? 0;
      let index = 0;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          if (index >= parts.length) return controller.close();
          const part = parts[index++];
          if (delay > 0 && part.type === 'text-delta') await new Promise((r) => setTimeout(r, delay));
          controller.enqueue(part);
        },
      });
      return { stream };
    },
  };
  return model;
}

/** Model calls since the last user message: 0 for the first call of a turn. */
function stepIndexOf(messages: LanguageModelV3Prompt): number {
  let steps = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const role = messages[i].role;
    if (role === 'user') break;
    if (role === 'assistant') steps++;
  }
  return steps;
}

function roughUsage(messages: LanguageModelV3Prompt, response: ScriptedResponse) {
  let promptChars = 0;
  for (const message of messages) {
    promptChars += typeof message.content === 'string' ? message.content.length : JSON.stringify(message.content).length;
  }
  const answerChars = (response.text ?? '').length + JSON.stringify(response.toolCalls ?? []).length;
  return { inputTokens: Math.ceil(promptChars / 4), outputTokens: Math.ceil(answerChars / 4) };
}

function toUsage(usage: { inputTokens: number; outputTokens: number }): LanguageModelV3Usage {
  return {
    inputTokens: { total: usage.inputTokens, noCache: usage.inputTokens, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: usage.outputTokens, text: usage.outputTokens, reasoning: undefined },
  };
}
