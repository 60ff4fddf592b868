import { randomUUID } from 'node:crypto';
import type { Hono, MiddlewareHandler } from 'hono';
import type { Caller } from '../../caller.js';
import type { McpServeOptions } from '../../config.js';
import { HeedError } from '../../errors.js';
import type { Heed } from '../../heed.js';
import { importOptional } from '../../optional-dependency.js';
import type { AppEnv } from '../route.js';
import { mustHaveScope } from '../sign-in/tokens.js';
import { clientKey, rateLimited, type RateLimiter } from '../rate-limit.js';
import { registerTools } from './tools.js';

type McpModule = typeof import('@modelcontextprotocol/sdk/server/mcp.js');
type TransportModule = typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js');

interface Session {
  userId: string | null;
  handle(request: Request): Promise<Response>;
  close(): Promise<void>;
  usedAt: number;
}

/** Sessions one caller may hold open; past it the least recently used is closed. */
const SESSIONS_PER_CALLER = 8;

/**
 * `/mcp`: the MCP streamable HTTP transport (stateful sessions, the MCP SDK's own server), signed in as the
 * API is (scope `converse`). A session belongs to the caller who opened it: anyone else gets 404 for it.
 */
export function mountMcpServer(
  app: Hono<AppEnv>,
  heed: Heed,
  options: {
    config: McpServeOptions;
    auth: MiddlewareHandler<AppEnv>;
    waitingPerCaller: number;
    maxBodyBytes: number;
    now: () => string;
    /** `limits.conversationsPerMinute`, shared with the HTTP routes: each request a tool makes counts. */
    newConversations?: RateLimiter;
    conversationsPerMinute?: number;
  },
): void {
  const sessions = new Map<string, Session>();
  const waiting = new Map<string, number>();
  let sdk: Promise<[McpModule, TransportModule]> | undefined;
  const load = () =>
    (sdk ??= Promise.all([
      importOptional<McpModule>('@modelcontextprotocol/sdk', 'mcp.server', '@modelcontextprotocol/sdk/server/mcp.js'),
      importOptional<TransportModule>(
        '@modelcontextprotocol/sdk',
        'mcp.server',
        '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js',
      ),
    ]));

  const keyOf = (caller: Caller) => caller.userId ?? 'anonymous';

  async function open(caller: Caller): Promise<Session> {
    const [{ McpServer }, { WebStandardStreamableHTTPServerTransport }] = await load();
    const server = new McpServer({ name: 'heed', version: '1' }, { capabilities: { tools: {} } });
    registerTools(server, {
      heed,
      caller,
      progressSeconds: options.config.progressSeconds ?? 15,
      ...(options.config.channel !== undefined ? { channel: options.config.channel } : {}),
      now: options.now,
      takeWaitSlot() {
        const key = keyOf(caller);
        const now = waiting.get(key) ?? 0;
        if (now >= options.waitingPerCaller)
          throw new HeedError(
            'rate_limited',
            `You have ${now} calls waiting for a person already (limits.mcpWaitingPerCaller); wait for one to be answered.`,
          );
        // Each call makes a conversation, as POST /api/requests does: counted the same way.
        const taken = options.newConversations?.take(clientKey(caller.userId, undefined));
        if (taken && !taken.ok) throw rateLimited(options.conversationsPerMinute ?? 0, taken.retryAfterSeconds);
        waiting.set(key, now + 1);
        return () => {
          const left = (waiting.get(key) ?? 1) - 1;
          if (left <= 0) waiting.delete(key);
          else waiting.set(key, left);
        };
      },
    });
    const session: Session = {
      userId: caller.userId,
      usedAt: Date.now(),
      handle: (request) => transport.handleRequest(request),
      close: async () => {
        await transport.close().catch(() => undefined);
      },
    };
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // The API's own bound on a body (1 MiB by default): megabytes of arguments are a 413, read no further.
      maxRequestBodySize: options.maxBodyBytes,
      onsessioninitialized: (id) => {
        sessions.set(id, session);
        evictBeyond(caller.userId);
      },
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await server.connect(transport);
    return session;
  }

  /** Keeps each caller's sessions within SESSIONS_PER_CALLER, closing the least recently used. */
  function evictBeyond(userId: string | null): void {
    const mine = [...sessions].filter(([, session]) => session.userId === userId);
    mine.sort(([, a], [, b]) => a.usedAt - b.usedAt);
    for (const [id, session] of mine.slice(0, Math.max(0, mine.length - SESSIONS_PER_CALLER))) {
      sessions.delete(id);
      void session.close();
    }
  }

  app.use('/mcp', options.auth);
  app.all('/mcp', async (c) => {
    const caller = c.get('caller');
    if (caller.userId === null) throw new HeedError('unauthorized', 'Sign in: /mcp needs a bearer token.');
    mustHaveScope(caller, 'converse');
    const id = c.req.header('mcp-session-id');
    if (id) {
      const session = sessions.get(id);
      // Someone else's session is as unknown to them as a closed one: its id tells them nothing.
      if (!session || session.userId !== caller.userId)
        throw new HeedError('not_found', 'There is no MCP session with that id: initialize a new one.');
      session.usedAt = Date.now();
      return session.handle(c.req.raw);
    }
    const session = await open(caller);
    return session.handle(c.req.raw);
  });
}
