import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { generateText, tool, type ModelMessage } from 'ai-v7';
import { MockLanguageModelV4 } from 'ai-v7/test';
import { z } from 'zod';

/**
 * The AI SDK peer of W1 (DESIGN §11): the same approval round trip written with the Vercel AI SDK 7 alone
 * (installed here as `ai-v7`) and an app that keeps each conversation's messages as one JSON value in one
 * table. Pause half: the user's message; generateText with `issue_refund` (`needsApproval: true`) and a mock
 * model (`MockLanguageModelV4`) that calls it → a tool-approval-request; the messages stored. Resume half:
 * the messages read back; a tool-approval-response appended; generateText again → the SDK runs the tool, the
 * model says "Refunded."; the messages stored again. Nothing else: no events, no audit, no pending-action
 * record, no claim — what an app gets from the SDK when it only persists the messages.
 */
export interface AiSdkPeer {
  /** Pause half; resolves to the id of the stored conversation. */
  pause(): Promise<string>;
  /** Resume half of the conversation `pause` stored. */
  resume(id: string): Promise<void>;
  /** Times the tool ran. */
  readonly refunds: { count: number };
  /** One cycle, checked: the stored messages end with the tool's result and "Refunded.". */
  check(): Promise<void>;
  close(): Promise<void>;
}

/** The one-table message store an app writes beside the AI SDK. */
interface MessageTable {
  insert(id: string, messages: string): void | Promise<void>;
  read(id: string): string | undefined | Promise<string | undefined>;
  update(id: string, messages: string): void | Promise<void>;
  close(): void | Promise<void>;
}

/** On a better-sqlite3 file: WAL and the given synchronous setting, one autocommit statement per call. */
export function aiSdkPeerSqlite(path: string, synchronous: 'normal' | 'full' = 'normal'): AiSdkPeer {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  db.exec(
    'CREATE TABLE IF NOT EXISTS chats (id TEXT PRIMARY KEY, messages TEXT NOT NULL, updated_at INTEGER NOT NULL)',
  );
  const insert = db.prepare('INSERT INTO chats (id, messages, updated_at) VALUES (?, ?, ?)');
  const read = db.prepare<[string], { messages: string }>('SELECT messages FROM chats WHERE id = ?');
  const update = db.prepare('UPDATE chats SET messages = ?, updated_at = ? WHERE id = ?');
  return peer({
    insert: (id, messages) => {
      insert.run(id, messages, Date.now());
    },
    read: (id) => read.get(id)?.messages,
    update: (id, messages) => {
      if (update.run(messages, Date.now(), id).changes !== 1) throw new Error('W1 AI SDK: the chat was not updated.');
    },
    close: () => {
      db.close();
    },
  });
}

/** On PostgreSQL with raw `pg` (a pool of 10, as postgresStore's): one jsonb value per conversation. */
export async function aiSdkPeerPostgres(connectionString: string): Promise<AiSdkPeer> {
  const pool = new pg.Pool({ connectionString, max: 10 });
  await pool.query(
    'CREATE TABLE IF NOT EXISTS ai_sdk_chats (id text PRIMARY KEY, messages jsonb NOT NULL, updated_at timestamptz NOT NULL)',
  );
  return peer({
    insert: async (id, messages) => {
      await pool.query({
        name: 'chat-insert',
        text: 'INSERT INTO ai_sdk_chats (id, messages, updated_at) VALUES ($1, $2, now())',
        values: [id, messages],
      });
    },
    read: async (id) => {
      // The jsonb comes back as text, parsed once by the caller like the SQLite side's.
      const result = await pool.query<{ messages: string }>({
        name: 'chat-read',
        text: 'SELECT messages::text AS messages FROM ai_sdk_chats WHERE id = $1',
        values: [id],
      });
      return result.rows[0]?.messages;
    },
    update: async (id, messages) => {
      const result = await pool.query({
        name: 'chat-update',
        text: 'UPDATE ai_sdk_chats SET messages = $2, updated_at = now() WHERE id = $1',
        values: [id, messages],
      });
      if (result.rowCount !== 1) throw new Error('W1 AI SDK: the chat was not updated.');
    },
    close: () => pool.end(),
  });
}

