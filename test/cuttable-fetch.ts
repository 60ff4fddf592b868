/**
 * A `fetch` for heed/client whose streams a test can cut, as a dropped network or a stopped server
 * would: `cut()` breaks every open event stream and refuses new requests until `restore()`; `stall()`
 * keeps the connections open but lets no more bytes through (a proxy that hangs). Requests go to a real
 * server over loopback.
 */
export function cuttableFetch() {
  let down = false;
  let stalled = false;
  const open = new Map<ReadableStreamDefaultController<Uint8Array>, ReadableStreamDefaultReader<Uint8Array>>();
  let streamsOpened = 0;
  let refused = 0;

  const fetcher: typeof fetch = async (input, init) => {
    if (down) {
      refused++;
      throw new TypeError('fetch failed (the test cut the network)');
    }
    const response = await fetch(input, init);
    if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
    streamsOpened++;
    const reader = response.body.getReader();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(started) {
        controller = started;
        open.set(controller, reader);
      },
      async pull(pulled) {
        try {
          const { done, value } = await reader.read();
          if (stalled || !open.has(pulled)) return new Promise<void>(() => undefined);
          if (done) {
            open.delete(pulled);
            pulled.close();
          } else pulled.enqueue(value);
        } catch (thrown) {
          open.delete(pulled);
          pulled.error(thrown);
        }
      },
      cancel(reason) {
        open.delete(controller);
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };

  return {
    fetch: fetcher,
    /** Event streams opened so far. */
    get streamsOpened() {
      return streamsOpened;
    },
    /** Requests refused so far because the network was cut (each try of a client that retries). */
    get refused() {
      return refused;
    },
    /** Breaks every open stream and refuses new requests, as a stopped server does. */
    cut() {
      down = true;
      for (const [controller, reader] of open) {
        controller.error(new TypeError('network error (the test cut the stream)'));
        void reader.cancel().catch(() => undefined);
      }
      open.clear();
    },
    /** Lets requests through again. */
    restore() {
      down = false;
      stalled = false;
    },
    /** Keeps open streams open but silent, as a hung proxy does. */
    stall() {
      stalled = true;
    },
  };
}
