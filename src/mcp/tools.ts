import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { HeedError } from '../errors.js';
import { jsonSchemaInput, tool, type HeedTool } from '../tool.js';
import type { McpPool } from './pool.js';
import type { McpServerConfig } from './config.js';

/** What model providers accept as a tool name. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The name the model sees: `<server>_<tool>`, with characters providers refuse turned into `_`. */
export function offeredName(server: string, toolName: string): string {
  const name = `${server}_${toolName}`;
  return TOOL_NAME.test(name) ? name : name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

function gated(config: McpServerConfig, toolName: string): boolean {
  const rule = config.needsApproval;
  if (rule === undefined || typeof rule === 'boolean') return rule ?? false;
  return Object.hasOwn(rule, toolName) && rule[toolName] === true;
}

/**
 * True for a tool the server runs only as a task (`execution.taskSupport: "required"`). Heed does not
 * run MCP tasks, so such a tool is not offered to the model (the start says so).
 */
export function needsTask(listed: McpTool): boolean {
  return listed.execution?.taskSupport === 'required';
}

/** The server's tools as Heed tools, by the name the model sees (tools that need tasks left out). */
export function mcpTools(
  server: string,
  config: McpServerConfig,
  listed: McpTool[],
  connection: Pick<McpPool, 'call'>,
): Record<string, HeedTool> {
  const tools: Record<string, HeedTool> = Object.create(null);
  const rule = config.needsApproval;
  if (rule !== undefined && typeof rule !== 'boolean') {
    const unknown = Object.keys(rule).filter((name) => !listed.some((entry) => entry.name === name));
    if (unknown.length > 0) {
      throw new HeedError(
        'invalid_config',
        `needsApproval of the MCP server "${server}" names ${unknown.map((name) => `"${name}"`).join(', ')}, which the server does not offer. Its tools are ${listed.map((entry) => `"${entry.name}"`).join(', ') || 'none'}.`,
      );
    }
  }
  for (const listedTool of listed) {
    if (needsTask(listedTool)) continue;
    const name = offeredName(server, listedTool.name);
    if (tools[name])
      throw new HeedError('invalid_config', `Two tools of the MCP server "${server}" are both offered as "${name}".`);
    const description = listedTool.description ?? listedTool.title ?? listedTool.annotations?.title;
    tools[name] = tool({
      description,
      inputSchema: jsonSchemaInput(listedTool.inputSchema as Record<string, unknown>),
      needsApproval: gated(config, listedTool.name),
      approvalTitle: `Run ${listedTool.title ?? listedTool.annotations?.title ?? listedTool.name} on ${server}?`,
      execute: (input, ctx) => connection.call(listedTool.name, input, ctx),
    });
  }
  return { ...tools };
}
