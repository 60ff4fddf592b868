/**
 * One connection to one MCP server for one agent (McpPool keeps several). Tool calls go through it one at a time, so an
 * elicitation the server sends is always about the call in progress (MCP does not say which call a
 * request belongs to).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ElicitRequestURLParamsSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  type CallToolResult,
  type ClientCapabilities,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import type { AgentModel } from '../engine/turn/model-spec.js';
import { DismissSignal } from '../engine/turn/tool-context.js';
import type { ToolContent, ToolContext } from '../tool.js';
import type { JsonValue } from '../types.js';
import { answerElicitation, type ElicitingCall } from './elicitation.js';
import { toolOutput } from './results.js';
import { answerSampling, mcpRefusal } from './sampling.js';
import type { McpServerConfig } from './config.js';
import type { BeforeInputRequest } from './types.js';

/** How often a call waiting on a person checks whether it was settled elsewhere (tests shorten it). */
export const mcpTiming = { orphanCheckMs: 30_000 };

/** The largest delay a Node timer takes; the SDK's own clock is set to it and ours does the timing. */
const NO_SDK_TIMEOUT = 2_147_483_647;
const DEFAULT_TIMEOUT_SECONDS = 60;
/** A call the server answers with -32042 (open these pages first) is retried at most this many times. */
const MAX_URL_RETRIES = 3;

export interface ConnectionOptions {
  name: string;
  config: McpServerConfig;
  /** The agent's own hook, run after the server entry's. */
  agentHook?: BeforeInputRequest;
  /** True once the call's conversation holds a result for it (it was settled on another instance). */
  callIsOver(ctx: ToolContext): Promise<boolean>;
  /** The agent's model, which answers the server's sampling requests when its entry allows them. */
  model: AgentModel;
  /** True once the call's conversation holds an allowed sampling prompt of this server's. */
  samplingAllowedBefore(ctx: ToolContext): Promise<boolean>;
}

export class McpConnection {
  private queue: Promise<unknown> = Promise.resolve();
  private current: ElicitingCall | undefined;

  private constructor(
    private readonly client: Client,
    private readonly options: ConnectionOptions,
  ) {}

