/**
 * What the model reads of an MCP tool's result. Text stays text (or JSON beside structured content and
 * Heed's notes); images, audio and embedded binary resources go to the model as media parts of a
 * `content` tool output, never as base64 inside text.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolContent, type ToolContent } from '../tool.js';
import type { JsonValue, ToolContentPart } from '../types.js';

/**
 * Media of one result is passed on until its base64 adds up to this many characters (about 768 KiB
 * of bytes); later items are replaced by a sentence. It keeps one stored tool message within the
 * default `limits.maxStateBytes` (1 MiB).
 */
export const MAX_MEDIA_CHARS = 1024 * 1024;

type Block = NonNullable<CallToolResult['content']>[number];

/**
 * The result as a tool's return value. A result the server marked as an error becomes a tool error.
 * Without media: the server's text when that is all there is, else its content, structured content
 * and Heed's notes side by side as JSON. With media: text and media parts, in the server's order.
 */
export function toolOutput(result: CallToolResult, notes: string[]): JsonValue | ToolContent {
  const blocks = result.content ?? [];
  const text = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
  if (result.isError) {
    throw new Error([text || 'the server reported an error', ...notes].join(' '));
  }
  if (blocks.some(isMedia)) return mediaOutput(blocks, result.structuredContent, notes);
  const others = blocks.filter((block) => block.type !== 'text');
  if (others.length === 0 && result.structuredContent === undefined && notes.length === 0) return text;
  const output: Record<string, JsonValue> = {};
  if (text) output.text = text;
  if (others.length > 0) output.content = JSON.parse(JSON.stringify(others)) as JsonValue;
  if (result.structuredContent !== undefined)
    output.structuredContent = JSON.parse(JSON.stringify(result.structuredContent)) as JsonValue;
  if (notes.length > 0) output.notes = notes;
  return output;
}

function isMedia(block: Block): boolean {
  return block.type === 'image' || block.type === 'audio' || (block.type === 'resource' && 'blob' in block.resource);
}

function mediaOutput(blocks: Block[], structured: CallToolResult['structuredContent'], notes: string[]): ToolContent {
  const parts: ToolContentPart[] = [];
  let budget = MAX_MEDIA_CHARS;
  const media = (mediaType: string, data: string, what: string) => {
    if (data.length > budget) {
      parts.push({
        type: 'text',
        text: `[${what} (${mediaType}, ${approximateBytes(data)} bytes) was left out: one result passes on at most ${MAX_MEDIA_CHARS / 1024} KiB of base64 media.]`,
      });
      return;
    }
    budget -= data.length;
    parts.push({ type: 'media', mediaType, data });
  };
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: block.text });
        break;
      case 'image':
        media(block.mimeType, block.data, 'An image');
        break;
      case 'audio':
        media(block.mimeType, block.data, 'An audio clip');
        break;
      case 'resource':
        if ('blob' in block.resource)
          media(
            block.resource.mimeType ?? 'application/octet-stream',
            block.resource.blob,
            `The resource ${block.resource.uri}`,
          );
        else parts.push({ type: 'text', text: `Resource ${block.resource.uri}:\n${block.resource.text}` });
        break;
      case 'resource_link':
        parts.push({
          type: 'text',
          text: `Resource link: ${block.uri}${block.name ? ` (${block.name})` : ''}${block.mimeType ? `, ${block.mimeType}` : ''}`,
        });
        break;
    }
  }
  if (structured !== undefined) parts.push({ type: 'text', text: `Structured content: ${JSON.stringify(structured)}` });
  for (const note of notes) parts.push({ type: 'text', text: `Note: ${note}` });
  return toolContent(parts);
}

function approximateBytes(base64: string): number {
  return Math.floor((base64.length * 3) / 4);
}
