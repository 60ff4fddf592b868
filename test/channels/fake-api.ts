/**
 * Plays a chat platform's API for the channel tests: a local HTTP server (pointed at by the channel's
 * `apiUrl`) that records every call and answers with what the test's `answer` gives.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ApiCall {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  answer?: any;
}

export interface FakeApi {
  url: string;
  calls: ApiCall[];
  /** Resolves once `check` holds of the calls (polled; fails after `timeoutMs`). */
  until(check: (calls: ApiCall[]) => boolean, timeoutMs?: number): Promise<ApiCall[]>;
  close(): Promise<void>;
}

/** `answer` gives the status and JSON body of each call (the call is recorded first). */
export async function fakeApi(
  answer: (call: ApiCall) => { status?: number; body: unknown } | undefined,
): Promise<FakeApi> {
  const calls: ApiCall[] = [];
  const server: Server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        // Not JSON: kept as text.
      }
      const call: ApiCall = {
        method: request.method ?? 'GET',
        path: (request.url ?? '').split('?')[0],
        headers: request.headers,
        body,
      };
      calls.push(call);
      const answered = answer(call) ?? { status: 404, body: { ok: false, error: 'unknown method' } };
      call.answer = answered.body;
      response
        .writeHead(answered.status ?? 200, { 'content-type': 'application/json' })
        .end(JSON.stringify(answered.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    calls,
    async until(check, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (!check(calls)) {
        if (Date.now() > deadline)
          throw new Error(`The fake API never saw what the test waits for:\n${JSON.stringify(calls, null, 1)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return calls;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
