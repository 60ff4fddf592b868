import type { EventNotice } from '../store.js';
import { quoteIdentifier, type ListenConnection } from './pool.js';

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5000;

/**
 * The advisory lock every LISTEN connection on `channel` holds shared (the SQL expression of its key, from
 * the channel's name as `param`). A commit sends its NOTIFY only when it cannot take the lock exclusively,
 * that is while some process listens; one that took it holds it until it commits, so a listener that starts
 * meanwhile waits for that commit, and reads it afterwards (a start and a reconnect are followed by a
 * re-read, `onReconnect`). With no process listening, commits cost the database no notification.
 */
export function listenerLock(param: string): string {
  return `hashtext('heed:listen:' || ${param}::text)`;
}

/**
 * Keeps one connection LISTENing on `channel` and hands each notice on. When the connection drops it
 * reconnects (backing off up to 5 s) and calls `onReconnect`, since notices sent meanwhile are lost.
 * Resolves once the first LISTEN is in place, or after the first attempt failed (it keeps trying).
 * The returned function stops listening and closes the connection.
 */
export async function listenForEvents(
  open: () => Promise<ListenConnection>,
  channel: string,
  onEvents: (notice: EventNotice) => void,
  onReconnect?: () => void,
): Promise<() => Promise<void>> {
  let stopped = false;
  let current: ListenConnection | undefined;
  let retry: NodeJS.Timeout | undefined;
  let delay = RETRY_MIN_MS;

  const connect = async (): Promise<void> => {
    const connection = await open();
    let dropped = false;
    const drop = (error?: Error) => {
      if (dropped) return;
      dropped = true;
      if (current === connection) current = undefined;
      // Dropped already and replaced below; a close that fails has nothing left to close.
      connection.close(error ?? new Error('The LISTEN connection ended.')).catch(() => undefined);
      schedule(true);
    };
    connection.client.on('notification', (message: { channel: string; payload?: string }) => {
      if (message.channel !== channel || !message.payload) return;
      const notice = parseNotice(message.payload);
      if (notice) onEvents(notice);
    });
    connection.client.on('error', (error: Error) => drop(error));
    connection.client.on('end', () => drop());
    try {
      // Held while this connection lives: commits NOTIFY only while some connection holds it (listenerLock).
      await connection.client.query({
        text: `SELECT pg_advisory_lock_shared(${listenerLock('$1')})`,
        values: [channel],
      });
      await connection.client.query(`LISTEN ${quoteIdentifier(channel)}`);
    } catch (error) {
      drop(error as Error);
      throw error;
    }
    if (stopped) {
      dropped = true;
      await connection.close();
      return;
    }
    current = connection;
    delay = RETRY_MIN_MS;
  };

  const schedule = (reconnecting: boolean) => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().then(
        () => {
          if (reconnecting && !stopped) onReconnect?.();
        },
        () => {
          delay = Math.min(RETRY_MAX_MS, delay * 2);
          schedule(true);
        },
      );
    }, delay);
    retry.unref();
  };

  try {
    await connect();
  } catch {
    schedule(true);
  }

  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    retry = undefined;
    const connection = current;
    current = undefined;
    await connection?.close();
  };
}

function parseNotice(payload: string): EventNotice | undefined {
  try {
    const value = JSON.parse(payload) as { conversationId?: unknown; seq?: unknown };
    if (typeof value.conversationId === 'string' && typeof value.seq === 'number')
      return { conversationId: value.conversationId, seq: value.seq };
  } catch {
    // Not ours: ignore.
  }
  return undefined;
}
