import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import type { LanguageModelV4, LanguageModelV4Prompt } from '@ai-sdk/provider-v4';

/** `'v3'` for an AI SDK 6 model, `'v4'` for an AI SDK 7 one. */
export type ScriptedVersion = 'v3' | 'v4';

/**
 * The prompt a scripted model of version `V` is sent. When the version is only known at run time, it
 * is typed as v3's: the text, tool-call and tool-result parts Heed sends have one shape in both.
 */
export type ScriptedPrompt<V extends ScriptedVersion = 'v3'> = [V] extends ['v4']
  ? LanguageModelV4Prompt
  : LanguageModelV3Prompt;

/** What a scripted model answers for one call. */
export interface ScriptedResponse {
  text?: string;
  toolCalls?: Array<{ toolName: string; input: unknown; toolCallId?: string }>;
  /** Tokens to report; by default a rough count from the prompt and answer lengths. */
  usage?: { inputTokens: number; outputTokens: number };
}

export interface ScriptedCall<V extends ScriptedVersion = 'v3'> {
  /** The prompt the model was sent (system, user, assistant and tool messages). */
  messages: ScriptedPrompt<V>;
  /** Names of the tools offered. */
  tools: string[];
  /** Index of this model call within the current turn (0 for the first call after a user message). */
  stepIndex: number;
}

export type ScriptedRespond<V extends ScriptedVersion = 'v3'> = (call: {
  messages: ScriptedPrompt<V>;
  stepIndex: number;
  tools: string[];
}) => ScriptedResponse | Promise<ScriptedResponse>;

/** How many of the latest calls `model.calls` keeps unless told otherwise. */
export const DEFAULT_KEPT_CALLS = 10;

export interface ScriptedModelOptions<V extends ScriptedVersion = 'v3'> {
  modelId?: string;
  /** `'v4'` makes an AI SDK 7 model (LanguageModelV4); the default `'v3'` an AI SDK 6 one. */
  specificationVersion?: V;
  /**
   * How many of the latest calls `model.calls` keeps (default 10); `Infinity` keeps all, 0 none.
   * Each kept call holds its whole prompt, so a long-running model (a demo, a benchmark) keeps few.
   */
  keepCalls?: number;
  /** Stream text word by word (for demos); by default the text comes as one delta. */
  chunkText?: 'word' | 'whole';
  /** Wait this long before each streamed chunk (for demos). */
  chunkDelayMs?: number;
}

type ModelOf<V extends ScriptedVersion> = [V] extends ['v4']
  ? LanguageModelV4
  : [V] extends ['v3']
    ? LanguageModelV3
    : LanguageModelV3 | LanguageModelV4;

export type ScriptedModel<V extends ScriptedVersion = 'v3'> = ModelOf<V> & {
  /** The latest calls made to the model (at most `keepCalls` of them), oldest first. */
  readonly calls: ScriptedCall<V>[];
  /** Every call made to the model, counted even when `calls` no longer keeps it. */
  readonly callCount: number;
};

/**
 * An AI SDK language model with no network: `respond` decides each answer. Tests and benchmarks
 * build agents with it; `model.calls` shows exactly what the model was sent in its latest calls.
 * `{ specificationVersion: 'v4' }` makes it an AI SDK 7 model, otherwise it is an AI SDK 6 one; the
 * stream parts it sends (text, tool calls, finish) have one shape in both specifications.
 *
 * @example
 * ```ts
 * const model = scriptedModel(({ stepIndex }) => (stepIndex === 0 ? { toolCalls: [{ toolName: 'refund', input: { orderId: 42 } }] } : { text: 'Refunded.' }));
 * const heed = createHeed({ agents: [{ name: 'support', model, tools: { refund } }] });
 * ```
 */
export function scriptedModel<V extends ScriptedVersion = 'v3'>(
  respond: ScriptedRespond<V>,
  options: ScriptedModelOptions<V> = {},
): ScriptedModel<V> {
  const calls: ScriptedCall<V>[] = [];
  const keep = options.keepCalls ?? DEFAULT_KEPT_CALLS;
  let callCount = 0;
  let callCounter = 0;

  // Both specifications call with `prompt` and `tools` of the same shape for what is read here.
  async function answer(callOptions: Pick<LanguageModelV3CallOptions, 'prompt' | 'tools'>) {
    const messages = callOptions.prompt as ScriptedPrompt<V>;
    const tools = (callOptions.tools ?? []).map((entry) => (entry as LanguageModelV3FunctionTool).name);
    const stepIndex = stepIndexOf(messages);
    callCount += 1;
    if (keep > 0) {
      calls.push({ messages, tools, stepIndex });
      if (calls.length > keep) calls.splice(0, calls.length - keep);
    }
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

  const model = {
    specificationVersion: options.specificationVersion ?? 'v3',
    provider: 'heed-testing',
    modelId: options.modelId ?? 'scripted',
    supportedUrls: {},
    calls,
    get callCount() {
      return callCount;
    },
    async doGenerate(callOptions: Pick<LanguageModelV3CallOptions, 'prompt' | 'tools'>) {
      const { content, usage, finishReason } = await answer(callOptions);
      return { content, usage, finishReason, warnings: [] };
    },
    async doStream(callOptions: Pick<LanguageModelV3CallOptions, 'prompt' | 'tools'>) {
      const { content, usage, finishReason, text } = await answer(callOptions);
      const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      if (text) {
        parts.push({ type: 'text-start', id: 't0' });
        const chunks = options.chunkText === 'word' ? (text.match(/\S+\s*|\s+/g) ?? [text]) : [text];
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
  // One object serves both specifications: its parts are valid v3 and v4 parts alike.
  return model as unknown as ScriptedModel<V>;
}

/** Model calls since the last user message: 0 for the first call of a turn. */
function stepIndexOf(messages: ReadonlyArray<{ role: string }>): number {
  let steps = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const role = messages[i].role;
    if (role === 'user') break;
    if (role === 'assistant') steps++;
  }
  return steps;
}

function roughUsage(messages: ReadonlyArray<{ content: unknown }>, response: ScriptedResponse) {
  let promptChars = 0;
  for (const message of messages) {
    promptChars +=
      typeof message.content === 'string' ? message.content.length : JSON.stringify(message.content).length;
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
