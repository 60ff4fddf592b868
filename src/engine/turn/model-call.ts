import type { JsonValue } from '../../types.js';
import {
  checkModel,
  type AgentModel,
  type ModelFunctionTool,
  type ModelPrompt,
  type ModelStreamPart,
} from './model-spec.js';

export interface ModelToolCall {
  toolCallId: string;
  toolName: string;
  /** Parsed input; a call whose input is not JSON keeps the raw text and `inputError`. */
  input: JsonValue;
  inputError?: string;
}

/** What one model call returned: its text and tool calls. */
export interface ModelReply {
  text: string;
  toolCalls: ModelToolCall[];
  tokens: number;
}

/**
 * One model call, streamed: text deltas go to `onDelta` as they come. The model may be of either
 * specification (see model-spec.ts for how they differ); the call options and the stream parts Heed
 * reads have one shape in both, so each branch only tells TypeScript which one it holds.
 */
export async function callModel(
  model: AgentModel,
  prompt: ModelPrompt,
  tools: ModelFunctionTool[],
  onDelta: (delta: string) => void,
  abortSignal: AbortSignal,
  agentName = 'agent',
): Promise<ModelReply> {
  checkModel(model, agentName);
  const options = {
    prompt,
    tools: tools.length > 0 ? tools : undefined,
    toolChoice: tools.length > 0 ? ({ type: 'auto' } as const) : undefined,
    abortSignal,
  };
  const { stream }: { stream: ReadableStream<ModelStreamPart> } =
    model.specificationVersion === 'v4' ? await model.doStream(options) : await model.doStream(options);
  let text = '';
  const toolCalls: ModelToolCall[] = [];
  let tokens = 0;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done) break;
      switch (part.type) {
        case 'text-delta':
          if (part.delta) {
            text += part.delta;
            onDelta(part.delta);
          }
          break;
        case 'tool-call':
          if (!part.providerExecuted) toolCalls.push(parseCall(part.toolCallId, part.toolName, part.input));
          break;
        case 'finish':
          tokens = (part.usage.inputTokens.total ?? 0) + (part.usage.outputTokens.total ?? 0);
          break;
        case 'error':
          throw part.error instanceof Error ? part.error : new Error(describe(part.error));
      }
    }
  } finally {
    reader.releaseLock();
  }
  return { text, toolCalls, tokens };
}

function parseCall(toolCallId: string, toolName: string, input: string): ModelToolCall {
  if (input.trim() === '') return { toolCallId, toolName, input: {} };
  try {
    return { toolCallId, toolName, input: JSON.parse(input) as JsonValue };
  } catch {
    return { toolCallId, toolName, input, inputError: 'The tool input is not valid JSON.' };
  }
}

function describe(error: unknown): string {
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error);
  } catch {
    return 'The model failed.';
  }
}
