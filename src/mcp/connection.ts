/**
 * One connection to one MCP server for one agent (McpPool keeps several). Tool calls go through it one at a time, so an
 * elicitation the server sends is always about the call in progress (MCP does not say which call a
 * request belongs to).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { DismissSignal } from '../agent/tool-context.js';
import type { ToolContext } from '../tool.js';
import type { JsonValue } from '../types.js';
import { answerElicitation, type ElicitingCall } from './elicitation.js';
import type { BeforeInputRequest, McpServerConfig } from './types.js';

/** How often a call waiting on a person checks whether it was settled elsewhere (tests shorten it). */
export const mcpTiming = { orphanCheckMs: 30_000 };

/** The largest delay a Node timer takes; the SDK's own clock is set to it and ours does the timing. */
const NO_SDK_TIMEOUT = 2_147_483_647;
const DEFAULT_TIMEOUT_SECONDS = 60;

export interface ConnectionOptions {
  name: string;
  config: McpServerConfig;
  /** The agent's own hook, run after the server entry's. */
  agentHook?: BeforeInputRequest;
  /** True once the call's conversation holds a result for it (it was settled on another instance). */
  callIsOver(ctx: ToolContext): Promise<boolean>;
}

export class McpConnection {
  private queue: Promise<unknown> = Promise.resolve();
  private current: ElicitingCall | undefined;

  private constructor(
    private readonly client: Client,
    private readonly options: ConnectionOptions,
  ) {}

  /** Starts (stdio) or reaches (HTTP) the server and says which elicitation modes Heed answers. */
  static async open(options: ConnectionOptions): Promise<McpConnection> {
    const client = new Client({ name: 'heed', version: '0.1.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
    const connection = new McpConnection(client, options);
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const call = connection.current;
      // A request outside any call has no person to go to.
      if (!call) return { action: 'decline' };
      return answerElicitation(request.params, call);
    });
    const { config } = options;
    const transport =
      'command' in config
        ? new StdioClientTransport({ command: config.command, args: config.args, env: config.env, cwd: config.cwd, stderr: 'inherit' })
        : new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    await client.connect(transport);
    return connection;
  }

  /** Every tool the server offers (all pages of the list). */
  async listTools(): Promise<McpTool[]> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor ? { cursor } : undefined);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  /** Calls a tool once the calls before it on this connection are done. */
  call(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<JsonValue> {
    const run = this.queue.then(() => this.run(tool, args, ctx));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private async run(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<JsonValue> {
    const seconds = this.options.config.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    const stop = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const startClock = () => {
      timer = setTimeout(() => stop.abort(new Error(`${this.options.name} did not finish ${tool} within ${seconds} seconds.`)), seconds * 1000);
    };
    const onTurnStopped = () => stop.abort(new Error('The turn was stopped.'));
    ctx.abortSignal.addEventListener('abort', onTurnStopped, { once: true });

    let asking = 0;
    let abandon!: () => void;
    const abandoned = new Promise<void>((resolve) => (abandon = resolve));
    const watch = setInterval(() => {
      if (asking > 0) this.options.callIsOver(ctx).then((over) => over && abandon(), () => undefined);
    }, mcpTiming.orphanCheckMs);
    watch.unref();

    const call: ElicitingCall = {
      server: this.options.name,
      tool,
      ctx,
      hooks: [this.options.config.beforeInputRequest, this.options.agentHook].filter((hook): hook is BeforeInputRequest => Boolean(hook)),
      notes: [],
      dismissed: false,
      abandoned,
      pauseClock: () => {
        asking++;
        clearTimeout(timer);
      },
      resumeClock: () => {
        asking--;
        if (asking === 0 && !stop.signal.aborted) startClock();
      },
    };
    this.current = call;
    startClock();
    let result: CallToolResult;
    try {
      result = (await this.client.callTool({ name: tool, arguments: args }, undefined, { signal: stop.signal, timeout: NO_SDK_TIMEOUT })) as CallToolResult;
    } catch (error) {
      // Our own reason for stopping reads better than the SDK's wrapping of it.
      throw stop.signal.aborted ? stop.signal.reason : error;
    } finally {
      this.current = undefined;
      clearTimeout(timer);
      clearInterval(watch);
      ctx.abortSignal.removeEventListener('abort', onTurnStopped);
    }
    // A dismissed form ends the call the way any dismissed question does: the turn stops there.
    if (call.dismissed) throw new DismissSignal();
    return toolOutput(result, call.notes);
  }
}

/**
 * What the model reads: the server's text when that is all there is, else its content, structured
 * content and Heed's notes side by side. A result the server marked as an error becomes a tool error.
 */
export function toolOutput(result: CallToolResult, notes: string[]): JsonValue {
  const blocks = result.content ?? [];
  const text = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
  const others = blocks.filter((block) => block.type !== 'text');
  if (result.isError) {
    throw new Error([text || 'the server reported an error', ...notes].join(' '));
  }
  if (others.length === 0 && result.structuredContent === undefined && notes.length === 0) return text;
  const output: Record<string, JsonValue> = {};
  if (text) output.text = text;
  if (others.length > 0) output.content = JSON.parse(JSON.stringify(others)) as JsonValue;
  if (result.structuredContent !== undefined) output.structuredContent = JSON.parse(JSON.stringify(result.structuredContent)) as JsonValue;
  if (notes.length > 0) output.notes = notes;
  return output;
}
