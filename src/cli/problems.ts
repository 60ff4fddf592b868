import { readFileSync } from 'node:fs';
import { HeedError } from '../errors.js';

/** How `heed` exits: documented in `heed --help` and docs/http.md. */
export const EXIT = {
  /** Done, or the server stopped cleanly. */
  ok: 0,
  /** It did not start, or failed: the line printed says why and what to do. */
  failed: 1,
  /** The command line is wrong (an unknown option, a value of the wrong form). */
  usage: 2,
} as const;

/** This package's version, read from its package.json (two folders up from src/cli and dist/cli alike). */
export function heedVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof manifest.version === 'string' ? manifest.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Why a value is not a PostgreSQL URL, as a sentence that says what to give instead; undefined when it
 * is one. `pg` reads anything else as a host name or a socket path (`heed.db` became the host `base`).
 */
export function databaseUrlProblem(value: string, source: '--database-url' | 'HEED_DATABASE_URL'): string | undefined {
  if (/^postgres(ql)?:\/\/./i.test(value.trim())) return undefined;
  const sqlite = /\.(db|sqlite3?)$/i.test(value.trim()) || !value.includes('://');
  return (
    `${source} takes a PostgreSQL URL such as postgres://user:password@localhost:5432/heed; got "${value}".` +
    (sqlite ? ` For a SQLite file use --db ${value.trim() || './heed.db'} instead.` : '')
  );
}

/** A listening socket's error as a HeedError that says what to do. */
export function listenProblem(thrown: unknown, host: string, port: number): HeedError {
  const code = (thrown as { code?: unknown } | null)?.code;
  const where = `${host}:${port}`;
  if (code === 'EADDRINUSE') {
    return new HeedError(
      'invalid_config',
      `Port ${port} on ${host} is already in use (another heed serve?). Stop what uses it, or pick another port with --port (0 picks a free one).`,
      {
        details: { port, host },
        cause: thrown,
      },
    );
  }
  if (code === 'EACCES') {
    return new HeedError(
      'invalid_config',
      `This user may not listen on ${where}: ports below 1024 need more privileges. Pick a port from 1024 up with --port.`,
      {
        details: { port, host },
        cause: thrown,
      },
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new HeedError(
      'invalid_config',
      `${host} is not an address of this machine, so nothing can listen there. Give --host an address it has (127.0.0.1 by default, 0.0.0.0 for all).`,
      {
        details: { port, host },
        cause: thrown,
      },
    );
  }
  return new HeedError(
    'invalid_config',
    `Could not listen on ${where}: ${thrown instanceof Error ? thrown.message : String(thrown)}.`,
    { details: { port, host }, cause: thrown },
  );
}

/** What stopped the start, as the one line `heed` prints after `heed: `. */
export function startProblem(thrown: unknown): string {
  if (HeedError.isInstance(thrown)) return thrown.message;
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return `${message.split('\n')[0]} (set HEED_DEBUG=1 to see where it happened).`;
}
