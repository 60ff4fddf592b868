import type { AgentConfig } from '../config.js';
import type { Engine } from '../engine/engine.js';
import { HeedError, must } from '../errors.js';
import type { ToolContext } from '../tool.js';
import { importOptional } from '../optional-dependency.js';
import type { McpConnection } from './connection.js';
import { McpPool } from './pool.js';
import { mcpTools, needsTask, offeredName } from './tools.js';
import type { McpServerConfig } from './config.js';

/** Where start-up lines about MCP servers go (tests catch them). */
export const mcpNotices = { warn: (line: string) => console.warn(line) };

/** The MCP side of a running Heed: connects at start, closes with it. */
export interface McpServers {
  /** Settles once every agent's servers are connected and their tools offered. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Connects every agent's `mcpServers` and replaces each such agent in `engine.agents` with one whose
 * tools include the servers' tools. A server that cannot be reached fails the start.
 */
export function startMcpServers(engine: Engine): McpServers {
  const opened: McpPool[] = [];
  const agents = [...engine.agents.values()].filter(
    (agent) => agent.mcpServers && Object.keys(agent.mcpServers).length > 0,
  );
  // The MCP SDK loads only when an agent names a server; a missing SDK fails the start with its `npm i` line.
  const ready =
    agents.length === 0
      ? Promise.resolve()
      : importOptional<unknown>(
          '@modelcontextprotocol/sdk',
          'An agent with mcpServers',
          '@modelcontextprotocol/sdk/client/index.js',
        )
          .then(() => import('./connection.js'))
          .then(({ McpConnection: connection }) =>
            Promise.all(agents.map((agent) => connectAgent(engine, agent, opened, connection))),
          )
          .then(() => undefined);
  return {
    ready,
    async close() {
      await ready.catch(() => undefined); // a failed start was reported by heed.ready(); closing goes on
      await Promise.allSettled(opened.map((connection) => connection.close()));
    },
  };
}

async function connectAgent(
  engine: Engine,
  agent: AgentConfig,
  opened: McpPool[],
  Connection: typeof McpConnection,
): Promise<void> {
  const entries = Object.entries(agent.mcpServers ?? {});
  const connected = await Promise.all(
    entries.map(async ([name, config]) => {
      checkEntry(agent, name, config);
      const open = () =>
        Connection.open({
          name,
          config,
          agentHook: agent.beforeInputRequest,
          callIsOver: (ctx) => callIsOver(engine, ctx),
          // The config refuses MCP servers on an agent without a model (a handler or remote agent).
          model: must(agent.model, `The agent "${agent.name}" has MCP servers but no model.`),
          samplingAllowedBefore: (ctx) => samplingAllowedBefore(engine, ctx, name),
        });
      let connection: McpPool;
      try {
        connection = new McpPool(await open(), open, config.maxConnections ?? 4);
      } catch (error) {
        const where = 'command' in config ? `the command ${JSON.stringify(config.command)}` : config.url;
        throw new HeedError(
          'internal_error',
          `The MCP server "${name}" of agent "${agent.name}" could not be reached (${where}): ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
      opened.push(connection);
      const listed = await connection.listTools();
      const taskOnly = listed.filter(needsTask).map((entry) => `"${entry.name}"`);
      if (taskOnly.length > 0) {
        mcpNotices.warn(
          `Heed: the MCP server "${name}" of agent "${agent.name}" offers ${taskOnly.join(', ')} only as tasks (execution.taskSupport "required"); Heed does not run MCP tasks, so the model is not offered ${taskOnly.length === 1 ? 'it' : 'them'}.`,
        );
      }
      return mcpTools(name, config, listed, connection);
    }),
  );
  const tools = { ...agent.tools };
  for (const serverTools of connected) {
    for (const [name, definition] of Object.entries(serverTools)) {
      // A server-wide tool of the same name gives way: the server is the agent's own.
      if (
        Object.hasOwn(tools, name) &&
        !(Object.hasOwn(engine.sharedTools, name) && tools[name] === engine.sharedTools[name])
      ) {
        throw new HeedError(
          'invalid_config',
          `Agent "${agent.name}" has two tools named "${name}" (an MCP server's tools are named <server>_<tool>).`,
        );
      }
      tools[name] = definition;
    }
  }
  engine.agents.set(agent.name, { ...agent, tools });
}

function checkEntry(agent: AgentConfig, name: string, config: McpServerConfig): void {
  const bad = (problem: string) =>
    new HeedError('invalid_config', `The MCP server "${name}" of agent "${agent.name}" ${problem}`);
  if (!config || typeof config !== 'object') throw bad('must be { command, args?, env? } or { url, headers? }.');
  const hasCommand = 'command' in config && typeof config.command === 'string' && config.command !== '';
  const hasUrl = 'url' in config && typeof config.url === 'string';
  if (hasCommand === hasUrl)
    throw bad('needs exactly one of command (a program that speaks MCP on stdio) or url (a streamable HTTP endpoint).');
  if (hasUrl) {
    const protocol = URL.canParse((config as { url: string }).url)
      ? new URL((config as { url: string }).url).protocol
      : '';
    if (protocol !== 'http:' && protocol !== 'https:') throw bad('needs an http or https url.');
  }
  if (offeredName(name, 'x') !== `${name}_x`)
    throw bad('must be named with letters, digits, _ or - only, since its tools are offered as <server>_<tool>.');
  if (config.timeoutSeconds !== undefined && !(config.timeoutSeconds > 0)) throw bad('needs a timeoutSeconds above 0.');
  if (config.maxConnections !== undefined && !(Number.isInteger(config.maxConnections) && config.maxConnections >= 1)) {
    throw bad('needs a maxConnections of 1 or more.');
  }
  if (config.sampling !== undefined && !['ask', 'remember', 'never'].includes(config.sampling)) {
    throw bad(`has sampling ${JSON.stringify(config.sampling)}; it takes 'ask', 'remember' or 'never'.`);
  }
  if (config.roots !== undefined) {
    const fine =
      Array.isArray(config.roots) &&
      config.roots.every(
        (root) =>
          root &&
          typeof root.uri === 'string' &&
          root.uri.startsWith('file://') &&
          URL.canParse(root.uri) &&
          (root.name === undefined || typeof root.name === 'string'),
      );
    if (!fine) throw bad('needs roots as a list of { uri, name? } with file:// URIs.');
  }
}

/** 'remember': this conversation already holds an allowed sampling prompt of this server's. */
async function samplingAllowedBefore(engine: Engine, ctx: ToolContext, server: string): Promise<boolean> {
  const actions = await engine.store.listActions(ctx.conversationId);
  return actions.some((action) => {
    if (action.origin !== 'live' || action.request.kind !== 'approval' || action.status !== 'resolved') return false;
    const args = action.request.args as { server?: unknown; messages?: unknown } | null;
    const resolution = action.resolution;
    return (
      args?.server === server &&
      Array.isArray(args.messages) &&
      resolution?.type === 'approval' &&
      resolution.decision === 'allow'
    );
  });
}

/** A call is over elsewhere once its conversation holds a result for it. */
async function callIsOver(engine: Engine, ctx: ToolContext): Promise<boolean> {
  const messages = await engine.store.listMessages(ctx.conversationId);
  const over = messages.some((message) =>
    message.parts.some((part) => part.type === 'tool-result' && part.toolCallId === ctx.toolCallId),
  );
  // Nothing here will hand it an answer any more.
  if (over) engine.liveCalls.delete(ctx.toolCallId);
  return over;
}
