import { requireOptional } from '../optional-dependency.js';
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serve as listen } from '@hono/node-server';
import type { HeedConfig } from '../config.js';
import { checkConfig } from '../config-schema.js';
import { seedDemo } from '../demo/seed.js';
import { HeedError } from '../errors.js';
import type { Logger } from '../logger.js';
import { createHeed, hooksOf, type Heed } from '../heed.js';
import { createApp } from '../http/app.js';
import { defaultConsoleDir, hasConsole } from '../http/console.js';
import { isLoopbackAddress } from '../http/host-check.js';
import { mailCapture } from '../notify/mail-capture.js';
import type { DemoInfo } from '../protocol/responses.js';
import { postgresStore } from '../store/postgres/postgres-store.js';
import { sqliteStore } from '../store/sqlite/sqlite-store.js';
import { demoServer, mailLine } from './demo-server.js';
import { checkModels } from './model-check.js';
import { databaseUrlProblem, listenProblem } from './problems.js';

export interface ServeOptions {
  /**
   * A `.ts`, `.js` or `.mjs` file whose default export is `defineConfig(...)`, or that config itself;
   * without it the demo agents run.
   */
  config?: string | HeedConfig;
  /** SQLite file; default `./heed.db`. Wins over the config's `store`. */
  db?: string;
  /**
   * A PostgreSQL database (`postgres://…`), for several instances on one database; default `HEED_DATABASE_URL`
   * from `env` unless `db` is given. Wins over the config's `store`.
   */
  databaseUrl?: string;
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Largest request body, in bytes (413 above). Default 1 MiB. */
  maxBodyBytes?: number;
  /** Environment to read `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `OPENAI_MODEL`, `HEED_DATABASE_URL` from (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Where progress lines go (default stdout). */
  log?: (line: string) => void;
  /** What Heed logs in the background (the config's `logger` wins); `heed serve --log json` passes a jsonLogger. */
  logger?: Logger;
  /** The web console at `/`: true (default) serves the built one in `dist/ui`, a string another build, false none. */
  console?: boolean | string;
  /**
   * Keep the mail `notify.email` would send as .eml files in this folder instead of sending it. The demo
   * keeps its mail in `heed-mail` beside its SQLite file (or in the working folder) unless this says where.
   */
  mailCapture?: string;
}

/** A running server. */
export interface RunningServer {
  /** e.g. `http://127.0.0.1:3000`. */
  url: string;
  heed: Heed;
  /** Set when this is the demo (no config) with its users: who they are and their demo-only tokens. */
  demo?: DemoInfo;
  /**
   * Answers one request in process, as the socket would (Hono's `app.request`): for tests and for
   * embedding the server in another HTTP stack. The caller counts as `127.0.0.1` for per-address limits.
   */
  fetch(request: Request): Promise<Response>;
  /**
   * Stops taking requests, ends live event streams, lets requests under way finish (an answer that was
   * accepted is carried through), waits for continuations, then closes the store.
   */
  close(): Promise<void>;
}

/** How long `close()` lets requests under way run before it cuts their connections. */
const DRAIN_MS = 10_000;

/**
 * Starts Heed's HTTP server.
 *
 * @example
 * ```ts
 * const server = await serve({ config: './heed.config.ts', port: 3000 });
 * console.log(server.url);
 * await server.close();
 * ```
 */
