/**
 * What `npm test` needs besides node_modules, prepared by the test run itself so that the README's
 * two commands work on a fresh machine: Debian's Chromium for the browser tests, a running PostgreSQL
 * with a database of this run's own, and one temporary folder that every test's temp files live in.
 *
 * Each step says in one line what it did. Without CI a missing piece skips the tests that need it
 * (with the command that would enable them); under `CI=true` it fails the run instead.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM = process.env.HEED_CHROMIUM ?? '/usr/bin/chromium';
const PG_HOST = '127.0.0.1';
const PG_PORT = '5432';

const inCi = () => process.env.CI === 'true';

/** One line of the set-up's own report. */
export function say(line: string): void {
  process.stdout.write(`[test setup] ${line}\n`);
}

function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): { ok: boolean; output: string } {
  const result = spawnSync(command, args, { encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 });
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() };
}

/** Fails the run under CI; otherwise reports the skip. */
function missing(what: string, enable: string): string {
  const line = `${what}; ${enable}`;
  if (inCi()) throw new Error(`CI=true and ${line}. Under CI nothing may be skipped.`);
  say(`${line} (skipping those tests).`);
  return line;
}

/**
 * A Debian package a group of tests needs, installed with apt-get when its program is missing and this
 * process may (root, apt-get present). Returns why those tests must skip, or undefined when they can run.
 */
function prepareDebianPackage(options: {
  name: string;
  program: string;
  tests: string;
  overridden?: boolean;
}): string | undefined {
  const { name, program, tests } = options;
  if (existsSync(program)) return undefined;
  const enable = `run \`sudo apt-get install ${name}\` to enable the ${tests}`;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (options.overridden || !isRoot || !has('apt-get')) return missing(`no ${name} at ${program}`, enable);
  say(`installing Debian's ${name} for the ${tests} (once; this can take a minute)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = run('apt-get', ['update'], env);
  const install = update.ok ? run('apt-get', ['install', '-y', '--no-install-recommends', name], env) : update;
  if (!install.ok || !existsSync(program)) {
    return missing(`installing ${name} failed:\n${install.output.split('\n').slice(-5).join('\n')}\n`, enable);
  }
  say(`installed ${name} at ${program}.`);
  return undefined;
}

/** Debian's Chromium for the browser tests of the console (`HEED_CHROMIUM` points elsewhere, never installed). */
export function prepareChromium(): string | undefined {
  return prepareDebianPackage({
    name: 'chromium',
    program: CHROMIUM,
    tests: 'browser tests',
    overridden: Boolean(process.env.HEED_CHROMIUM),
  });
}

/** tmux, the real terminal that the end-to-end test of `heed inbox` types into. */
export function prepareTmux(): string | undefined {
  return prepareDebianPackage({ name: 'tmux', program: '/usr/bin/tmux', tests: 'terminal inbox test' });
}

export interface PreparedDatabase {
  url: string;
  /** Drops the run's database and stops the server if this run started it. Synchronous, so it can run on exit. */
  cleanUp(): void;
}

function pgReady(): boolean {
  return run('pg_isready', ['-q', '-h', PG_HOST, '-p', PG_PORT]).ok;
}

function psql(sql: string): { ok: boolean; output: string } {
  return run('psql', [
    '-h',
    PG_HOST,
    '-p',
    PG_PORT,
    '-U',
    'postgres',
    '-d',
    'postgres',
    '-v',
    'ON_ERROR_STOP=1',
    '-qc',
    sql,
  ]);
}

/** Starts the local cluster when it is installed but stopped; true when this run started it. */
function startLocalCluster(): boolean {
  if (!has('pg_ctlcluster') || !existsSync('/etc/postgresql')) return false;
  const version = readdirSync('/etc/postgresql').sort().at(-1);
  if (!version) return false;
  say(`starting the local PostgreSQL ${version} cluster…`);
  run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start']);
  for (let tries = 0; tries < 60 && !pgReady(); tries++) spawnSync('sleep', ['0.5']);
  if (!pgReady()) return false;
  say(`started PostgreSQL ${version} (it is stopped again after the run).`);
  process.env.HEED_TEST_STARTED_PG = version;
  return true;
}

/**
 * A fresh database for this run on the local PostgreSQL (starting the server when it is installed but
 * stopped). `HEED_TEST_DATABASE_URL`, when set, is used as it is and left alone.
 */
export function prepareDatabase(runTag: string): PreparedDatabase | string {
  if (process.env.HEED_TEST_DATABASE_URL) {
    say(`using the PostgreSQL database at HEED_TEST_DATABASE_URL.`);
    return { url: process.env.HEED_TEST_DATABASE_URL, cleanUp: () => undefined };
  }
  const enable = 'install PostgreSQL (`apt-get install postgresql`) or set HEED_TEST_DATABASE_URL to enable them';
  if (!has('psql') || !has('pg_isready'))
    return missing('no PostgreSQL client tools (psql, pg_isready) are installed', enable);
  let startedVersion: string | undefined;
  if (!pgReady()) {
    if (!startLocalCluster())
      return missing(`no PostgreSQL server answers at ${PG_HOST}:${PG_PORT} and none could be started`, enable);
    startedVersion = process.env.HEED_TEST_STARTED_PG;
  }
  const name = `heed_test_run_${runTag}_main`;
  const created = psql(`CREATE DATABASE ${name}`);
  if (!created.ok) return missing(`creating a database failed: ${created.output}`, enable);
  say(`created PostgreSQL database ${name} for this run (dropped after it).`);
  let cleaned = false;
  return {
    url: `postgres://postgres@${PG_HOST}:${PG_PORT}/${name}`,
    cleanUp() {
      if (cleaned) return;
      cleaned = true;
      // Test files make databases of their own on the same server (test/pg.ts), named with this run's tag
      // and dropped by each file; a run cut short leaves them behind, so drop whatever carries the tag.
      const leftOver = run('psql', [
        '-h',
        PG_HOST,
        '-p',
        PG_PORT,
        '-U',
        'postgres',
        '-d',
        'postgres',
        '-Atc',
        `SELECT datname FROM pg_database WHERE datname LIKE '%\\_${runTag}\\_%'`,
      ]);
      const names = leftOver.ok ? leftOver.output.split('\n').filter((line) => /^[a-z0-9_]+$/.test(line)) : [];
      for (const database of [name, ...names]) psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      if (startedVersion) run('pg_ctlcluster', ['--skip-systemctl-redirect', startedVersion, 'main', 'stop']);
    },
  };
}

/** One temporary folder for the whole run; every test's `os.tmpdir()` points into it. */
export function prepareTempRoot(): { path: string; cleanUp(): void } {
  const path = mkdtempSync(join(tmpdir(), 'heed-test-run-'));
  return {
    path,
    cleanUp() {
      // Servers that tests started from this folder (their SQLite files live here) must not outlive the run.
      run('pkill', ['-KILL', '-f', path]);
      rmSync(path, { recursive: true, force: true });
    },
  };
}
