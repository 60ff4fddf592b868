import { describe, expect, it } from 'vitest';
import { isToolContent } from '../tool.js';
import { MAX_MEDIA_CHARS, toolOutput } from './results.js';

describe('toolOutput', () => {
  it('keeps a text-only result as text, and puts media in content parts in the server order', () => {
    expect(toolOutput({ content: [{ type: 'text', text: 'hi' }] }, [])).toBe('hi');
    const output = toolOutput(
      {
        content: [
          { type: 'text', text: 'a picture:' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'audio', data: 'BBBB', mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'file:///r.bin', blob: 'CCCC', mimeType: 'application/pdf' } },
          { type: 'resource_link', uri: 'file:///x.txt', name: 'x' },
        ],
        structuredContent: { ok: true },
      },
      ['a note'],
    );
    expect(isToolContent(output)).toBe(true);
    expect(isToolContent(output) && output.parts).toEqual([
      { type: 'text', text: 'a picture:' },
      { type: 'media', mediaType: 'image/png', data: 'AAAA' },
      { type: 'media', mediaType: 'audio/wav', data: 'BBBB' },
      { type: 'media', mediaType: 'application/pdf', data: 'CCCC' },
      { type: 'text', text: 'Resource link: file:///x.txt (x)' },
      { type: 'text', text: 'Structured content: {"ok":true}' },
      { type: 'text', text: 'Note: a note' },
    ]);
  });

  it('passes at most 1 MiB of base64 media per result; the rest becomes a sentence', () => {
    const big = 'A'.repeat(MAX_MEDIA_CHARS - 8);
    const output = toolOutput(
      {
        content: [
          { type: 'image', data: big, mimeType: 'image/png' },
          { type: 'image', data: 'A'.repeat(16), mimeType: 'image/jpeg' },
          { type: 'image', data: 'AAAA', mimeType: 'image/gif' },
        ],
      },
      [],
    );
    if (!isToolContent(output)) throw new Error('expected content');
    expect(output.parts.map((part) => (part.type === 'media' ? part.mediaType : part.text))).toEqual([
      'image/png',
      '[An image (image/jpeg, 12 bytes) was left out: one result passes on at most 1024 KiB of base64 media.]',
      'image/gif',
    ]);
  });
});
