/**
 * A TCP proxy a fault test controls, between one Heed instance and PostgreSQL:
 * - `pass`: bytes go both ways;
 * - `reset`: every connection, open or new, is reset (RST), as when a firewall or the server's host drops them;
 * - `swallow`: nothing goes through and nothing is refused, as in a network partition. Bytes sent
 *   meanwhile are held (nothing is read, so TCP stops the sender) and delivered once it is `pass`
 *   again, as a partition that heals delivers what TCP retransmits.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'pass' | 'reset' | 'swallow';

export interface Proxy {
  port: number;
  mode(next: ProxyMode): void;
  /** Connections accepted so far, and how many of them were reset. */
  counts(): { accepted: number; reset: number };
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

export async function startProxy(target: { host: string; port: number }): Promise<Proxy> {
  let mode: ProxyMode = 'pass';
  const pairs = new Set<Pair>();
  const held: Array<{ to: Socket; chunk: Buffer }> = [];
  let accepted = 0;
  let resets = 0;

  const reset = (pair: Pair) => {
    pairs.delete(pair);
    resets++;
    pair.client.resetAndDestroy();
    pair.upstream.resetAndDestroy();
  };

  const relay = (from: Socket, to: Socket) => {
    from.on('data', (chunk: Buffer) => {
      if (mode === 'swallow') {
        held.push({ to, chunk });
        from.pause();
        return;
      }
      if (!to.write(chunk)) {
        from.pause();
        to.once('drain', () => mode === 'pass' && from.resume());
      }
    });
  };

  const server: Server = createServer((client) => {
    accepted++;
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    const drop = () => {
      if (!pairs.delete(pair)) return;
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    if (mode === 'reset') return reset(pair);
    relay(client, upstream);
    relay(upstream, client);
    if (mode === 'swallow') {
      client.pause();
      upstream.pause();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    port: (server.address() as { port: number }).port,
    mode(next) {
      mode = next;
      if (next === 'reset') for (const pair of [...pairs]) reset(pair);
      if (next === 'swallow') {
        for (const { client, upstream } of pairs) {
          client.pause();
          upstream.pause();
        }
      }
      if (next === 'pass') {
        for (const { to, chunk } of held.splice(0)) if (!to.destroyed) to.write(chunk);
        for (const { client, upstream } of pairs) {
          client.resume();
          upstream.resume();
        }
      }
    },
    counts: () => ({ accepted, reset: resets }),
    async close() {
      for (const pair of [...pairs]) {
        pairs.delete(pair);
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