export async function serve(options: ServeOptions = {}): Promise<RunningServer> {
  const log = options.log ?? ((line: string) => console.log(line));
  const env = options.env ?? process.env;
  const hostname = options.host ?? '127.0.0.1';
  const databaseUrl = options.databaseUrl ?? (options.db ? undefined : env.HEED_DATABASE_URL || undefined);
  const badUrl =
    databaseUrl === undefined
      ? undefined
      : databaseUrlProblem(databaseUrl, options.databaseUrl === undefined ? 'HEED_DATABASE_URL' : '--database-url');
  if (badUrl)
    throw new HeedError('invalid_config', badUrl, {
      details: { field: options.databaseUrl === undefined ? 'HEED_DATABASE_URL' : '--database-url' },
    });
  const sqlitePath = options.db === ':memory:' ? undefined : resolve(options.db ?? './heed.db');
  const isDemo = options.config === undefined;
  let demo: DemoInfo | undefined;
  let seed = false;
  let config: HeedConfig;
  if (typeof options.config === 'string') config = await loadConfig(options.config);
  else if (options.config) config = options.config;
  else {
    const mailDir = resolve(
      options.mailCapture ?? join(databaseUrl || !sqlitePath ? '.' : dirname(sqlitePath), 'heed-mail'),
    );
    ({ config, demo, seed } = await demoServer({ env, log, loopback: isLoopbackAddress(hostname), mailDir }));
    if (demo) log(`Demo mail is kept in ${mailDir}, one .eml file each, and listed here.`);
  }
  // Before anything is opened: a typo or a value of the wrong shape stops the start, naming its path.
  checkConfig(config, typeof options.config === 'string' ? `The config ${options.config}` : 'The config');
  if (!isDemo && config.agents.length === 0)
    log('Warning: the config has no agents, so there is nothing to talk to; add some to agents: [ … ].');
  for (const agent of config.agents) {
    const remote = agent.remote && URL.canParse(agent.remote.url) ? new URL(agent.remote.url) : undefined;
    // Its calls carry every message of the conversation, and its replies become the agent's turns.
    if (remote?.protocol === 'http:' && !isLoopbackAddress(remote.hostname.replace(/^\[|\]$/g, ''))) {
      log(
        `Warning: the remote agent "${agent.name}" is called over plain http:// at ${remote.host}: anyone on the network between can read the conversations and forge its replies; use https://.`,
      );
    }
  }
  if (!isDemo && options.mailCapture) config = withMailCapture(config, resolve(options.mailCapture), log);
  const store = databaseUrl
    ? postgresStore({ connectionString: databaseUrl })
    : options.db || !config.store
      ? sqliteStore({ path: sqlitePath ?? ':memory:' })
      : config.store;
  if (databaseUrl) {
    // Fail at start, with a readable message, when the database cannot be reached.
    await store.migrate().catch(async (thrown: unknown) => {
      await store.close().catch(() => undefined); // the start failed: that error is the one thrown below
      const reason = (thrown instanceof Error ? thrown.message : String(thrown)).replace(/\.$/, '');
      throw new HeedError(
        'invalid_config',
        `The PostgreSQL database could not be used: ${reason}. Check ${options.databaseUrl === undefined ? 'HEED_DATABASE_URL' : '--database-url'} and that PostgreSQL runs there.`,
        { cause: thrown },
      );
    });
  }
  const { auth, allowedHosts, cors, metrics, mcp, ...heedOptions } = config;
  // Said before anything opens: a start with metrics on and no prom-client fails with the npm i line.
  if (metrics) requireOptional('prom-client', 'metrics: true', { resolveOnly: true });
  if (mcp?.server)
    requireOptional('@modelcontextprotocol/sdk', 'mcp.server', {
      resolveOnly: true,
      specifier: '@modelcontextprotocol/sdk/server/mcp.js',
    });
  const heed = createHeed({
    ...heedOptions,
    store,
    ...(options.logger && !heedOptions.logger ? { logger: options.logger } : {}),
  });
  // Each agent's model is looked at while the store migrates: a missing key or a provider nobody answers
  // for is said now, one line per agent, rather than at the first message.
  const modelWarnings = checkModels(config.agents).catch(() => [] as string[]);
  // The store migrated and every agent's MCP servers reached, or the start fails saying which.
  await heed.ready().catch(async (thrown: unknown) => {
    await heed.close().catch(() => undefined); // the start failed: that error is the one thrown
    throw thrown;
  });
  for (const line of await modelWarnings) log(line);

  const shutdown = new AbortController();
  let closing = false;
  const consoleDir =
    options.console === false ? undefined : typeof options.console === 'string' ? options.console : defaultConsoleDir();
  const withConsole = consoleDir !== undefined && hasConsole(consoleDir);
  const app = createApp(heed, {
    demo,
    auth,
    allowedHosts: withPublicHost(allowedHosts, config.notify?.publicUrl, isLoopbackAddress(hostname)),
    cors,
    metrics,
    mcp,
    listenAddress: hostname,
    signal: shutdown.signal,
    maxBodyBytes: options.maxBodyBytes,
    consoleDir: withConsole ? consoleDir : undefined,
    streams: { maxPerCaller: config.limits?.streamsPerCaller, maxQueuedBytes: config.limits?.streamQueueBytes },
  });
  const together = startTogether();
  const server = await new Promise<Server>((resolveServer, reject) => {
    const started = listen(
      {
        // The connection goes along: limits count anonymous callers by their address.
        fetch: async (request, env) => {
          await together();
          const response = await app.fetch(request, env);
          // While shutting down, answer what arrives but do not keep the connection for more.
          if (closing) {
            try {
              response.headers.set('connection', 'close');
            } catch {
              // Immutable headers: Node closes the connection once the server has closed anyway.
            }
          }
          return response;
        },
        port: options.port ?? 3000,
        hostname,
      },
      () => resolveServer(started as Server),
    ) as Server;
    started.once('error', (thrown) => reject(listenProblem(thrown, hostname, options.port ?? 3000)));
  }).catch(async (thrown: unknown) => {
    await heed.close().catch(() => undefined); // the start failed: that error is the one thrown
    throw thrown;
  });
  const busy = trackRequests(server);
  keepQueuedRequests(server);
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
  // Answer links point at this server unless notify.publicUrl says where people reach it.
  const { notifier } = hooksOf(heed);
  notifier.fallbackUrl ??= url;
  if (notifier.active && !notifier.config.publicUrl && !isDemo)
    log(`Answer links point at ${url}; set notify.publicUrl to the address people reach.`);
  // The demo's waiting requests, made once per database: the inbox has something in it from the start.
  if (demo && seed) await seedDemo(heed);
  log(`Heed listening on ${url}`);
  log(`API reference: ${url}/api/docs`);
  if (withConsole) log(`Web console: ${url}/`);
  else if (options.console !== false) log('Web console not built (run `npm run build`); serving the API only.');
  if (!isLoopbackAddress(hostname) && !auth?.required) {
    log(
      'Warning: listening beyond loopback with anonymous access allowed; see "Security" in the README (auth.required, allowedHosts, TLS).',
    );
  }
  if (demo) {
    const names = demo.users.map((user) => user.userId).join(' or ');
    log(
      `Demo: sign in as ${names} at ${url}/ ("Try as ${demo.users[0].name}"); \`npx heed inbox\` answers as ${demo.users[0].userId}.`,
    );
  }

  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      closing = true;
      shutdown.abort();
      await new Promise<void>((done) => {
        const force = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
        // A connection whose response finished after close() began, or that never sent a request, would sit
        // in keep-alive and hold close() up: drop each one as soon as it has nothing under way.
        const dropIdle = () => {
          for (const [socket, requests] of busy) if (requests === 0) socket.destroy();
        };
        const sweepIdle = setInterval(dropIdle, 50);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          clearInterval(sweepIdle);
          done();
        });
        dropIdle();
      });
      await heed.close();
    })());
  const inProcess = { incoming: { socket: { remoteAddress: '127.0.0.1' } } };
  const fetchInProcess = async (request: Request) => app.fetch(request, inProcess);
  return { url, heed, fetch: fetchInProcess, close, ...(demo ? { demo } : {}) };
}

