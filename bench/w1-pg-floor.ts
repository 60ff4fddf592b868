import { randomUUID } from 'node:crypto';
import pg from 'pg';

/**
 * The floor beside PostgreSQL W1: a cycle's minimal durable writes with raw `pg`, in 2 transactions (one
 * per half, each waiting for its WAL flush as Heed's commits do). Pause: the conversation, the user and
 * assistant messages, the pending action and their events. Resume: the action resolved, the tool result and
 * the final reply, their events and the conversation back to idle. Its own tables, on the same database.
 */
export interface PgFloor {
  cycle(): Promise<void>;
  close(): Promise<void>;
}

export async function pgFloor(connectionString: string): Promise<PgFloor> {
  const pool = new pg.Pool({ connectionString, max: 10 });
  await pool.query(`
    CREATE TABLE IF NOT EXISTS floor_conversations (id text PRIMARY KEY, status text NOT NULL, version int NOT NULL, updated_at timestamptz NOT NULL);
    CREATE TABLE IF NOT EXISTS floor_messages (conversation_id text NOT NULL, position int NOT NULL, role text NOT NULL, parts jsonb NOT NULL, PRIMARY KEY (conversation_id, position));
    CREATE TABLE IF NOT EXISTS floor_actions (id text PRIMARY KEY, conversation_id text NOT NULL, status text NOT NULL, request jsonb NOT NULL, resolution jsonb);
    CREATE TABLE IF NOT EXISTS floor_events (conversation_id text NOT NULL, seq int NOT NULL, type text NOT NULL, data jsonb NOT NULL, PRIMARY KEY (conversation_id, seq));
  `);
  const inTransaction = async (statements: Array<[string, unknown[]]>) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      for (const [text, values] of statements) await client.query(text, values);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };
  const events = (id: string, from: number, types: string[]): [string, unknown[]] => [
    `INSERT INTO floor_events (conversation_id, seq, type, data) SELECT $1, $2 + n, t, '{}'::jsonb FROM unnest($3::text[]) WITH ORDINALITY AS e(t, n)`,
    [id, from - 1, types],
  ];
  return {
    async cycle() {
      const id = randomUUID();
      const action = randomUUID();
      await inTransaction([
        [
          'INSERT INTO floor_conversations (id, status, version, updated_at) VALUES ($1, $2, 1, now())',
          [id, 'requires_action'],
        ],
        [
          'INSERT INTO floor_messages (conversation_id, position, role, parts) VALUES ($1, 0, $2, $3), ($1, 1, $4, $5)',
          [
            id,
            'user',
            JSON.stringify([{ type: 'text', text: 'refund order 42' }]),
            'assistant',
            JSON.stringify([{ type: 'tool-call', toolName: 'refund' }]),
          ],
        ],
        [
          'INSERT INTO floor_actions (id, conversation_id, status, request) VALUES ($1, $2, $3, $4)',
          [action, id, 'pending', JSON.stringify({ kind: 'approval' })],
        ],
        events(id, 1, ['message.created', 'turn.started', 'message.created', 'action.required', 'turn.paused']),
      ]);
      await inTransaction([
        [
          "UPDATE floor_actions SET status = 'resolved', resolution = $2 WHERE id = $1 AND status = 'pending'",
          [action, JSON.stringify({ type: 'approval', decision: 'allow' })],
        ],
        [
          'INSERT INTO floor_messages (conversation_id, position, role, parts) VALUES ($1, 2, $2, $3), ($1, 3, $4, $5)',
          [
            id,
            'tool',
            JSON.stringify([{ type: 'tool-result', output: { refunded: true } }]),
            'assistant',
            JSON.stringify([{ type: 'text', text: 'Refunded.' }]),
          ],
        ],
        events(id, 6, ['action.resolved', 'turn.started', 'tool.result', 'message.created', 'turn.completed']),
        [
          "UPDATE floor_conversations SET status = 'idle', version = version + 1, updated_at = now() WHERE id = $1",
          [id],
        ],
      ]);
    },
    close: () => pool.end(),
  };
}