  /**
   * Starts (stdio) or reaches (HTTP) the server and announces what Heed answers: both elicitation
   * modes always; sampling and roots only when the server's entry sets them.
   */
  static async open(options: ConnectionOptions): Promise<McpConnection> {
    const { config, name } = options;
    const sampling = config.sampling === 'ask' || config.sampling === 'remember' ? config.sampling : undefined;
    const capabilities: ClientCapabilities = { elicitation: { form: {}, url: {} } };
    if (sampling) capabilities.sampling = {};
    if (config.roots) capabilities.roots = {};
    const client = new Client({ name: 'heed', version: '0.1.0' }, { capabilities });
    const connection = new McpConnection(client, options);
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const call = connection.current;
      // A request outside any call has no person to go to.
      if (!call) return { action: 'decline' };
      return answerElicitation(request.params, call);
    });
    if (sampling) {
      const setup = { policy: sampling, model: options.model, allowedBefore: options.samplingAllowedBefore };
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        const call = connection.current;
        if (!call)
          throw mcpRefusal(
            -1,
            'Heed answers sampling requests only during one of this server’s tool calls, where a person can review them.',
          );
        return answerSampling(request.params, call, setup);
      });
    }
    const roots = config.roots;
    if (roots) {
      client.setRequestHandler(ListRootsRequestSchema, async () => ({
        roots: roots.map((root) => ({ uri: root.uri, ...(root.name ? { name: root.name } : {}) })),
      }));
    }
    // What Heed does not answer is refused with a sentence rather than a bare "Method not found".
    client.fallbackRequestHandler = async (request) => {
      if (request.method === 'sampling/createMessage') {
        throw mcpRefusal(
          ErrorCode.MethodNotFound,
          `Heed does not let the MCP server "${name}" use the model: its entry in mcpServers has no sampling setting ('ask' or 'remember' lets a person review each request).`,
        );
      }
      if (request.method === 'roots/list')
        throw mcpRefusal(
          ErrorCode.MethodNotFound,
          `Heed offers no roots to the MCP server "${name}" (its entry has no roots).`,
        );
      throw mcpRefusal(ErrorCode.MethodNotFound, 'Method not found');
    };
    const transport =
      'command' in config
        ? new StdioClientTransport({
            command: config.command,
            args: config.args,
            env: config.env,
            cwd: config.cwd,
            stderr: 'inherit',
          })
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
  call(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<JsonValue | ToolContent> {
    const run = this.queue.then(() => this.run(tool, args, ctx));
    this.queue = run.catch(() => undefined); // the caller gets `run` and its failure; the queue only orders calls
    return run;
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private async run(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<JsonValue | ToolContent> {
    const seconds = this.options.config.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    const stop = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const startClock = () => {
      timer = setTimeout(
        () => stop.abort(new Error(`${this.options.name} did not finish ${tool} within ${seconds} seconds.`)),
        seconds * 1000,
      );
    };
    const onTurnStopped = () => stop.abort(new Error('The turn was stopped.'));
    ctx.abortSignal.addEventListener('abort', onTurnStopped, { once: true });

    let asking = 0;
    let abandon!: () => void;
    const abandoned = new Promise<void>((resolve) => (abandon = resolve));
    const watch = setInterval(() => {
      if (asking > 0)
        this.options.callIsOver(ctx).then(
          (over) => over && abandon(),
          () => undefined,
        );
    }, mcpTiming.orphanCheckMs);
    watch.unref();

    const call: ElicitingCall = {
      server: this.options.name,
      tool,
      ctx,
      hooks: [this.options.config.beforeInputRequest, this.options.agentHook].filter(
        (hook): hook is BeforeInputRequest => Boolean(hook),
      ),
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
      result = await this.callOpeningPages(tool, args, call, stop.signal);
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

  /**
   * Calls the tool. A server may refuse the call with -32042 (URL elicitation required): the pages it
   * names are each offered to the person as a url action, and once all are accepted the call is made
   * again, as the specification describes. A declined or cancelled page ends the call with an error
   * the model reads.
   */
  private async callOpeningPages(
    tool: string,
    args: Record<string, unknown>,
    call: ElicitingCall,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    for (let retry = 0; ; retry++) {
      try {
        return (await this.client.callTool({ name: tool, arguments: args }, undefined, {
          signal,
          timeout: NO_SDK_TIMEOUT,
        })) as CallToolResult;
      } catch (error) {
        if (!(error instanceof McpError) || error.code !== ErrorCode.UrlElicitationRequired || signal.aborted)
          throw error;
        const server = this.options.name;
        if (retry >= MAX_URL_RETRIES) {
          throw new Error(
            `${server} still asked for pages to be opened after ${MAX_URL_RETRIES} retries, so the call was given up.`,
          );
        }
        const listed = (error.data as { elicitations?: unknown } | undefined)?.elicitations;
        const pages = Array.isArray(listed) ? listed.map((entry) => ElicitRequestURLParamsSchema.safeParse(entry)) : [];
        if (pages.length === 0 || pages.some((page) => !page.success)) {
          throw new Error(
            `${server} answered that a page must be opened first (${error.message}), but did not say which in a form Heed can read.`,
          );
        }
        for (const page of pages) {
          const params = page.data!;
          const answer = await answerElicitation(params, call);
          if (answer.action !== 'accept') {
            const how = answer.action === 'decline' ? 'declined' : 'did not confirm it';
            throw new Error(
              [
                `${tool} needs the person to open ${params.url} first (${server}: "${params.message}"); the person ${how}, so the call did not run.`,
                ...call.notes,
              ].join(' '),
            );
          }
        }
      }
    }
  }
}
