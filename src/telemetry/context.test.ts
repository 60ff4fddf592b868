import { describe, expect, it } from 'vitest';
import { formatTraceparent, parseTraceparent, runUnder, traceHeaders } from './context.js';

describe('traceparent (W3C Trace Context)', () => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const spanId = '00f067aa0ba902b7';

  it('reads a valid header, and writes it back the same', () => {
    const header = `00-${traceId}-${spanId}-01`;
    expect(parseTraceparent(header)).toEqual({ traceId, spanId, sampled: true });
    expect(formatTraceparent(parseTraceparent(header)!)).toBe(header);
    expect(parseTraceparent(`00-${traceId}-${spanId}-00`)).toEqual({ traceId, spanId, sampled: false });
    // A later version may add fields after the flags; it is read as version 00.
    expect(parseTraceparent(`01-${traceId}-${spanId}-01-extra`)).toEqual({ traceId, spanId, sampled: true });
  });

  it('ignores what is not one: the work then starts a trace of its own', () => {
    for (const header of [
      undefined,
      '',
      'garbage',
      `00-${'0'.repeat(32)}-${spanId}-01`,
      `00-${traceId}-${'0'.repeat(16)}-01`,
      `ff-${traceId}-${spanId}-01`,
      `00-${traceId}-${spanId}-01-extra`,
      `00-${traceId.slice(1)}-${spanId}-01`,
      `00-${traceId}-${spanId}-0x`,
    ])
      expect(parseTraceparent(header), String(header)).toBeUndefined();
  });

  it('sends a traceparent only under a span', async () => {
    expect(traceHeaders()).toEqual({});
    const inside = await runUnder({ traceId, spanId, sampled: true }, async () => {
      await Promise.resolve();
      return traceHeaders();
    });
    expect(inside).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
    expect(traceHeaders()).toEqual({});
  });
});
