/**
 * A PostgreSQL cluster of a fault test's own: initdb into a temporary folder, started on a free port of
 * 127.0.0.1 with its socket in that folder, so restarting or killing it never touches the machine's
 * server on 5432. As root, initdb and pg_ctl run as the `postgres` user (PostgreSQL refuses root).
 */
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface Cluster {
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  url(database?: string): string;
  createDatabase(name: string): Promise<string>;
  /** `pg_ctl restart`: `fast` closes every connection cleanly, `immediate` is a crash of the server. */
  restart(mode?: 'fast' | 'immediate'): Promise<void>;
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its folder. */
  destroy(): Promise<void>;
}

/** Where the server binaries are (the newest version installed), or why there are none. */
export function postgresBinaries(): { bin: string } | { missing: string } {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const bin = join(root, version, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return { bin };
  }
  return {
    missing: `no PostgreSQL server binaries (initdb, pg_ctl) under ${root}; install postgresql to run the fault tests on PostgreSQL`,
  };
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** A free TCP port on 127.0.0.1 (free when asked; the server takes it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startCluster(bin: string): Promise<Cluster> {
  const base = tmpdir();
  const dir = mkdtempSync(join(base, 'heed-faults-pg-'));
  const data = join(dir, 'data');
  const asPostgres = async (program: string, args: string[]) => {
    const command = isRoot()
      ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]]
      : [join(bin, program), args];
    return run(command[0] as string, command[1] as string[], { maxBuffer: 16 * 1024 * 1024 });
  };
  if (isRoot()) {
    // The postgres user must reach the folder: the run's temporary root is root's own (0700), so let
    // others pass through it (not list it), and give the cluster's folder to postgres.
    chmodSync(base, statSync(base).mode | 0o001);
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(group.trim()));
  }
  await asPostgres('initdb', [
    '-D',
    data,
    '-A',
    'trust',
    '-U',
    'postgres',
    '-E',
    'UTF8',
    '--no-sync',
    '--no-instructions',
  ]);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c shared_buffers=16MB',
    '-c max_connections=80',
    '-c fsync=off',
    '-c full_page_writes=off',
  ].join(' ');
  const ctl = (args: string[]) =>
    asPostgres('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-t', '60', ...args]);
  const start = async () => {
    await ctl(['-o', options, '-w', 'start']);
  };
  await start();

  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  let destroyed = false;
  return {
    port,
    url,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url(), connectionTimeoutMillis: 10_000 });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async restart(mode = 'fast') {
      await ctl(['-m', mode, '-o', options, '-w', 'restart']);
    },
    async stop(mode = 'fast') {
      await ctl(['-m', mode, '-w', 'stop']);
    },
    start,
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      await ctl(['-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