function peer(table: MessageTable): AiSdkPeer {
  const refunds = { count: 0 };
  let calls = 0;
  // First call: the tool call. Once the prompt holds the tool's result: "Refunded.".
  const model = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const last = prompt.at(-1);
      const answered = last?.role === 'tool' && last.content.some((part) => part.type === 'tool-result');
      return {
        content: answered
          ? [{ type: 'text', text: 'Refunded.' }]
          : [
              {
                type: 'tool-call',
                toolCallId: `call_${++calls}`,
                toolName: 'issue_refund',
                input: JSON.stringify({ orderId: 42, amount: 5 }),
              },
            ],
        finishReason: { unified: answered ? 'stop' : 'tool-calls', raw: undefined },
        usage: {
          inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 5, text: 5, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
  const tools = {
    issue_refund: tool({
      description: 'Refund an order.',
      inputSchema: z.object({ orderId: z.number().int(), amount: z.number().positive().max(100) }),
      // Deprecated in AI SDK 7 in favour of generateText's `toolApproval`, still honoured (the issue names it).
      needsApproval: true,
      execute: async (input) => {
        refunds.count++;
        return { refunded: input.amount };
      },
    }),
  };
  const instructions = 'You help with refunds.';

  const pause = async (): Promise<string> => {
    const id = randomUUID();
    const messages: ModelMessage[] = [{ role: 'user', content: 'refund order 42' }];
    const result = await generateText({ model, instructions, tools, messages });
    if (!result.content.some((part) => part.type === 'tool-approval-request'))
      throw new Error(`W1 AI SDK: the first call ended ${result.finishReason} without an approval request.`);
    await table.insert(id, JSON.stringify([...messages, ...result.responseMessages]));
    model.doGenerateCalls.length = 0;
    return id;
  };

  const resume = async (id: string): Promise<void> => {
    const stored = await table.read(id);
    if (stored === undefined) throw new Error('W1 AI SDK: the paused chat was not stored.');
    const messages = JSON.parse(stored) as ModelMessage[];
    const last = messages.at(-1);
    const request =
      last?.role === 'assistant' && Array.isArray(last.content)
        ? last.content.find((part) => part.type === 'tool-approval-request')
        : undefined;
    if (!request) throw new Error('W1 AI SDK: no approval request in the stored messages.');
    messages.push({
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: request.approvalId, approved: true }],
    });
    const result = await generateText({ model, instructions, tools, messages });
    if (result.text !== 'Refunded.') throw new Error(`W1 AI SDK: the second call said ${JSON.stringify(result.text)}.`);
    await table.update(id, JSON.stringify([...messages, ...result.responseMessages]));
    model.doGenerateCalls.length = 0;
  };

  return {
    pause,
    resume,
    refunds,
    async check() {
      const before = refunds.count;
      const id = await pause();
      if (refunds.count !== before) throw new Error('W1 AI SDK: the tool ran before it was approved.');
      await resume(id);
      if (refunds.count !== before + 1) throw new Error(`W1 AI SDK: the tool ran ${refunds.count - before} times.`);
      const stored = JSON.parse((await table.read(id)) ?? '[]') as ModelMessage[];
      const shape = stored
        .map((m) => `${m.role}:${typeof m.content === 'string' ? 'text' : m.content.map((p) => p.type).join('+')}`)
        .join(',');
      const expected =
        'user:text,assistant:tool-call+tool-approval-request,tool:tool-approval-response,tool:tool-result,assistant:text';
      if (shape !== expected || !JSON.stringify(stored.at(-1)).includes('Refunded.'))
        throw new Error(`W1 AI SDK: unexpected stored messages after a cycle: ${shape}`);
    },
    close: async () => table.close(),
  };
}

// `npx tsx bench/w1-ai-sdk.ts [cycles]`: the peer alone on a temporary SQLite file (NORMAL), for a quick look.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'heed-bench-ai-sdk-'));
  const cycles = Number(process.argv[2] ?? 1000);
  const sdk = aiSdkPeerSqlite(join(dir, 'chats.db'));
  try {
    await sdk.check();
    const started = performance.now();
    for (let i = 0; i < cycles; i++) await sdk.resume(await sdk.pause());
    const ms = performance.now() - started;
    console.log(`AI SDK peer: ${cycles} cycles, ${Math.round((cycles * 1000) / ms)}/s, tool ran ${sdk.refunds.count}×`);
  } finally {
    await sdk.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
