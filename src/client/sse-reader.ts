/** One parsed Server-Sent Event. */
export interface SseEvent {
  event: string;
  id?: string;
  data: string;
}

/**
 * Reads a `text/event-stream` body event by event (comments and `retry:` are skipped). `onBytes` is
 * called whenever bytes arrive, comments included: a server's heartbeats show the connection lives.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
  onBytes?: () => void,
): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = 'message';
  let id: string | undefined;
  let data: string[] = [];
  // The caller aborted: the read loop ends on its own; a cancel that fails has nothing left to stop.
  const onAbort = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onBytes?.();
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (data.length > 0) yield { event, ...(id !== undefined ? { id } : {}), data: data.join('\n') };
          event = 'message';
          id = undefined;
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = text;
        else if (field === 'data') data.push(text);
        else if (field === 'id') id = text;
      }
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // A consumer that stops early must not leave the connection open.
    await reader.cancel().catch(() => undefined);
  }
}
