import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serve as listen } from '@hono/node-server';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { HeedConfig } from '../config.js';
import { checkConfig } from '../config-schema.js';
import { HeedError } from '../errors.js';
import { createHeed, type Heed } from '../heed.js';
import { createApp } from '../http/app.js';
import { defaultConsoleDir, hasConsole } from '../http/console.js';
import { isLoopbackAddress } from '../http/host-check.js';
import { postgresStore } from '../store/postgres/postgres-store.js';
import { sqliteStore } from '../store/sqlite/sqlite-store.js';
import { demoAgents } from './demo-agents.js';

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
  /** The web console at `/`: true (default) serves the built one in `dist/ui`, a string another build, false none. */
  console?: boolean | string;
}

/** A running server. */
export interface RunningServer {
  /** e.g. `http://127.0.0.1:3000`. */
  url: string;
  heed: Heed;
  /**
   * Stops taking requests, ends live event streams, lets requests under way finish (an answer that was
   * accepted is carried through), waits for continuations, then closes the store.
   */
  close(): Promise<void>;
}

/** How long `close()` lets requests under way run before it cuts their connections. */
const DRAIN_MS = 10_000;

/** Starts Heed's HTTP server. */
export async function serve(options: ServeOptions = {}): Promise<RunningServer> {
  const log = options.log ?? ((line: string) => console.log(line));
  const env = options.env ?? process.env;
  const config = typeof options.config === 'string' ? await loadConfig(options.config) : (options.config ?? (await demoConfig(env, log)));
  // Before anything is opened: a typo or a value of the wrong shape stops the start, naming its path.
  checkConfig(config, typeof options.config === 'string' ? `The config ${options.config}` : 'The config');
  const databaseUrl = options.databaseUrl ?? (options.db ? undefined : env.HEED_DATABASE_URL || undefined);
  const store = databaseUrl
    ? postgresStore({ connectionString: databaseUrl })
    : options.db || !config.store
      ? sqliteStore({ path: options.db === ':memory:' ? ':memory:' : resolve(options.db ?? './heed.db') })
      : config.store;
  if (databaseUrl) {
    // Fail at start, with a readable message, when the database cannot be reached.
    await store.migrate().catch(async (thrown: unknown) => {
      await store.close().catch(() => undefined);
      const reason = thrown instanceof Error ? thrown.message : String(thrown);
      throw new HeedError('invalid_config', `The PostgreSQL database could not be used: ${reason}`, { cause: thrown });
    });
  }
  const { auth, allowedHosts, cors, ...heedOptions } = config;
  const heed = createHeed({ ...heedOptions, store });
  // The store migrated and every agent's MCP servers reached, or the start fails saying which.
  await heed.ready().catch(async (thrown: unknown) => {
    await heed.close().catch(() => undefined);
    throw thrown;
  });

  const shutdown = new AbortController();
  let closing = false;
  const consoleDir = options.console === false ? undefined : typeof options.console === 'string' ? options.console : defaultConsoleDir();
  const withConsole = consoleDir !== undefined && hasConsole(consoleDir);
  const hostname = options.host ?? '127.0.0.1';
  const app = createApp(heed, {
    auth,
    allowedHosts: withPublicHost(allowedHosts, config.notify?.publicUrl, isLoopbackAddress(hostname)),
    cors,
    listenAddress: hostname,
    signal: shutdown.signal,
    maxBodyBytes: options.maxBodyBytes,
    consoleDir: withConsole ? consoleDir : undefined,
    streams: { maxPerCaller: config.limits?.streamsPerCaller, maxQueuedBytes: config.limits?.streamQueueBytes },
  });
  const server = await new Promise<Server>((resolveServer, reject) => {
    const started = listen(
      {
        // The connection goes along: limits count anonymous callers by their address.
        fetch: async (request, env) => {
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
    started.once('error', reject);
  });
  const busy = trackRequests(server);
  keepQueuedRequests(server);
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
  // Answer links point at this server unless notify.publicUrl says where people reach it.
  heed.notifier.fallbackUrl ??= url;
  if (heed.notifier.active && !heed.notifier.config.publicUrl) log(`Answer links point at ${url}; set notify.publicUrl to the address people reach.`);
  log(`Heed listening on ${url}`);
  log(`API reference: ${url}/api/docs`);
  if (withConsole) log(`Web console: ${url}/`);
  else if (options.console !== false) log('Web console not built (run `npm run build`); serving the API only.');
  if (!isLoopbackAddress(hostname) && !auth?.required) {
    log('Warning: listening beyond loopback with anonymous access allowed; see "Security" in the README (auth.required, allowedHosts, TLS).');
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
  return { url, heed, close };
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
    if (HeedError.isInstance(thrown)) throw thrown;
    throw new HeedError('invalid_config', `The config ${file} could not be loaded: ${thrown instanceof Error ? thrown.message : String(thrown)}`, { cause: thrown });
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
    throw new HeedError('invalid_config', 'A .ts config needs the tsx package (npm i -D tsx); or write the config as .js or .mjs.');
  }
  return (await api.tsImport(url, import.meta.url)) as { default?: unknown };
}

/** The demo agents, on a real model when OPENAI_API_KEY is set. */
async function demoConfig(env: Record<string, string | undefined>, log: (line: string) => void): Promise<HeedConfig> {
  let model: LanguageModelV3 | undefined;
  if (env.OPENAI_API_KEY) {
    const { createOpenAI } = await import('@ai-sdk/openai');
    const provider = createOpenAI({ apiKey: env.OPENAI_API_KEY, ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}) });
    const modelId = env.OPENAI_MODEL ?? 'gpt-4o-mini';
    // Chat Completions is what OpenAI-compatible servers (Ollama, vLLM, …) speak too.
    model = provider.chat(modelId);
    log(`Demo agents on ${modelId}${env.OPENAI_BASE_URL ? ` at ${env.OPENAI_BASE_URL}` : ''}.`);
  } else {
    log('Demo agents on a scripted model (set OPENAI_API_KEY to use a real one).');
  }
  const delay = env.HEED_DEMO_DELAY_MS === undefined ? undefined : Number(env.HEED_DEMO_DELAY_MS);
  return { agents: demoAgents({ model, chunkDelayMs: delay }) };
}

/**
 * The host of `notify.publicUrl` is one people reach this server by, so answer links must pass the Host
 * check. Beyond loopback with no `allowedHosts` there is no check to pass, and adding a name would start one.
 */
function withPublicHost(allowedHosts: HeedConfig['allowedHosts'], publicUrl: string | undefined, loopback: boolean): HeedConfig['allowedHosts'] {
  if (allowedHosts === true || !publicUrl || (allowedHosts === undefined && !loopback)) return allowedHosts;
  const host = URL.canParse(publicUrl) ? new URL(publicUrl).hostname : undefined;
  return host ? [...(allowedHosts ?? []), host] : allowedHosts;
}
