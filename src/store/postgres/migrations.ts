/** One schema step of the PostgreSQL store. Applied once, in `version` order. */
export interface Migration {
  version: number;
  /** The step's SQL; `{schema}` stands for the quoted schema name. */
  sql: string;
}

/**
 * The PostgreSQL schema, oldest step first. Never edit a step that has shipped: append a new one.
 *
 * Times are BIGINT epoch milliseconds (as in the SQLite store) and JSON is `json`: it keeps the text
 * as written and, unlike `jsonb`, accepts every string JSON can hold (`\u0000` included). Child tables
 * point at a conversation by its BIGINT `key`, not its text id, so their rows and indexes stay small.
 * Ids sort with the "C" collation (byte order), as they do in SQLite and in memory, whatever the
 * database's default collation is.
 */
export const migrations: Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE {schema}.conversations (
        key BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT COLLATE "C" NOT NULL UNIQUE,
        agent TEXT NOT NULL,
        owner_id TEXT,
        channel TEXT,
        status TEXT NOT NULL,
        version INTEGER NOT NULL,
        metadata JSON,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        action_due_at BIGINT,
        lease_owner TEXT,
        lease_expires_at BIGINT,
        tokens_used BIGINT NOT NULL,
        last_event_seq BIGINT NOT NULL,
        intake_done BOOLEAN NOT NULL
      );
      -- The sweep reads these two and merges them; both stay small (only what can fall due).
      CREATE INDEX conversations_action_due ON {schema}.conversations (action_due_at) WHERE action_due_at IS NOT NULL;
      CREATE INDEX conversations_lease ON {schema}.conversations (lease_expires_at) WHERE status = 'running';

      CREATE TABLE {schema}.messages (
        conversation_key BIGINT NOT NULL,
        position INTEGER NOT NULL,
        id TEXT NOT NULL,
        role TEXT NOT NULL,
        parts JSON NOT NULL,
        metadata JSON,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (conversation_key, position)
      );

      -- No kind column: it is request.kind.
      CREATE TABLE {schema}.actions (
        conversation_key BIGINT NOT NULL,
        id TEXT COLLATE "C" NOT NULL,
        message_id TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        origin TEXT NOT NULL,
        journal_index INTEGER NOT NULL,
        status TEXT NOT NULL,
        request JSON NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT,
        on_timeout TEXT NOT NULL,
        resolution JSON,
        resolved_by TEXT,
        resolved_at BIGINT,
        defaulted JSON,
        PRIMARY KEY (conversation_key, id)
      );
      -- The inbox: only open actions, oldest first.
      CREATE INDEX actions_pending ON {schema}.actions (created_at, id) WHERE status = 'pending';

      CREATE TABLE {schema}.events (
        conversation_key BIGINT NOT NULL,
        seq BIGINT NOT NULL,
        type TEXT NOT NULL,
        data JSON NOT NULL,
        at BIGINT NOT NULL,
        PRIMARY KEY (conversation_key, seq)
      );

      CREATE TABLE {schema}.remembered_tools (
        conversation_key BIGINT NOT NULL,
        tool_name TEXT COLLATE "C" NOT NULL,
        remembered_by TEXT NOT NULL,
        remembered_at BIGINT NOT NULL,
        PRIMARY KEY (conversation_key, tool_name)
      );

      -- A commit is one statement; this is how it refuses (and so rolls back) once it has started writing.
      CREATE FUNCTION {schema}.heed_refuse(reason TEXT) RETURNS BOOLEAN LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        RAISE EXCEPTION USING ERRCODE = 'HEED1', MESSAGE = reason;
      END;
      $$;
    `,
  },
  {
    // Who settled an action (a user id) and how (channel) become two fields, so a user id such as
    // "system:timeout" or "anonymous" cannot pass for the system or an anonymous caller. Rows written
    // before keep their meaning: the old label is split into the two.
    version: 2,
    sql: `
      ALTER TABLE {schema}.actions ADD COLUMN channel TEXT;
      UPDATE {schema}.actions SET
        channel = CASE
          WHEN resolved_by = 'system:timeout' THEN 'timeout'
          WHEN resolved_by = 'remembered' THEN 'remembered'
          WHEN left(resolved_by, 6) = 'system' THEN 'system'
          ELSE 'api' END,
        resolved_by = CASE
          WHEN resolved_by = 'anonymous' OR resolved_by = 'remembered' OR left(resolved_by, 6) = 'system' THEN NULL
          ELSE resolved_by END
      WHERE resolved_by IS NOT NULL;
      ALTER TABLE {schema}.remembered_tools ALTER COLUMN remembered_by DROP NOT NULL;
      UPDATE {schema}.remembered_tools SET remembered_by = NULL WHERE remembered_by = 'anonymous';
    `,
  },
  {
    // The outbox: notifications written in the same statement as the change that causes them, claimed
    // by the deliverers of every instance with FOR UPDATE SKIP LOCKED.
    version: 3,
    sql: `
      CREATE TABLE {schema}.deliveries (
        id TEXT COLLATE "C" PRIMARY KEY,
        conversation_id TEXT COLLATE "C" NOT NULL,
        action_id TEXT NOT NULL,
        event TEXT NOT NULL,
        target JSON NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        created_at BIGINT NOT NULL,
        due_at BIGINT,
        last_error TEXT,
        finished_at BIGINT
      );
      CREATE INDEX deliveries_due ON {schema}.deliveries (due_at, id) WHERE status = 'pending';
      CREATE INDEX deliveries_created ON {schema}.deliveries (status, created_at, id);

      -- Secrets Heed makes once and keeps (the answer links' signing key when none is configured).
      CREATE TABLE {schema}.secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
    `,
  },
  {
    // Channels (docs/channels.md): a delivery keeps what the receiver answered (the id Slack gave a posted
    // request, so the message can be updated once it is answered), and is found by its action.
    version: 4,
    sql: `
      ALTER TABLE {schema}.deliveries ADD COLUMN receipt JSON;
      CREATE INDEX deliveries_action ON {schema}.deliveries (action_id);
    `,
  },
  {
    // Messages sent while a turn runs, waiting for it to end (busyPolicy 'queue'): a short JSON list of
    // { id, seq, by, queuedAt } on the conversation, so taking the next one is part of the compare-and-set
    // that ends the turn. NULL when none waits; their text stays in the event log.
    version: 8,
    sql: `ALTER TABLE {schema}.conversations ADD COLUMN queue JSON;`,
  },
  {
    // What agent adapters keep between calls (heed/langgraph's checkpoints, heed/openai-agents' run
    // states): small values by scope and key. Numbered apart from the steps around it so that steps
    // written at the same time on other branches keep their own numbers.
    version: 20,
    sql: `
      CREATE TABLE {schema}.adapter_values (
        scope TEXT COLLATE "C" NOT NULL,
        key TEXT COLLATE "C" NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (scope, key)
      );
    `,
  },
  {
    // An action found by its id alone (`POST /api/inbox/decisions` names actions, not their conversations).
    version: 21,
    sql: `CREATE INDEX actions_by_id ON {schema}.actions (id);`,
  },
  {
    // Reminders before a deadline (hitl.remind, docs/notifications.md): a short JSON list of the times still
    // to remind at, planned when the action is raised or extended. NULL when none is left.
    version: 22,
    sql: `ALTER TABLE {schema}.actions ADD COLUMN remind_at JSON;`,
  },
  {
    // Whom an answer was given for, when a delegate gave it (PUT /api/me/delegation, docs/approvals.md).
    version: 23,
    sql: `ALTER TABLE {schema}.actions ADD COLUMN answered_for TEXT;`,
  },
  {
    // The audit log (docs/operating.md): one hash chain, its head (locked FOR UPDATE by each append, so the
    // chain has one order across instances) and the anchor kept when the front is pruned, and the pseudonyms
    // it names people by. Retention finds finished conversations by their last change. Numbered apart.
    version: 30,
    sql: `
      CREATE TABLE {schema}.audit_log (seq BIGINT PRIMARY KEY, at BIGINT NOT NULL, entry TEXT NOT NULL, hash TEXT NOT NULL);
      CREATE TABLE {schema}.audit_people (key TEXT COLLATE "C" PRIMARY KEY, user_id TEXT NOT NULL);
      CREATE TABLE {schema}.audit_chain (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        head_seq BIGINT NOT NULL,
        head_hash TEXT NOT NULL,
        anchor_seq BIGINT NOT NULL,
        anchor_hash TEXT NOT NULL
      );
      INSERT INTO {schema}.audit_chain VALUES (1, 0, '${'0'.repeat(64)}', 0, '${'0'.repeat(64)}');
      CREATE INDEX conversations_idle ON {schema}.conversations (updated_at) WHERE status = 'idle';
    `,
  },
];

/** The SQLSTATE `heed_refuse` raises. */
export const refusalCode = 'HEED1';
