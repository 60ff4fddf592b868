import { HeedError } from '../errors.js';
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

/** What a producer writes to. */
export interface SseWriter {
  send(message: SseMessage): void;
  /** Aborted when the client goes away, the server shuts down, or the stream is closed. */
  readonly signal: AbortSignal;
}

export interface SseOptions {
  /** Ends the stream early (server shutdown). */
  signal?: AbortSignal;
  /** A comment line keeps idle connections open through proxies. Default 15 s; 0 = never. */
  heartbeatMs?: number;
}

const encoder = new TextEncoder();
const lineBreak = /[\r\n]/;

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
 * closed when the producer returns.
 */
export function sseResponse(produce: (writer: SseWriter) => Promise<void>, options: SseOptions = {}): Response {
  const done = new AbortController();
  const stop = () => done.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  if (options.signal?.aborted) stop();
  let heartbeat: NodeJS.Timeout | undefined;

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string) => {
        if (done.signal.aborted) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          stop();
        }
      };
      const writer: SseWriter = { send: (message) => write(formatSse(message)), signal: done.signal };
      const every = options.heartbeatMs ?? 15_000;
      if (every > 0) {
        heartbeat = setInterval(() => write(': ping\n\n'), every);
        heartbeat.unref();
      }
      write(': stream open\n\n');
      void (async () => {
        try {
          await produce(writer);
        } catch (thrown) {
          const error = toHeedError(thrown);
          if (!HeedError.isInstance(thrown)) console.error('heed: an event stream failed', thrown);
          write(formatSse({ event: 'error', data: JSON.stringify(error.toJSON()) }));
        } finally {
          if (heartbeat) clearInterval(heartbeat);
          options.signal?.removeEventListener('abort', stop);
          stop();
          try {
            controller.close();
          } catch {
            // Already closed: the client went away.
          }
        }
      })();
    },
    cancel() {
      if (heartbeat) clearInterval(heartbeat);
      stop();
    },
  });

  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    },
  });
}
