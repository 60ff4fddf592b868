import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The span a piece of work runs under, as W3C Trace Context has it (https://www.w3.org/TR/trace-context/):
 * kept here with no OpenTelemetry type, so the engine, the outbox and the HTTP layer can carry it (and
 * an outgoing request can send it) without loading OpenTelemetry.
 */
export interface SpanContext {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** 16 lowercase hex digits, not all zero. */
  spanId: string;
  /** The `sampled` flag. */
  sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** A `traceparent` header's span, or undefined for anything else (malformed, all-zero ids, version ff). */
export function parseTraceparent(header: string | null | undefined): SpanContext | undefined {
  const match = header ? TRACEPARENT.exec(header.trim().toLowerCase()) : null;
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  // Version 00 has nothing after the flags; a later version may, and is read as 00 (the spec says so).
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 };
}

/** The `traceparent` header of a span. */
export function formatTraceparent(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-${span.sampled ? '01' : '00'}`;
}

const current = new AsyncLocalStorage<SpanContext>();

/** Runs `work` with `span` as the current span: what it starts and sends is under it. */
export function runUnder<T>(span: SpanContext, work: () => T): T {
  return current.run(span, work);
}

/** The current span, if any: only ever set while traces are on. */
export function currentSpan(): SpanContext | undefined {
  return current.getStore();
}

/** `{ traceparent }` for an outgoing request under the current span; nothing while traces are off. */
export function traceHeaders(): Record<string, string> {
  const span = current.getStore();
  return span ? { traceparent: formatTraceparent(span) } : {};
}
