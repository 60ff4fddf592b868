import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

// Runs in a worker thread with its own connection: copying the WAL back into the database file then
// happens beside the writes instead of inside one of them (which showed as the slowest 1% of commits).
const source = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: 5000 });
const timer = setInterval(() => {
  // A checkpoint that fails (the file busy, say) is tried again in everyMs; commits never wait for it.
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
}, workerData.everyMs);
parentPort.once('message', () => {
  clearInterval(timer);
  // Best effort on the way out: what is left in the WAL is checkpointed by the next open.
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
  db.close();
  parentPort.postMessage('closed');
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/** Starts checkpointing `path` every `everyMs` from a worker thread. */
export function startCheckpointer(path: string, everyMs: number): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(source, { eval: true, workerData: { path, driver, everyMs } });
  worker.unref();
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        worker.once('message', () => resolve());
        worker.once('exit', () => resolve());
        worker.once('error', () => resolve());
        worker.postMessage('stop');
      }).then(() => worker.terminate().then(() => undefined));
      return stopped;
    },
  };
}
