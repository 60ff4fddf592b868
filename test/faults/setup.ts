/**
 * What the fault tests share: whether they can have a PostgreSQL cluster of their own, a temporary
 * folder with the tool log, and `heed serve` processes on the fault config.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresBinaries, startCluster, type Cluster } from './cluster.js';
import { startServe, type ServeProcess } from '../serve-process.js';

const binaries = postgresBinaries();

/**
 * Why the PostgreSQL fault tests cannot run here, or undefined when they can. Without the server's
 * binaries they skip, saying so in one line; under `CI=true` that fails the run instead, unless the
 * run was given an outside server (HEED_TEST_DATABASE_URL), where no cluster of the test's own can be made.
 */
export const clusterSkip: string | undefined = 'missing' in binaries ? binaries.missing : undefined;
if (clusterSkip && process.env.CI === 'true' && !process.env.HEED_TEST_DATABASE_URL)
  throw new Error(`CI=true but ${clusterSkip}.`);
if (clusterSkip) console.warn(`(${clusterSkip}; the PostgreSQL fault tests are skipped)`);

export function newCluster(): Promise<Cluster> {
  if ('missing' in binaries) throw new Error(binaries.missing);
  return startCluster(binaries.bin);
}

export interface Workspace {
  dir: string;
  log: string;
  serve(store: string[], env?: Record<string, string>): Promise<ServeProcess>;
  remove(): void;
}

/** A temporary folder for one test file: the tool log, SQLite files. */
export function workspace(name: string): Workspace {
  const dir = mkdtempSync(join(tmpdir(), `heed-faults-${name}-`));
  const log = join(dir, 'tool.log');
  return {
    dir,
    log,
    serve: (store, env = {}) =>
      startServe(['--config', 'test/fixtures/faults.config.mjs', ...store], { HEED_FAULTS_LOG: log, ...env }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
