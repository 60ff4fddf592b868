/**
 * Where Heed says what goes wrong in the background (the sweep, the listener, the deliverer, channels)
 * and what `heed serve` does: the `logger` option of createHeed, in the shape of pino and of a
 * console wrapper, so either can be passed as it is (docs/deploy.md, "Logs").
 *
 * @example
 * createHeed({ agents, logger: pino() }); // a pino logger fits as it is
 */
export interface Logger {
  debug(fields: object, message?: string): void;
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** An error as log fields: `{ err: { name, message, code? } }` (pino's key), with no stack unless HEED_DEBUG is set. */
export function errorFields(error: unknown): {
  err: { name: string; message: string; code?: unknown; stack?: string };
} {
  if (!(error instanceof Error)) return { err: { name: typeof error, message: String(error) } };
  const code = (error as { code?: unknown }).code;
  return {
    err: {
      name: error.name,
      message: error.message,
      ...(code !== undefined ? { code } : {}),
      ...(process.env.HEED_DEBUG && error.stack ? { stack: error.stack } : {}),
    },
  };
}

/**
 * The default: lines on the console (stderr), warnings and errors only, so a library stays quiet
 * until something goes wrong. `level: 'debug'` shows everything.
 *
 * @example
 * createHeed({ agents, logger: consoleLogger({ level: 'info' }) });
 */
export function consoleLogger(options: { level?: LogLevel } = {}): Logger {
  const threshold = rank[options.level ?? 'warn'];
  const line = (level: Exclude<LogLevel, 'silent'>) => (fields: object, message?: string) => {
    if (rank[level] < threshold) return;
    const { err, ...rest } = fields as { err?: { message?: string } };
    const detail = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : '';
    const cause = err?.message ? `: ${err.message}` : '';
    const write = level === 'error' ? console.error : level === 'warn' ? console.warn : console.log;
    write(`Heed ${level}: ${message ?? ''}${cause}${detail}`);
  };
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}

/**
 * One JSON object per line (`{ level, time, msg, ...fields }`), what `heed serve --log json` prints.
 *
 * @example
 * createHeed({ agents, logger: jsonLogger({ level: 'info' }) });
 */
export function jsonLogger(options: { level?: LogLevel; write?: (line: string) => void } = {}): Logger {
  const threshold = rank[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  const line = (level: Exclude<LogLevel, 'silent'>) => (fields: object, message?: string) => {
    if (rank[level] < threshold) return;
    write(
      `${JSON.stringify({ level, time: new Date().toISOString(), ...(message !== undefined ? { msg: message } : {}), ...fields })}\n`,
    );
  };
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}

/** Says nothing: for tests that expect failures, or a caller that logs elsewhere. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
