import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { HeedError } from '../../errors.js';
import { requireOptional } from '../../optional-dependency.js';

/** What `backupSqlite` copied. */
export interface SqliteBackup {
  /** The copy's size, in bytes. */
  bytes: number;
  /** Conversations in the copy. */
  conversations: number;
}

/**
 * Copies the SQLite store at `from` to a new file `to` with SQLite's online backup, while servers keep
 * reading and writing `from`. The copy is one consistent snapshot of the file (a commit is in it whole
 * or not at all), checked with `quick_check` before it takes its name, so a file at `to` is always a
 * whole copy. Refuses (`invalid_request`) when `from` does not exist or `to` does.
 */
export async function backupSqlite(from: string, to: string): Promise<SqliteBackup> {
  if (!existsSync(from)) throw new HeedError('invalid_request', `There is no SQLite file at ${from} to back up.`);
  if (existsSync(to)) throw new HeedError('invalid_request', `${to} exists already; give a new file to back up to.`);
  const Driver = requireOptional<typeof Database>('better-sqlite3', 'heed backup');
  // Written under another name first: a copy cut short (a crash, a full disk) never looks like a backup.
  const partial = `${to}.partial-${process.pid}`;
  const source = new Driver(from, { fileMustExist: true, timeout: 5000 });
  try {
    // All the pages in one step, so in one read transaction: in WAL mode it sees one snapshot and holds
    // no writer back. Steps of a few pages would start over each time a server commits in between, and
    // under steady writes might never end.
    await source.backup(partial, { progress: () => 0x7fffffff });
  } catch (error) {
    removeCopy(partial);
    throw error;
  } finally {
    source.close();
  }
  let conversations: number;
  try {
    conversations = checkCopy(Driver, partial);
  } catch (error) {
    removeCopy(partial);
    throw error;
  }
  renameSync(partial, to);
  return { bytes: statSync(to).size, conversations };
}

/** Opens the copy as a database, checks its pages and counts its conversations. */
function checkCopy(Driver: typeof Database, path: string): number {
  const copy = new Driver(path, { fileMustExist: true });
  try {
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok')
      throw new HeedError('internal_error', `The copy at ${path} failed SQLite's quick_check: ${String(check)}.`);
    return copy.prepare('SELECT count(*) FROM conversations').pluck().get() as number;
  } finally {
    // The last connection to close folds its WAL back into the file: the copy is one file again.
    copy.close();
  }
}

function removeCopy(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
}
