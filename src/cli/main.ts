#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { HeedError } from '../errors.js';
import { serve } from './serve.js';

const usage = `Usage: heed serve [--config heed.config.ts] [--db ./heed.db | --database-url postgres://…] [--port 3000] [--host 127.0.0.1]
       heed inbox [--url http://127.0.0.1:3000] [--token <token>] [--json]   (heed inbox --help for its keys)

  --config <file>   a .ts, .js or .mjs file that default-exports defineConfig({ agents, ... });
                    without it, demo agents run (on a real model when OPENAI_API_KEY is set)
  --db <file>       the SQLite file that keeps conversations and pauses (default ./heed.db)
  --database-url <url>
                    a PostgreSQL database instead (also HEED_DATABASE_URL), for several instances
  --port <n>        port to listen on; 0 picks a free one (default 3000)
  --host <address>  address to listen on (default 127.0.0.1); before going beyond loopback,
                    set auth and allowedHosts in the config (README, "Security")`;

/** Runs `heed <command>`; resolves with the exit code, or never while the server runs. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(usage);
    return command ? 0 : 1;
  }
  if (command === 'inbox') return runInboxCommand(rest);
  if (command !== 'serve') {
    console.error(`Unknown command "${command}".\n\n${usage}`);
    return 1;
  }
  let values;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        config: { type: 'string', short: 'c' },
        db: { type: 'string' },
        'database-url': { type: 'string' },
        port: { type: 'string', short: 'p' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (thrown) {
    console.error(`${thrown instanceof Error ? thrown.message : String(thrown)}\n\n${usage}`);
    return 1;
  }
  if (values.help) {
    console.log(usage);
    return 0;
  }
  if (values['database-url'] && values.db) {
    console.error(`Give --db (SQLite) or --database-url (PostgreSQL), not both.\n\n${usage}`);
    return 1;
  }
  const port = values.port === undefined ? 3000 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a whole number from 0 to 65535; got ${values.port}.`);
    return 1;
  }

  const server = await serve({ config: values.config, db: values.db, databaseUrl: values['database-url'], port, host: values.host });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      console.log('Stopping now.');
      process.exit(1);
    }
    stopping = true;
    console.log(`${signal}: finishing requests under way, then stopping (again to stop at once).`);
    server.close().then(
      () => {
        console.log('Heed stopped.');
        process.exit(0);
      },
      (thrown: unknown) => {
        console.error('Heed could not stop cleanly:', thrown);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  return new Promise<number>(() => undefined);
}

/** Loads the terminal inbox only when asked for, so `heed serve` never loads Ink or React. */
async function runInboxCommand(args: string[]): Promise<number> {
  let inbox: typeof import('./inbox/run.js');
  // Ink draws only the last frame when it thinks it runs in CI (CI=true); a person at a terminal must see
  // every frame, so a real terminal wins. It reads the variable once, when it is first loaded.
  const interactive = process.stdin.isTTY && process.stdout.isTTY;
  const ci = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
  if (interactive) for (const key of Object.keys(ci)) delete process.env[key];
  try {
    inbox = await import('./inbox/run.js');
  } catch (thrown) {
    if ((thrown as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw thrown;
    console.error(`heed inbox needs Ink and React 19 beside Heed (${(thrown as Error).message.split('\n')[0]}). Install them with: npm install ink react`);
    return 1;
  } finally {
    // Give programs the inbox starts (an $EDITOR) the environment as it was.
    for (const [key, value] of Object.entries(ci)) if (value !== undefined) process.env[key] = value;
  }
  return inbox.runInbox(args);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (thrown: unknown) => {
    if (HeedError.isInstance(thrown)) console.error(`heed: ${thrown.message}`);
    else console.error('heed:', thrown);
    process.exit(1);
  },
);
