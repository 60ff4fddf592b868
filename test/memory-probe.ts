/**
 * Memory and raw-socket helpers for the tests that attack the server's memory over real HTTP: heap after
 * a full garbage collection, and clients that connect and then never read.
 */
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** JS heap plus the buffers outside it (queued stream chunks live there), after a full collection. */
export async function settledMemory(): Promise<number> {
  for (let round = 0; round < 3; round++) {
    gc();
    await sleep(20);
  }
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

export const MB = 1024 * 1024;

/** A client that sent its request and read only the response head: it never reads the body. */
export interface StalledClient {
  socket: net.Socket;
  status: number;
  head: string;
}

/** Sends `method path` on a new connection, reads the response head, then stops reading. */
export function stalledRequest(
  url: string,
  method: string,
  path: string,
  token: string | null,
): Promise<StalledClient> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    socket.on('error', () => undefined);
    let head = '';
    socket.once('connect', () => {
      const auth = token ? `Authorization: Bearer ${token}\r\n` : '';
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${auth}\r\n`);
    });
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.pause();
      resolve({ socket, status: Number(head.slice(9, 12)), head: head.slice(0, end) });
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`the connection closed before a response head: ${head}`)));
  });
}

/** Polls until `check` is true (or the time is up), then returns its last answer. */
export async function eventually(check: () => boolean, withinMs = 3000): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (!check() && Date.now() < until) await sleep(20);
  return check();
}
