import { importOptional } from '../../optional-dependency.js';

// The few methods of a PostgreSQL client the store calls, so `pg` (or a compatible client) stays swappable.

/** A query; with `name` the client prepares it once per connection and reuses the plan. */
export interface QueryConfig {
  text: string;
  values?: unknown[];
  name?: string;
  /** Milliseconds to wait for the answer, instead of the connection's own `query_timeout`. */
  query_timeout?: number;
}

export interface QueryResultLike<Row> {
  rows: Row[];
  rowCount: number | null;
}

/** One connection: the `pg` `Client`/`PoolClient` methods the store uses. */
export interface ClientLike {
  query<Row = Record<string, unknown>>(query: string | QueryConfig, values?: unknown[]): Promise<QueryResultLike<Row>>;
  /** Events the LISTEN connection watches: `notification`, `error`, `end`. */
  on(event: string, listener: (...args: any[]) => void): unknown;
  off?(event: string, listener: (...args: any[]) => void): unknown;
}

/**
 * Listens for `error` on a connection borrowed from the pool while it is held: a connection reset between two of
 * its queries is emitted there, and with no listener it would end the process. The failed query (or the next
 * one) still rejects. Returns what stops listening, for when it goes back to the pool.
 */
export function holdErrors(client: ClientLike): () => void {
  const ignore = () => undefined;
  client.on('error', ignore);
  return () => void client.off?.('error', ignore);
}

/** A connection borrowed from a pool. `release(true)` (or an error) destroys it instead of returning it. */
export interface PoolClientLike extends ClientLike {
  release(destroy?: boolean | Error): void;
}

/** A connection pool: `pg.Pool` or anything with the same three methods. */
export interface PoolLike {
  query<Row = Record<string, unknown>>(query: string | QueryConfig, values?: unknown[]): Promise<QueryResultLike<Row>>;
  connect(): Promise<PoolClientLike>;
  end(): Promise<void>;
}

/** A connection made for LISTEN, and how to let it go. */
export interface ListenConnection {
  client: ClientLike;
  close(error?: Error): Promise<void>;
}

/** How long a query and a new connection may take by default before they fail as `store_unavailable`. */
export const QUERY_TIMEOUT_MS = 10_000;
export const CONNECT_TIMEOUT_MS = 5_000;

/** Opens `pg` lazily, so a process that never uses PostgreSQL never loads it. */
export async function openPool(options: {
  connectionString: string;
  max: number;
  synchronousCommit?: 'on' | 'off';
  queryTimeoutMs?: number;
  connectTimeoutMs?: number;
}): Promise<{
  pool: PoolLike;
  /** A dedicated connection outside the pool, for LISTEN. */
  listenConnection: () => Promise<ListenConnection>;
}> {
  const { default: pg } = await importOptional<typeof import('pg')>('pg', 'The PostgreSQL store');
  // Without timeouts a query sent into a network that swallows it, or a connection the server never
  // answers, waits for ever, and so does the request behind it. A query that timed out destroys its
  // connection (the pool does not reuse a connection a query failed on). Keep-alive probes start after
  // 10 s idle, so a LISTEN connection to a server that vanished is noticed in about 20 s.
  const timeouts = {
    connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    query_timeout: options.queryTimeoutMs ?? QUERY_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max,
    ...timeouts,
    // Set per connection at startup, so no statement pays for it.
    ...(options.synchronousCommit === 'off' ? { options: '-c synchronous_commit=off' } : {}),
  });
  // An idle connection the server drops emits 'error' on the pool; without a listener that would crash the process.
  pool.on('error', () => undefined);
  return {
    pool,
    async listenConnection() {
      const client = new pg.Client({ connectionString: options.connectionString, ...timeouts });
      client.on('error', () => undefined);
      await client.connect();
      let closed: Promise<void> | undefined;
      // Ending a connection that already broke fails; it is gone either way.
      return { client, close: () => (closed ??= client.end().catch(() => undefined)) };
    },
  };
}

/** A dedicated LISTEN connection borrowed from a pool the caller gave (held until closed). */
export function poolListenConnection(pool: PoolLike): () => Promise<ListenConnection> {
  return async () => {
    const client = await pool.connect();
    let released = false;
    return {
      client,
      async close(error) {
        if (released) return;
        released = true;
        // Destroyed, not returned: a connection that LISTENed (or failed) must not serve queries again.
        client.release(error ?? true);
      },
    };
  };
}

/** `"name"`, doubled quotes inside. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
