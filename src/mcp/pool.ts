import type { ToolContent, ToolContext } from '../tool.js';
import type { JsonValue } from '../types.js';
import type { McpConnection } from './connection.js';

/**
 * Up to `max` connections to one MCP server. A connection runs one tool call at a time (so a request
 * the server sends belongs to the call in progress); while a call waits on a person, the next call
 * takes another connection instead of queueing behind it. Connections are opened when first needed
 * and kept for reuse.
 */
export class McpPool {
  private readonly idle: McpConnection[];
  private readonly all: McpConnection[];
  private readonly waiting: Array<(connection: McpConnection) => void> = [];
  private opening = 0;

  constructor(
    private readonly first: McpConnection,
    private readonly open: () => Promise<McpConnection>,
    private readonly max: number,
  ) {
    this.idle = [first];
    this.all = [first];
  }

  listTools() {
    return this.first.listTools();
  }

  async call(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<JsonValue | ToolContent> {
    const connection = await this.acquire();
    try {
      return await connection.call(tool, args, ctx);
    } finally {
      this.release(connection);
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.all.map((connection) => connection.close()));
  }

  private async acquire(): Promise<McpConnection> {
    const idle = this.idle.pop();
    if (idle) return idle;
    if (this.all.length + this.opening < this.max) {
      this.opening++;
      try {
        const connection = await this.open();
        this.all.push(connection);
        return connection;
      } catch {
        // The server would not take another connection: wait for one of the open ones.
      } finally {
        this.opening--;
      }
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(connection: McpConnection): void {
    const next = this.waiting.shift();
    if (next) next(connection);
    else this.idle.push(connection);
  }
}
