import type { EventType } from '../../types.js';

/** One schema step of the SQLite store. Applied once, in `version` order, inside a transaction. */
export interface Migration {
  version: number;
  sql: string;
}

/**
 * The SQLite schema, oldest step first. Never edit a step that has shipped: append a new one.
 *
 * Times are INTEGER epoch milliseconds and JSON is TEXT. Child tables point at a conversation by
 * its integer `key`, not its text id: keys only grow, so child rows land at the end of their
 * B-trees (pages stay full) and each row carries a few bytes instead of a 36-character id.
 */
export const migrations: Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE conversations (
        key INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        agent TEXT NOT NULL,
        owner_id TEXT,
        channel TEXT,
        status TEXT NOT NULL,
        version INTEGER NOT NULL,
        metadata TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        action_due_at INTEGER,
        lease_owner TEXT,
        lease_expires_at INTEGER,
        tokens_used INTEGER NOT NULL,
        last_event_seq INTEGER NOT NULL,
        intake_done INTEGER NOT NULL,
        -- When the sweep must look at the conversation: the earliest deadline of a pause, or the lease
        -- of a running turn. One indexed column, so a state change rewrites one index entry, not two.
        sweep_at INTEGER GENERATED ALWAYS AS (
          CASE status WHEN 'requires_action' THEN action_due_at WHEN 'running' THEN lease_expires_at END
        ) VIRTUAL
      ) STRICT;
      CREATE INDEX conversations_sweep ON conversations (sweep_at, id) WHERE sweep_at IS NOT NULL;

      -- A rowid table: WITHOUT ROWID rows over ~1 KB spill into an overflow page of their own,
      -- and message text is often that long. The rowid is conversation_key * 2^20 + position
      -- (messageRowid), so it orders a conversation's messages by itself and no second index is
      -- written per message; a conversation holds at most 1,048,576 messages.
      CREATE TABLE messages (
        conversation_key INTEGER NOT NULL,
        position INTEGER NOT NULL,
        id TEXT NOT NULL,
        role TEXT NOT NULL,
        parts TEXT NOT NULL,
        metadata TEXT,
        created_at INTEGER NOT NULL
      ) STRICT;

      -- WITHOUT ROWID saves an index and a page write per insert; most requests are well under 1 KB.
      -- No kind column: it is request.kind.
      CREATE TABLE actions (
        conversation_key INTEGER NOT NULL,
        id TEXT NOT NULL,
        message_id TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        origin TEXT NOT NULL,
        journal_index INTEGER NOT NULL,
        status TEXT NOT NULL,
        request TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        on_timeout TEXT NOT NULL,
        resolution TEXT,
        resolved_by TEXT,
        resolved_at INTEGER,
        defaulted TEXT,
        PRIMARY KEY (conversation_key, id)
      ) STRICT, WITHOUT ROWID;
      -- The inbox: only open actions, oldest first.
      CREATE INDEX actions_pending ON actions (created_at, id) WHERE status = 'pending';

      -- type is a code from eventTypeCodes: the type's name would be a tenth of a typical row.
      CREATE TABLE events (
        conversation_key INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        type INTEGER NOT NULL,
        data TEXT NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (conversation_key, seq)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE remembered_tools (
        conversation_key INTEGER NOT NULL,
        tool_name TEXT NOT NULL,
        remembered_by TEXT NOT NULL,
        remembered_at INTEGER NOT NULL,
        PRIMARY KEY (conversation_key, tool_name)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    // Who settled an action (a user id) and how (channel) become two fields, so a user id such as
    // "system:timeout" or "anonymous" cannot pass for the system or an anonymous caller. Rows written
    // before keep their meaning: the old label is split into the two.
    version: 2,
    sql: `
      ALTER TABLE actions ADD COLUMN channel TEXT;
      UPDATE actions SET
        channel = CASE
          WHEN resolved_by = 'system:timeout' THEN 'timeout'
          WHEN resolved_by = 'remembered' THEN 'remembered'
          WHEN substr(resolved_by, 1, 6) = 'system' THEN 'system'
          ELSE 'api' END,
        resolved_by = CASE
          WHEN resolved_by = 'anonymous' OR resolved_by = 'remembered' OR substr(resolved_by, 1, 6) = 'system' THEN NULL
          ELSE resolved_by END
      WHERE resolved_by IS NOT NULL;

      -- remembered_by becomes nullable (an anonymous caller): SQLite changes a constraint by copying the table.
      CREATE TABLE remembered_tools_v2 (
        conversation_key INTEGER NOT NULL,
        tool_name TEXT NOT NULL,
        remembered_by TEXT,
        remembered_at INTEGER NOT NULL,
        PRIMARY KEY (conversation_key, tool_name)
      ) STRICT, WITHOUT ROWID;
      INSERT INTO remembered_tools_v2 (conversation_key, tool_name, remembered_by, remembered_at)
        SELECT conversation_key, tool_name, CASE remembered_by WHEN 'anonymous' THEN NULL ELSE remembered_by END, remembered_at
        FROM remembered_tools;
      DROP TABLE remembered_tools;
      ALTER TABLE remembered_tools_v2 RENAME TO remembered_tools;
    `,
  },
  {
    // The outbox: notifications written in the same transaction as the change that causes them, sent
    // by a background deliverer. Only pending rows are indexed by due time; failed ones for operators.
    version: 3,
    sql: `
      CREATE TABLE deliveries (
        id TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL,
        action_id TEXT NOT NULL,
        event TEXT NOT NULL,
        target TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        due_at INTEGER,
        last_error TEXT,
        finished_at INTEGER
      ) STRICT;
      CREATE INDEX deliveries_due ON deliveries (due_at, id) WHERE status = 'pending';
      CREATE INDEX deliveries_created ON deliveries (status, created_at, id);

      -- Secrets Heed makes once and keeps (the answer links' signing key when none is configured).
      CREATE TABLE secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT, WITHOUT ROWID;
    `,
  },
  {
    // Channels (docs/channels.md): a delivery keeps what the receiver answered (the id Slack gave a posted
    // request, so the message can be updated once it is answered), and is found by its action.
    version: 4,
    sql: `
      ALTER TABLE deliveries ADD COLUMN receipt TEXT;
      CREATE INDEX deliveries_action ON deliveries (action_id);
    `,
  },
  {
    // Events move to a rowid table whose rowid is conversation_key * EVENT_SPAN + seq, as messages do. A
    // WITHOUT ROWID table keeps whole rows in its interior pages too, and event rows are too large for
    // that to pay off: a commit's events touched three pages on average, where appending to a rowid
    // table touches the last one (and fills it).
    version: 5,
    sql: `
      CREATE TABLE events_by_rowid (type INTEGER NOT NULL, data TEXT NOT NULL, at INTEGER NOT NULL) STRICT;
      INSERT INTO events_by_rowid (rowid, type, data, at)
        SELECT conversation_key * 4294967296 + seq, type, data, at FROM events ORDER BY conversation_key, seq;
      DROP TABLE events;
      ALTER TABLE events_by_rowid RENAME TO events;
    `,
  },
  {
    // Messages sent while a turn runs, waiting for it to end (busyPolicy 'queue'): a short JSON list of
    // { id, seq, by, queuedAt } on the conversation, so taking the next one is part of the compare-and-set
    // that ends the turn. NULL when none waits; their text stays in the event log.
    version: 8,
    sql: `ALTER TABLE conversations ADD COLUMN queue TEXT;`,
  },
  {
    // What agent adapters keep between calls (heed/langgraph's checkpoints, heed/openai-agents' run
    // states): small values by scope and key. Numbered apart from the steps around it so that steps
    // written at the same time on other branches keep their own numbers.
    version: 20,
    sql: `
      CREATE TABLE adapter_values (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (scope, key)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    // An action found by its id alone (`POST /api/inbox/decisions` names actions, not their conversations).
    version: 21,
    sql: `CREATE INDEX actions_by_id ON actions (id);`,
  },
  {
    // Reminders before a deadline (hitl.remind, docs/notifications.md): a short JSON list of the times still
    // to remind at, planned when the action is raised or extended. NULL when none is left.
    version: 22,
    sql: `ALTER TABLE actions ADD COLUMN remind_at TEXT;`,
  },
  {
    // Whom an answer was given for, when a delegate gave it (PUT /api/me/delegation, docs/approvals.md).
    version: 23,
    sql: `ALTER TABLE actions ADD COLUMN answered_for TEXT;`,
  },
  {
    // The audit log (docs/operating.md): one hash chain, its head and the anchor kept when the front is pruned,
    // and the pseudonyms it names people by (erasure deletes a row here, never a chained entry). Retention
    // finds finished conversations by their last change. Numbered apart, as step 20 is.
    version: 30,
    sql: `
      CREATE TABLE audit_log (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, entry TEXT NOT NULL, hash TEXT NOT NULL) STRICT;
      CREATE TABLE audit_people (key TEXT PRIMARY KEY, user_id TEXT NOT NULL) STRICT, WITHOUT ROWID;
      CREATE TABLE audit_chain (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        head_seq INTEGER NOT NULL,
        head_hash TEXT NOT NULL,
        anchor_seq INTEGER NOT NULL,
        anchor_hash TEXT NOT NULL
      ) STRICT;
      INSERT INTO audit_chain VALUES (1, 0, '${'0'.repeat(64)}', 0, '${'0'.repeat(64)}');
      CREATE INDEX conversations_idle ON conversations (updated_at) WHERE status = 'idle';
    `,
  },
  {
    // The chain's head is the last entry of audit_log (or the anchor once all were pruned): one writer holds
    // the file at a time, so no second row has to name it, and each decision writes one page fewer. An
    // older Heed, which would read a stale head here, stops at the version check instead.
    version: 31,
    sql: `
      ALTER TABLE audit_chain DROP COLUMN head_seq;
      ALTER TABLE audit_chain DROP COLUMN head_hash;
    `,
  },
];

/** Messages of one conversation take rowids conversation_key * MESSAGE_SPAN + position. */
export const MESSAGE_SPAN = 1_048_576;

/**
 * Events of one conversation take rowids conversation_key * EVENT_SPAN + seq (migration 5). Computed in
 * SQL, whose integers have 64 bits: in JavaScript the product would lose precision past 2^21 conversations.
 */
export const EVENT_SPAN = 4_294_967_296;

/** How each event type is stored. Part of the file format: add new types at the end, never renumber. */
export const eventTypeCodes: Record<EventType, number> = {
  'message.created': 1,
  'turn.started': 2,
  'text.delta': 3,
  'tool.called': 4,
  'tool.result': 5,
  'action.required': 6,
  'action.resolved': 7,
  'turn.paused': 8,
  'turn.completed': 9,
  'turn.cancelled': 10,
  'turn.failed': 11,
  'delivery.failed': 12,
  'action.voted': 13,
  'action.escalated': 14,
  'message.queued': 15,
  'message.dropped': 16,
  'action.extended': 17,
  'action.reminded': 18,
  'child.started': 19,
  'child.paused': 20,
  'child.completed': 21,
};
