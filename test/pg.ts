import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The PostgreSQL server the tests and benchmarks run against: `HEED_TEST_DATABASE_URL` (set by the
 * test set-up in test/setup, which makes a database for the run), else the local server's `test` database. Each test file gets a fresh database of its own on it.
 *
 * When no server answers, `pgServer` is undefined and `pgSkipReason` says why, so PostgreSQL tests skip
 * (`describe.skipIf(!pgServer)`), except under `CI=true`, where importing this module fails instead.
 */
const url = process.env.HEED_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export const pgServer: string | undefined = await reachable(url);
export const pgSkipReason = pgServer
  ? ''
  : (process.env.HEED_TEST_SKIP_PG ?? `no PostgreSQL server answered at ${redact(url)}`);

// Under `npm test` the set-up (test/setup) has already said why in one line, or failed the run under CI.
if (!pgServer && process.env.CI === 'true') throw new Error(`CI=true but ${pgSkipReason}.`);
if (!pgServer && !process.env.HEED_TEST_SKIP_PG) console.warn(`(${pgSkipReason}; PostgreSQL tests are skipped)`);

export interface TestDatabase {
  /** Connection string of the fresh database. */
  url: string;
  /** Drops the database (closing whatever is still connected to it). */
  drop(): Promise<void>;
}

/** Creates an empty database `<prefix>_<random>` on the server. */
export async function freshDatabase(prefix = 'heed_test'): Promise<TestDatabase> {
  if (!pgServer) throw new Error(pgSkipReason);
  // The run's tag (set by test/setup) lets the run drop what a file cut short left behind.
  const tag = process.env.HEED_TEST_RUN_TAG ? `_${process.env.HEED_TEST_RUN_TAG}` : '';
  const name = `${prefix}${tag}_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const target = new URL(pgServer);
  target.pathname = `/${name}`;
  return {
    url: target.toString(),
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgServer });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function reachable(connectionString: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return connectionString;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function redact(connectionString: string): string {
  try {
    const parsed = new URL(connectionString);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured URL';
  }
}
