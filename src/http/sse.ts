import { setMaxListeners } from 'node:events';
import { HeedError } from '../errors.js';
import { defaults } from '../config-schema.js';
import { toHeedError } from './errors.js';

/** One Server-Sent Event. */
export interface SseMessage {
  /** Event name; may not contain CR or LF. */
  event?: string;
  /** Event id (the client sends the last one back as `Last-Event-ID`); may not contain CR or LF. */
  id?: string | number;
  /** Sent as one `data:` line per line of text. */
  data: string;
}

/** Whether the receiving end can take more now, and a way to wait until it can. */
export interface FlowControl {
  /** True while what was sent and not yet read by the client is under the stream's high-water mark. */
  hasRoom(): boolean;
  /** Resolves once `hasRoom()` is true again, or the stream has ended. */
  ready(): Promise<void>;
}

/** What a producer writes to. A producer that reads a lot (a backlog) awaits `ready()` before each read. */
export interface SseWriter extends FlowControl {
  send(message: SseMessage): void;
  /** Aborted when the client goes away, the server shuts down, or the stream is closed. */
  readonly signal: AbortSignal;
}

export interface SseOptions {
  /** Ends the stream early (server shutdown). */
  signal?: AbortSignal;
  /** A comment line keeps idle connections open through proxies. Default 15 s; 0 = never. */
  heartbeatMs?: number;
  /**
   * The request being answered. A `HEAD` gets the headers alone and no producer runs; its signal
   * (the client went away) ends the stream.
   */
  request?: Request;
  /** Bytes sent and not yet taken by the client above which `hasRoom()` is false. Default 64 KiB. */
  highWaterMarkBytes?: number;
  /**
   * Bytes sent and not yet taken by the client above which the stream is dropped: a client that stops
   * reading is cut off rather than held in memory (it can resume with `Last-Event-ID`). Default 1 MiB.
   */
  maxQueuedBytes?: number;
  /** Called once when the stream ends however it ends (HEAD, producer done, client gone, dropped). */
  onEnd?: () => void;
  /** Called when the stream is dropped for a client that does not read (e.g. to close its connection). */
  onDrop?: () => void;
}

export const streamDefaults = { highWaterMarkBytes: 64 * 1024, maxQueuedBytes: defaults.streamQueueBytes };

const encoder = new TextEncoder();
const lineBreak = /[\r\n]/;

const HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** Formats one event; refuses CR/LF in `event` and `id`, which would let data forge other fields. */
export function formatSse(message: SseMessage): string {
  for (const key of ['event', 'id'] as const) {
    const value = message[key];
    if (value !== undefined && lineBreak.test(String(value))) {
      throw new HeedError('internal_error', `An SSE ${key} may not contain a line break.`);
    }
  }
  let text = '';
  if (message.event !== undefined) text += `event: ${message.event}\n`;
  if (message.id !== undefined) text += `id: ${message.id}\n`;
  for (const line of message.data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  return `${text}\n`;
}

/**
 * A `text/event-stream` response fed by `produce`. If the producer throws, an `error` event with the
 * usual error body is sent (internals of unexpected errors stay on the server); the stream is always
 * closed when the producer returns. The stream is pulled: what the client has not read counts against
 * `maxQueuedBytes`, and producers wait on `ready()` rather than queueing without end.
 */
export function sseResponse(produce: (writer: SseWriter) => Promise<void>, options: SseOptions = {}): Response {
  if (options.request?.method === 'HEAD') {
    // Nothing would ever read the body: start no producer at all.
    options.onEnd?.();
    return new Response(null, { headers: HEADERS });
  }
  const highWater = options.highWaterMarkBytes ?? streamDefaults.highWaterMarkBytes;
  const maxQueued = options.maxQueuedBytes ?? streamDefaults.maxQueuedBytes;
  const done = new AbortController();
  let heartbeat: NodeJS.Timeout | undefined;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let waiters: Array<() => void> = [];
  const wake = () => {
    const woken = waiters;
    waiters = [];
    for (const resolve of woken) resolve();
  };
  const outside = [options.signal, options.request?.signal].filter(
    (signal): signal is AbortSignal => signal !== undefined,
  );
  // The server's shutdown signal is shared by every open stream: more than ten is expected, not a leak.
  if (options.signal) setMaxListeners(0, options.signal);
  const finish = () => {
    if (done.signal.aborted) return;
    if (heartbeat) clearInterval(heartbeat);
    for (const signal of outside) signal.removeEventListener('abort', finish);
    done.abort();
    wake();
    options.onEnd?.();
  };
  const queued = () => highWater - (controller.desiredSize ?? 0);
  const hasRoom = () => !done.signal.aborted && (controller.desiredSize ?? 0) > 0;
  const drop = () => {
    finish();
    // Cutting the connection makes the server cancel the stream, which discards its queue. Without a
    // way to cut it, erroring the stream discards the queue (closing would keep it until read).
    if (options.onDrop) return options.onDrop();
    try {
      controller.error(new Error('The client does not read the stream.'));
    } catch {
      // Already ended.
    }
  };
  const write = (text: string) => {
    if (done.signal.aborted) return;
    if (queued() > maxQueued) return drop();
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      finish();
    }
  };
  const writer: SseWriter = {
    send: (message) => write(formatSse(message)),
    signal: done.signal,
    hasRoom,
    ready: () =>
      hasRoom() || done.signal.aborted ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve)),
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController;
        for (const signal of outside) {
          if (signal.aborted) finish();
          else signal.addEventListener('abort', finish, { once: true });
        }
        const every = options.heartbeatMs ?? 15_000;
        if (every > 0 && !done.signal.aborted) {
          // A ping only matters on an idle connection; one with unread data is not idle.
          heartbeat = setInterval(() => queued() <= 0 && write(': ping\n\n'), every);
          heartbeat.unref();
        }
        write(': stream open\n\n');
        void (async () => {
          try {
            if (!done.signal.aborted) await produce(writer);
          } catch (thrown) {
            const error = toHeedError(thrown);
            if (!HeedError.isInstance(thrown)) console.error('heed: an event stream failed', thrown);
            write(formatSse({ event: 'error', data: JSON.stringify(error.toJSON()) }));
          } finally {
            finish();
            try {
              controller.close();
            } catch {
              // Already closed or dropped: the client went away.
            }
          }
        })();
      },
      pull() {
        wake();
      },
      cancel() {
        finish();
      },
    },
    { highWaterMark: highWater, size: (chunk) => chunk.byteLength },
  );

  return new Response(body, { headers: HEADERS });
}
