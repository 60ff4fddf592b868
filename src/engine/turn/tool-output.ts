import type { LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import type { LanguageModelV4ToolResultOutput } from '@ai-sdk/provider-v4';
import type { EventData } from '../../protocol/events.js';
import type { ToolContentPart, ToolOutput } from '../../types.js';

type V3Content = Extract<LanguageModelV3ToolResultOutput, { type: 'content' }>['value'][number];
type V4Content = Extract<LanguageModelV4ToolResultOutput, { type: 'content' }>['value'][number];

/**
 * A tool output as the model is sent it, typed as the part both AI SDK specifications share (one
 * prompt type serves both). A `content` output's media parts are in the model's own version's shape,
 * which that shared type cannot spell: v3's `image-data`/`file-data`, v4's `file`.
 */
export type ModelToolOutput =
  Exclude<ToolOutput, { type: 'content' }> | { type: 'content'; value: Array<{ type: 'text'; text: string }> };

export function modelToolOutput(output: ToolOutput, version: 'v3' | 'v4'): ModelToolOutput {
  if (output.type !== 'content') return output;
  if (version === 'v4') {
    const value = output.value.map((part): V4Content =>
      part.type === 'text'
        ? part
        : { type: 'file', mediaType: part.mediaType, data: { type: 'data', data: part.data } },
    );
    return { type: 'content', value } as ModelToolOutput;
  }
  const value = output.value.map((part): V3Content =>
    part.type === 'text'
      ? part
      : {
          type: part.mediaType.startsWith('image/') ? 'image-data' : 'file-data',
          mediaType: part.mediaType,
          data: part.data,
        },
  );
  return { type: 'content', value } as ModelToolOutput;
}

/**
 * The output as the event log keeps it: media is already stored once, in the tool result message, so
 * the `tool.result` event says only what it was and how big.
 */
export function eventToolOutput(output: ToolOutput): Pick<EventData<'tool.result'>, 'output'> {
  if (output.type !== 'content') return { output };
  const value = output.value.map((part: ToolContentPart) =>
    part.type === 'text'
      ? part
      : {
          type: 'media',
          mediaType: part.mediaType,
          bytes:
            Math.floor((part.data.length * 3) / 4) - (part.data.endsWith('==') ? 2 : part.data.endsWith('=') ? 1 : 0),
        },
  );
  return { output: { type: 'content', value } };
}
