import { describe, expect, it } from 'vitest';
import { HeedError } from '../errors.js';
import { formatSse, sseResponse } from './sse.js';

describe('SSE writer', () => {
  it('formats events and splits multi-line data', () => {
    expect(formatSse({ event: 'turn.done', id: 3, data: 'a\nb' })).toBe(
      'event: turn.done\nid: 3\ndata: a\ndata: b\n\n',
    );
  });

  it('refuses CR or LF in event and id', () => {
    expect(() => formatSse({ event: 'x\ny', data: '' })).toThrow(HeedError);
    expect(() => formatSse({ id: '1\r', data: '' })).toThrow(/line break/);
  });

  it('sets the headers and always closes', async () => {
    const response = sseResponse(async (writer) => writer.send({ event: 'hello', data: '{}' }), { heartbeatMs: 0 });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toContain('no-cache');
    expect(await response.text()).toBe(': stream open\n\nevent: hello\ndata: {}\n\n');
  });

  it('sends an error event when the producer throws, without leaking internals', async () => {
    const known = sseResponse(
      async () => {
        throw new HeedError('not_found', 'Gone.');
      },
      { heartbeatMs: 0 },
    );
    expect(await known.text()).toContain('event: error\ndata: {"error":{"code":"not_found","message":"Gone."}}');
    const original = console.error;
    console.error = () => undefined;
    try {
      const unknown = sseResponse(
        async () => {
          throw new Error('secret stack detail');
        },
        { heartbeatMs: 0 },
      );
      const text = await unknown.text();
      expect(text).toContain('"code":"internal_error"');
      expect(text).not.toContain('secret stack detail');
    } finally {
      console.error = original;
    }
  });

  it('ends when the signal aborts', async () => {
    const controller = new AbortController();
    const response = sseResponse(
      (writer) => new Promise<void>((resolve) => writer.signal.addEventListener('abort', () => resolve())),
      {
        signal: controller.signal,
        heartbeatMs: 0,
      },
    );
    const reading = response.text();
    controller.abort();
    expect(await reading).toBe(': stream open\n\n');
  });
});
