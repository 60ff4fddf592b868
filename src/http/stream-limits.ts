import type { Context } from 'hono';
import type { Caller } from '../caller.js';
import { HeedError } from '../errors.js';
import { defaults } from '../config-schema.js';
import { errorResponse } from './errors.js';
import type { AppEnv } from './route.js';
import { streamDefaults, type SseOptions } from './sse.js';

/** Limits on live streams (Server-Sent Events), so no caller can make the server hold memory for them. */
export interface StreamLimits {
  /**
   * Streams and long polls (`/api/requests/:id/wait`) one caller may hold open at once: a signed-in user,
   * or one client address when anonymous. Past it a new one gets 429 `rate_limited` with `Retry-After`. Default 16.
   */
  maxPerCaller?: number;
  /**
   * Bytes one stream may have sent and not yet read by its client; past it the stream is dropped (the
   * client resumes with `Last-Event-ID`). Default 1 MiB.
   */
  maxQueuedBytes?: number;
}

export const streamLimitDefaults = {
  maxPerCaller: defaults.streamsPerCaller,
  maxQueuedBytes: streamDefaults.maxQueuedBytes,
  retryAfterSeconds: 5,
};

/** Counts the open streams of each caller against the limits. */
export class StreamGate {
  private readonly open = new Map<string, number>();
  readonly maxPerCaller: number;
  readonly maxQueuedBytes: number;

  constructor(limits: StreamLimits = {}) {
    this.maxPerCaller = limits.maxPerCaller ?? streamLimitDefaults.maxPerCaller;
    this.maxQueuedBytes = limits.maxQueuedBytes ?? streamLimitDefaults.maxQueuedBytes;
  }

  /** Streams open now, for one caller key or in all. */
  count(key?: string): number {
    if (key !== undefined) return this.open.get(key) ?? 0;
    let total = 0;
    for (const value of this.open.values()) total += value;
    return total;
  }

  /** Takes a slot for `key`: a function that gives it back (once), or undefined when the caller is at the limit. */
  take(key: string): (() => void) | undefined {
    const now = this.open.get(key) ?? 0;
    if (now >= this.maxPerCaller) return undefined;
    this.open.set(key, now + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left <= 0) this.open.delete(key);
      else this.open.set(key, left);
    };
  }
}

interface NodeBindings {
  incoming?: { socket?: { remoteAddress?: string } };
  outgoing?: { destroy(): void };
}

/** Whose streams these are: the user, or for an anonymous caller the address it connects from. */
export function streamKey(c: Context<AppEnv>, caller: Caller): string {
  if (caller.userId !== null) return `user:${caller.userId}`;
  const address = (c.env as NodeBindings | undefined)?.incoming?.socket?.remoteAddress;
  return `anonymous:${address ?? 'unknown'}`;
}

/**
 * Takes one of the caller's stream slots for something held open (a stream, a long poll): the function
 * that gives it back, or a 429 `rate_limited` response when the caller already holds as many as allowed.
 */
export function takeStreamSlot(c: Context<AppEnv>, caller: Caller): (() => void) | Response {
  const gate = c.get('streams') ?? fallback;
  const release = gate.take(streamKey(c, caller));
  if (release) return release;
  const response = errorResponse(
    new HeedError(
      'rate_limited',
      `You already have ${gate.maxPerCaller} live streams or waits open; close one before opening another.`,
      {
        details: { limit: 'streamsPerCaller', max: gate.maxPerCaller },
      },
    ),
  );
  response.headers.set('retry-after', String(streamLimitDefaults.retryAfterSeconds));
  return response;
}

/**
 * Opens a stream for the caller: the options `sseResponse` needs (the slot is given back when the stream
 * ends), or a 429 `rate_limited` response when the caller already holds as many as allowed.
 */
export function openStream(c: Context<AppEnv>, caller: Caller): SseOptions | Response {
  const release = takeStreamSlot(c, caller);
  if (release instanceof Response) return release;
  return {
    request: c.req.raw,
    maxQueuedBytes: (c.get('streams') ?? fallback).maxQueuedBytes,
    onEnd: release,
    // Cut the connection too: a client that does not read would otherwise keep its socket.
    onDrop: () => (c.env as NodeBindings | undefined)?.outgoing?.destroy(),
  };
}

/** For an app built without createApp's middleware (tests that mount routes alone). */
const fallback = new StreamGate();
