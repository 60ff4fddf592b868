/** Real receivers on loopback for the notification tests: a webhook endpoint and an SMTP server. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface WebhookCall {
  headers: IncomingHttpHeaders;
  body: string;
  /** The status this receiver answered with. */
  status: number;
}

/**
 * A webhook endpoint. `answer(call number)` picks the status of each request (default 204); `hold`
 * makes a request wait forever (the sender's timeout or death ends it); a promise answers when it
 * resolves (a slow receiver), the call being recorded as it arrives.
 */
export async function webhookReceiver(answer: (n: number) => number | 'hold' | Promise<number> = () => 204) {
  const calls: WebhookCall[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const decided = answer(calls.length + 1);
      const call = {
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        status: typeof decided === 'number' ? decided : 0,
      };
      calls.push(call);
      for (const wake of waiters) wake();
      if (decided === 'hold') return;
      void Promise.resolve(decided).then((status) => {
        call.status = status;
        response.statusCode = status;
        response.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    calls,
    /** Resolves once `predicate` holds for the calls so far (checked after each call). */
    async until(predicate: (calls: WebhookCall[]) => boolean, timeoutMs = 10_000): Promise<WebhookCall[]> {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(calls)) {
        if (Date.now() > deadline) throw new Error(`webhook receiver: condition not met; got ${calls.length} calls`);
        await new Promise<void>((resolve) => {
          const wake = () => (waiters.delete(wake), resolve());
          waiters.add(wake);
          setTimeout(wake, 50);
        });
      }
      return calls;
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** An SMTP server on loopback that keeps every mail, parsed. `refuse(n)` answers the n-th mail with a temporary failure. */
export async function smtpReceiver(refuse: (n: number) => boolean = () => false) {
  const mails: ParsedMail[] = [];
  let tries = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      tries += 1;
      const n = tries;
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', async () => {
        if (refuse(n)) {
          const error = Object.assign(new Error('Try again later'), { responseCode: 451 });
          return callback(error);
        }
        mails.push(await simpleParser(Buffer.concat(chunks)));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    transport: `smtp://127.0.0.1:${port}`,
    mails,
    get tries() {
      return tries;
    },
    async until(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline)
          throw new Error(`smtp receiver: condition not met; got ${mails.length} mails after ${tries} tries`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Polls until `check` returns a value other than undefined. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('eventually: timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