/**
 * Requests read from the sockets in one turn of the event loop start together, in the order they were
 * read, once that turn's reading is done (a `setImmediate`), instead of each running to its end before
 * the next one is read. Nothing is skipped or reordered; a request waits at most for the others read
 * with it. Under load the work of many requests then runs interleaved, as a library caller's concurrent
 * calls do, and what each step needs is still in the CPU's caches for the next request: on the W4 bench
 * (bench/w4-http.ts; 16 answers in flight, each a turn and two SQLite commits) the server's CPU per answer
 * went from about 1.0 ms to 0.65 ms (issue 46).
 */
function startTogether(): () => Promise<void> {
  let waiting: Promise<void> | undefined;
  return () =>
    (waiting ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        waiting = undefined;
        resolve();
      }),
    ));
}

/**
 * A kept-alive connection is closed once it has been idle for `keepAliveTimeout` (5 s). When the
 * process was frozen (SIGSTOP, a VM paused, a long GC) longer than that, the expired timers run on
 * waking before the requests that arrived meanwhile are read, and closing a socket with unread bytes
 * makes the kernel answer them with a reset: the client sees ECONNRESET for a request the server never
 * saw. So an idle connection is closed only if it still has read nothing new once the waiting input
 * has been read (a `setImmediate` runs after that).
 */
function keepQueuedRequests(server: Server): void {
  // With a listener for 'timeout', Node leaves the socket to it instead of destroying it.
  server.on('timeout', (socket: Socket) => {
    const read = socket.bytesRead;
    setImmediate(() => {
      if (socket.bytesRead === read) socket.destroy();
    });
  });
}

/** Counts the requests under way on each open connection. */
function trackRequests(server: Server): Map<Socket, number> {
  const busy = new Map<Socket, number>();
  server.on('connection', (socket: Socket) => {
    busy.set(socket, 0);
    socket.once('close', () => busy.delete(socket));
  });
  server.on('request', (request, response) => {
    const socket = request.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    response.once('close', () => {
      if (busy.has(socket)) busy.set(socket, Math.max(0, (busy.get(socket) ?? 1) - 1));
    });
  });
  return busy;
}

