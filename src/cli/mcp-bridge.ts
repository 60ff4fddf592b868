import { parseArgs } from 'node:util';
import { importOptional } from '../optional-dependency.js';
import { storedToken } from './inbox/login.js';
import { EXIT, heedVersion } from './problems.js';

export const mcpUsage = `Usage: heed mcp --url https://heed.example.com [--token <token>]

A stdio MCP server that forwards to a Heed server's /mcp (its tools ask_person, request_approval and
permission_prompt), for MCP clients that start their servers as processes:

  claude mcp add heed -- npx heed mcp --url https://heed.example.com
  claude --permission-prompt-tool mcp__heed__permission_prompt

  --url <address>   the Heed server (also HEED_URL)
  --token <token>   a bearer token with the converse scope (also HEED_TOKEN); without one, the token
                    heed inbox --login kept for that server`;

/** A call waits for a person: hours, not the SDK's default minute (progress keeps it alive meanwhile). */
const CALL_TIMEOUT_MS = 7 * 86_400_000;

type ClientModule = typeof import('@modelcontextprotocol/sdk/client/index.js');
type HttpModule = typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
type ServerModule = typeof import('@modelcontextprotocol/sdk/server/index.js');
type StdioModule = typeof import('@modelcontextprotocol/sdk/server/stdio.js');
type TypesModule = typeof import('@modelcontextprotocol/sdk/types.js');

/** `heed mcp`: runs until the client closes stdin; stdout carries the protocol alone, errors go to stderr. */
export async function runMcpBridge(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: { url: { type: 'string' }, token: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (thrown) {
    console.error(`heed mcp: ${(thrown as Error).message.split('. ')[0]} (heed mcp --help lists the options).`);
    return EXIT.usage;
  }
  if (values.help) {
    console.error(mcpUsage);
    return EXIT.ok;
  }
  const server = (values.url ?? process.env.HEED_URL ?? '').replace(/\/+$/, '');
  if (!/^https?:\/\//.test(server)) {
    console.error('heed mcp: --url must be the http or https address of a Heed server (or set HEED_URL).');
    return EXIT.usage;
  }
  const token = values.token || process.env.HEED_TOKEN || storedToken(server)?.token;
  if (!token) {
    console.error(
      `heed mcp: no token for ${server}: pass --token, set HEED_TOKEN, or run heed inbox --login --url ${server}.`,
    );
    return EXIT.usage;
  }
  const sdk = '@modelcontextprotocol/sdk';
  const feature = 'heed mcp';
  const [{ Client }, { StreamableHTTPClientTransport }, { Server }, { StdioServerTransport }, types] =
    await Promise.all([
      importOptional<ClientModule>(sdk, feature, `${sdk}/client/index.js`),
      importOptional<HttpModule>(sdk, feature, `${sdk}/client/streamableHttp.js`),
      importOptional<ServerModule>(sdk, feature, `${sdk}/server/index.js`),
      importOptional<StdioModule>(sdk, feature, `${sdk}/server/stdio.js`),
      importOptional<TypesModule>(sdk, feature, `${sdk}/types.js`),
    ]);

  const remote = new Client({ name: 'heed-mcp-bridge', version: heedVersion() });
  try {
    await remote.connect(
      new StreamableHTTPClientTransport(new URL(`${server}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
  } catch (thrown) {
    console.error(`heed mcp: could not open ${server}/mcp (${(thrown as Error).message}).`);
    return EXIT.failed;
  }

  const local = new Server({ name: 'heed', version: heedVersion() }, { capabilities: { tools: {} } });
  local.setRequestHandler(types.ListToolsRequestSchema, (request) => remote.listTools(request.params));
  local.setRequestHandler(types.CallToolRequestSchema, async (request, extra) => {
    const progressToken = request.params._meta?.progressToken;
    return remote.callTool(request.params, undefined, {
      // The client's cancel reaches Heed, which withdraws the request.
      signal: extra.signal,
      timeout: CALL_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      onprogress: (progress) => {
        if (progressToken === undefined) return;
        void extra
          .sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken } })
          .catch(() => undefined);
      },
    });
  });
  const closed = new Promise<void>((resolve) => (local.onclose = resolve));
  await local.connect(new StdioServerTransport());
  await closed;
  await remote.close().catch(() => undefined);
  return EXIT.ok;
}
