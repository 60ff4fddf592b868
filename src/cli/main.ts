#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { HeedError } from '../errors.js';
import { errorFields, jsonLogger } from '../logger.js';
import { EXIT, databaseUrlProblem, heedVersion, startProblem } from './problems.js';
import { serve } from './serve.js';
import { operateUsage, runOperate } from './operate.js';
import { stopWhenParentEnds } from './parent-watch.js';

const usage = `Usage: heed serve [--config heed.config.ts] [--db ./heed.db | --database-url postgres://…] [--port 3000] [--host 127.0.0.1] [--log json]
       heed inbox [--url http://127.0.0.1:3000] [--token <token>] [--json]   (heed inbox --help for its keys)
       heed inbox --login [--url …]   sign the terminal in through the browser (--logout revokes it)
       heed mcp --url <server> [--token <token>]   a stdio MCP server forwarding to <server>/mcp (heed mcp --help)
       heed backup [--db ./heed.db] --to <file>   copy the SQLite store while it serves (heed backup --help)
${operateUsage}
       heed --version

  --config <file>   a .ts, .js or .mjs file that default-exports defineConfig({ agents, ... });
                    without it, the demo runs: demo agents (on a real model when OPENAI_API_KEY is set),
                    demo users ada and grace, a few waiting requests, mail kept in a folder
  --db <file>       the SQLite file that keeps conversations and pauses (default ./heed.db)
  --database-url <url>
                    a PostgreSQL database instead (also HEED_DATABASE_URL), for several instances
  --port <n>        port to listen on; 0 picks a free one (default 3000)
  --host <address>  address to listen on (default 127.0.0.1); before going beyond loopback,
                    set auth and allowedHosts in the config (README, "Security")
  --mail-capture <dir>
                    keep the mail the config's notify.email would send as .eml files in <dir>
                    instead of sending it (the demo keeps its mail in heed-mail beside the database)
  --log <format>    text (default): lines for people; json: one JSON object per line and event
                    ({ level, time, msg, ... }) on stdout, for a log collector

Exit codes: 0 stopped cleanly, 1 did not start or failed (the line printed says why), 2 the command line is wrong.`;

/** Runs `heed <command>`; resolves with the exit code, or never while the server runs. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-v' || command === 'version') {
    console.log(`heed ${heedVersion()}`);
    return EXIT.ok;
  }
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(usage);
    return command ? EXIT.ok : EXIT.usage;
  }
  if (command === 'inbox') return runInboxCommand(rest);
  if (command === 'audit' || command === 'erase') return runOperate(command, rest);
  // Loaded only when asked for: heed serve never loads the MCP SDK's client for it.
  if (command === 'mcp') return (await import('./mcp-bridge.js')).runMcpBridge(rest);
  if (command === 'backup') return (await import('./backup.js')).runBackup(rest);
  if (command !== 'serve') {
    console.error(
      `heed: there is no command "${command}"; the commands are serve, inbox, mcp, backup, audit and erase (heed --help shows them).`,
    );
    return EXIT.usage;
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
        'mail-capture': { type: 'string' },
        log: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
    }));
  } catch (thrown) {
    // Node's sentence, without its advice about positional arguments (serve takes none).
    const first = (thrown instanceof Error ? thrown.message : String(thrown)).split('. ')[0].replace(/\.$/, '');
    console.error(`heed serve: ${first} (heed serve --help lists the options).`);
    return EXIT.usage;
  }
  if (values.help) {
    console.log(usage);
    return EXIT.ok;
  }
  if (values.version) {
    console.log(`heed ${heedVersion()}`);
    return EXIT.ok;
  }
  if (values['database-url'] !== undefined && values.db) {
    console.error('heed serve: give --db (a SQLite file) or --database-url (PostgreSQL), not both.');
    return EXIT.usage;
  }
  const badUrl =
    values['database-url'] === undefined ? undefined : databaseUrlProblem(values['database-url'], '--database-url');
  if (badUrl) {
    console.error(`heed serve: ${badUrl}`);
    return EXIT.usage;
  }
  const port = values.port === undefined ? 3000 : Number(values.port);
  if (values.port?.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(
      `heed serve: --port takes a whole number from 0 to 65535 (0 picks a free one); got "${values.port}".`,
    );
    return EXIT.usage;
  }

  if (values.log !== undefined && values.log !== 'text' && values.log !== 'json') {
    console.error(`heed serve: --log takes text or json; got "${values.log}".`);
    return EXIT.usage;
  }
  // With --log json every line is a JSON object: the server's own lines and what Heed logs alike.
  const logger = values.log === 'json' ? jsonLogger() : undefined;
  const say = logger
    ? (line: string) => (line.startsWith('Warning: ') ? logger.warn({}, line.slice(9)) : logger.info({}, line))
    : (line: string) => console.log(line);
  // Handlers go in before the server starts: a signal that came between "Heed listening" and their
  // installation would end the process with no cleanup. One that comes during the start is acted on after it.
  let early: string | undefined;
  let onSignal = (why: string): void => {
    early ??= why;
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => onSignal(signal));
  const server = await serve({
    log: say,
    logger,
    config: values.config,
    db: values.db,
    databaseUrl: values['database-url'],
    port,
    host: values.host,
    mailCapture: values['mail-capture'],
  });
  let stopping = false;
  const stop = (why: string, again: 'stop at once' | 'ignore' = 'stop at once') => {
    if (stopping) {
      if (again === 'ignore') return;
      say('Stopping now.');
      process.exit(EXIT.failed);
    }
    stopping = true;
    say(`${why}: finishing requests under way, then stopping (again to stop at once).`);
    server.close().then(
      () => {
        say('Heed stopped.');
        process.exit(EXIT.ok);
      },
      (thrown: unknown) => {
        if (logger) logger.error(errorFields(thrown), 'Heed could not stop cleanly');
        else console.error(`Heed could not stop cleanly: ${thrown instanceof Error ? thrown.message : String(thrown)}`);
        process.exit(EXIT.failed);
      },
    );
  };
  onSignal = (why) => stop(why);
  if (early) stop(early);
  // Under npx or npm run, the server runs below npm and a shell: a signal sent to npm's process id reaches
  // the shell, which ends without passing it on, and would leave the server running. When npm goes, so do we.
  stopWhenParentEnds(process.env, () => stop('npm ended', 'ignore'));
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
    console.error(
      `heed inbox needs Ink and React 19 beside Heed (${(thrown as Error).message.split('\n')[0]}). Install them with: npm install ink react`,
    );
    return EXIT.failed;
  } finally {
    // Give programs the inbox starts (an $EDITOR) the environment as it was.
    for (const [key, value] of Object.entries(ci)) if (value !== undefined) process.env[key] = value;
  }
  return inbox.runInbox(args);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (thrown: unknown) => {
    console.error(`heed: ${startProblem(thrown)}`);
    if (!HeedError.isInstance(thrown) && process.env.HEED_DEBUG) console.error(thrown);
    process.exit(EXIT.failed);
  },
);
