import type {
  LanguageModelV3,
  LanguageModelV3FunctionTool,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultOutput,
} from '@ai-sdk/provider';
import type { LanguageModelV4, LanguageModelV4StreamPart } from '@ai-sdk/provider-v4';
import { HeedError } from '../../errors.js';
import type { JsonValue, ToolOutput } from '../../types.js';
import type { ModelToolOutput } from './tool-output.js';

/**
 * An AI SDK language model: specification v4 (AI SDK 7: `ai@7`, `@ai-sdk/openai@4`, …) or v3
 * (AI SDK 6: `ai@6`, `@ai-sdk/openai@3`, …). Heed reads `specificationVersion` to tell them apart.
 *
 * What differs between the two for what Heed sends and reads (provider specification v3 → v4):
 * - Call options: v4 adds `reasoning` (an effort level). Heed sets neither it nor anything else new;
 *   `prompt`, `tools`, `toolChoice` and `abortSignal` have the same shape in both.
 * - Prompt parts: v4 renames the file part's data to a tagged `{ type: 'data' | 'url' | 'reference' |
 *   'text' }` union, adds `reasoning-file` and `custom` parts, and tool-result `content` outputs use one
 *   `file` item instead of `file-data`/`file-url`/`file-id`/`image-*`. Heed sends only text, tool-call and
 *   tool-result parts with `text`, `json` or `error-text` outputs, which are the same in both: one prompt
 *   (`ModelPrompt`) fits either. The one exception is a `content` output's media (an MCP tool's image),
 *   written in the model's own version's shape by `modelToolOutput` (tool-output.ts).
 * - Function tools and `toolChoice`: identical.
 * - Stream parts: v4 adds `ping` (keep-alive), `custom` and `reasoning-file` parts and `citations` on
 *   `text-end`. Heed reads `text-delta`, `tool-call`, `finish` and `error`, which are the same in both,
 *   and ignores the rest.
 * - Finish reason: v4 adds `interrupted` (the provider's stream ended without a completion signal).
 *   Heed does not branch on the finish reason: the text and tool calls received are what the step did.
 * - Usage: the same nested `{ inputTokens: { total, … }, outputTokens: { total, … } }` in both.
 */
export type AgentModel = LanguageModelV3 | LanguageModelV4;

export type SpecificationVersion = AgentModel['specificationVersion'];

/** The prompt parts Heed builds: a subset that is both a v3 and a v4 prompt. */
export type ModelPromptMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: Array<{ type: 'text'; text: string }> }
  | {
      role: 'assistant';
      content: Array<
        { type: 'text'; text: string } | { type: 'tool-call'; toolCallId: string; toolName: string; input: JsonValue }
      >;
    }
  | { role: 'tool'; content: ModelToolResultPart[] };

export interface ModelToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: ModelToolOutput;
}

export type ModelPrompt = ModelPromptMessage[];

/** A function tool offered to the model; the same type in v3 and v4. */
export type ModelFunctionTool = LanguageModelV3FunctionTool;

/** A stream part of either specification. */
export type ModelStreamPart = LanguageModelV3StreamPart | LanguageModelV4StreamPart;

// Compile-time proof that Heed's stored tool outputs are valid in both specifications.
type Assignable<T extends U, U> = T;
export type _OutputFitsV3 = Assignable<Exclude<ToolOutput, { type: 'content' }>, LanguageModelV3ToolResultOutput>;

const SUPPORTED: ReadonlySet<string> = new Set(['v3', 'v4']);

/** Refuses, with a sentence, a model Heed cannot drive (AI SDK 5's v2, a string id, anything else). */
export function checkModel(model: unknown, agentName: string): asserts model is AgentModel {
  const version = (model as { specificationVersion?: unknown } | null)?.specificationVersion;
  if (typeof model === 'object' && model !== null && typeof version === 'string' && SUPPORTED.has(version)) return;
  const seen =
    typeof model === 'string'
      ? `the string "${model}"`
      : version === undefined
        ? 'no specificationVersion'
        : `specificationVersion ${JSON.stringify(version)}`;
  throw new HeedError(
    'invalid_config',
    `Agent "${agentName}" needs an AI SDK 7 (specification v4) or AI SDK 6 (v3) language model object; it has ${seen}.`,
    {
      details: { agent: agentName, field: 'model' },
    },
  );
}