/** Loads a config file; `.ts` files go through tsx when the process was not started with it. */
export async function loadConfig(file: string): Promise<HeedConfig> {
  const path = resolve(file);
  const url = pathToFileURL(path).href;
  const extension = extname(path);
  if (!['.ts', '.mts', '.js', '.mjs'].includes(extension)) {
    throw new HeedError('invalid_config', `The config must be a .ts, .js or .mjs file; got ${file}.`);
  }
  let loaded: { default?: unknown };
  try {
    loaded = extension === '.ts' || extension === '.mts' ? await importTypeScript(url) : await import(url);
  } catch (thrown) {
    if (HeedError.isInstance(thrown) && thrown.details?.path === 'tsx') throw thrown;
    // A tool() or other check that throws while the file runs does not know where it was called from: the file's line does.
    const line = lineIn(thrown, path);
    const message = (thrown instanceof Error ? thrown.message : String(thrown)).split('\n')[0];
    throw new HeedError(
      'invalid_config',
      `The config ${file}${line ? `, line ${line},` : ''} could not be loaded: ${message}`,
      {
        cause: thrown,
        ...(HeedError.isInstance(thrown) && thrown.details ? { details: thrown.details } : {}),
      },
    );
  }
  const value = typeof loaded.default === 'function' ? await (loaded.default as () => unknown)() : loaded.default;
  // What it holds is checked by `checkConfig`, which names the key at fault.
  if (!value || typeof value !== 'object') {
    throw new HeedError('invalid_config', `The config ${file} must default-export defineConfig({ agents: [...] }).`);
  }
  return value as HeedConfig;
}

async function importTypeScript(url: string): Promise<{ default?: unknown }> {
  let api: { tsImport: (specifier: string, parent: string) => Promise<unknown> };
  try {
    api = (await import('tsx/esm/api')) as typeof api;
  } catch {
    throw new HeedError(
      'invalid_config',
      'A .ts config needs the tsx package (npm i -D tsx); or write the config as .js or .mjs.',
      { details: { path: 'tsx' } },
    );
  }
  return (await api.tsImport(url, import.meta.url)) as { default?: unknown };
}

/** The line of `file` an error was thrown from, read from its stack; undefined when the stack does not go through it. */
function lineIn(thrown: unknown, file: string): number | undefined {
  const stack = thrown instanceof Error ? (thrown.stack ?? '') : '';
  for (const frame of stack.split('\n').slice(1)) {
    const match = /((?:file:\/\/)?\/[^\s()]+?):(\d+):\d+\)?\s*$/.exec(frame);
    if (!match) continue;
    const where = match[1].startsWith('file:') ? fileURLToPath(match[1]) : match[1].split('?')[0];
    if (where === file || basename(where) === basename(file)) return Number(match[2]);
  }
  return undefined;
}

/** The config with every `notify.email` (the server's and each agent's) keeping its mail in `dir` instead of sending it. */
function withMailCapture(config: HeedConfig, dir: string, log: (line: string) => void): HeedConfig {
  const transport = mailCapture({ dir, onMail: (mail) => log(mailLine(mail)) });
  const mailing = Boolean(config.notify?.email) || config.agents.some((agent) => agent.notify?.email);
  if (!mailing) {
    log('Warning: --mail-capture has nothing to keep: the config sends no mail (notify.email).');
    return config;
  }
  log(`Mail is kept in ${dir}, one .eml file each, and listed here; nothing is sent.`);
  return {
    ...config,
    ...(config.notify?.email ? { notify: { ...config.notify, email: { ...config.notify.email, transport } } } : {}),
    agents: config.agents.map((agent) =>
      agent.notify?.email
        ? { ...agent, notify: { ...agent.notify, email: { ...agent.notify.email, transport } } }
        : agent,
    ),
  };
}

/**
 * The host of `notify.publicUrl` is one people reach this server by, so answer links must pass the Host
 * check. Beyond loopback with no `allowedHosts` there is no check to pass, and adding a name would start one.
 */
function withPublicHost(
  allowedHosts: HeedConfig['allowedHosts'],
  publicUrl: string | undefined,
  loopback: boolean,
): HeedConfig['allowedHosts'] {
  if (allowedHosts === true || !publicUrl || (allowedHosts === undefined && !loopback)) return allowedHosts;
  const host = URL.canParse(publicUrl) ? new URL(publicUrl).hostname : undefined;
  return host ? [...(allowedHosts ?? []), host] : allowedHosts;
}
