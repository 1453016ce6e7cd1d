export interface Migration {
  version: number
  sql: string
}

/** Numbered and append-only: a released migration is never edited. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value_json TEXT NOT NULL
      );

      CREATE TABLE rooms (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('direct', 'group')),
        agent_id TEXT NOT NULL,
        workspace TEXT NOT NULL,
        title TEXT NOT NULL,
        policy_json TEXT NOT NULL,
        revision INTEGER NOT NULL DEFAULT 0,
        mac TEXT,
        created_at INTEGER NOT NULL
      );

      CREATE TABLE turns (
        id TEXT PRIMARY KEY,
        room_id TEXT NOT NULL REFERENCES rooms(id),
        client_request_id TEXT NOT NULL,
        text TEXT NOT NULL,
        attempt INTEGER NOT NULL DEFAULT 1,
        retry_of TEXT,
        workspace TEXT NOT NULL,
        policy_json TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (room_id, client_request_id, attempt)
      );

      CREATE TABLE messages (
        id TEXT PRIMARY KEY,
        room_id TEXT NOT NULL REFERENCES rooms(id),
        turn_id TEXT NOT NULL REFERENCES turns(id),
        role TEXT NOT NULL CHECK (role IN ('user', 'agent', 'system')),
        text TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );

      CREATE TABLE tool_calls (
        id TEXT PRIMARY KEY,
        room_id TEXT NOT NULL REFERENCES rooms(id),
        turn_id TEXT NOT NULL REFERENCES turns(id),
        seq INTEGER NOT NULL,
        tool_name TEXT NOT NULL,
        arguments_json TEXT NOT NULL,
        status TEXT NOT NULL,
        result_json TEXT,
        approval_id TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );

      CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        room_id TEXT NOT NULL REFERENCES rooms(id),
        turn_id TEXT NOT NULL REFERENCES turns(id),
        tool_call_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        arguments_json TEXT NOT NULL,
        working_directory TEXT NOT NULL,
        sandbox_mode TEXT NOT NULL,
        summary TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'allowed', 'denied', 'expired')),
        decision TEXT,
        decided_by TEXT,
        reason TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        decided_at INTEGER
      );
      CREATE INDEX approvals_room ON approvals (room_id, created_at);
      CREATE INDEX approvals_pending ON approvals (status, expires_at);

      CREATE TABLE grants (
        id TEXT PRIMARY KEY,
        room_id TEXT NOT NULL REFERENCES rooms(id),
        tool_name TEXT NOT NULL,
        command_json TEXT,
        approval_id TEXT NOT NULL,
        mac TEXT,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      );

      CREATE TABLE permission_requests (
        room_id TEXT NOT NULL REFERENCES rooms(id),
        client_request_id TEXT NOT NULL,
        body_digest TEXT NOT NULL,
        result_json TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (room_id, client_request_id)
      );

      CREATE TABLE audit_events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        subject_id TEXT NOT NULL,
        payload_json TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL,
        mac TEXT
      );

      -- Append-only: the database itself refuses edits and deletes, so a bug
      -- in the runtime cannot rewrite history (an attacker with the file can,
      -- which is what the hash chain and MAC are for).
      CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
        BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
      CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
        BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
    `,
  },
  {
    version: 2,
    sql: `
      -- The tamper-evident head of the audit chain: the newest event's seq and
      -- hash, MAC'd and rewritten in the same transaction as each append, so
      -- deleting the newest events (which leaves a valid but shorter chain)
      -- is detected.
      CREATE TABLE audit_head (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        seq INTEGER NOT NULL,
        hash TEXT NOT NULL,
        mac TEXT NOT NULL
      );
    `,
  },
  {
    version: 3,
    sql: `
      -- Questions from the agent and forms from MCP servers. A secret answer
      -- is never stored: answers_json keeps only that it was saved.
      CREATE TABLE input_requests (
        id TEXT PRIMARY KEY,
        room_id TEXT NOT NULL REFERENCES rooms(id),
        turn_id TEXT,
        kind TEXT NOT NULL CHECK (kind IN ('questions', 'form')),
        questions_json TEXT NOT NULL,
        form_json TEXT,
        blocking INTEGER NOT NULL,
        timing_json TEXT,
        sensitive INTEGER NOT NULL,
        status TEXT NOT NULL,
        answers_json TEXT,
        content_json TEXT,
        created_at INTEGER NOT NULL,
        resolved_at INTEGER
      );
      CREATE INDEX input_requests_room ON input_requests (room_id, created_at);
    `,
  },
  {
    version: 4,
    sql: `
      -- MCP tool calls: what the person was shown about the server and tool
      -- (part of the canonical action), and the tool definition an "always
      -- allow" grant is bound to.
      ALTER TABLE approvals ADD COLUMN mcp_json TEXT;
      ALTER TABLE grants ADD COLUMN mcp_server_id TEXT;
      ALTER TABLE grants ADD COLUMN mcp_definition_hash TEXT;
    `,
  },
  {
    version: 5,
    sql: `
      -- What an "always allow" grant answers for (tool, command, path or mcp)
      -- and, for a path grant, the one real path; and why the approve-for-me
      -- reviewer handed an approval to the person.
      ALTER TABLE grants ADD COLUMN scope TEXT;
      ALTER TABLE grants ADD COLUMN path TEXT;
      ALTER TABLE approvals ADD COLUMN escalation_reason TEXT;
    `,
  },
  {
    version: 6,
    sql: `
      -- A file write's or delete's target as observed when the approval was
      -- opened, and a write's preview: both part of the canonical action.
      ALTER TABLE approvals ADD COLUMN target_json TEXT;
      ALTER TABLE approvals ADD COLUMN file_change_json TEXT;
    `,
  },
  {
    version: 7,
    sql: `
      -- The agent reads a room's last messages at every step of a turn, and
      -- a turn's tool calls before a retry: without these, each read scanned
      -- (and sorted) the whole table, a cost that grew with every message
      -- and tool call ever stored.
      CREATE INDEX messages_room ON messages (room_id, created_at);
      CREATE INDEX tool_calls_turn ON tool_calls (turn_id, seq);
    `,
  },
  {
    version: 8,
    sql: `
      -- What the runtime said, as a code with parameters for the person's
      -- language (contracts/runtime-message.ts), beside the English text:
      -- an approval's summary, its reason and the reviewer's escalation
      -- reason, and a message the runtime or its offline agent wrote.
      ALTER TABLE approvals ADD COLUMN summary_message_json TEXT;
      ALTER TABLE approvals ADD COLUMN reason_message_json TEXT;
      ALTER TABLE approvals ADD COLUMN escalation_message_json TEXT;
      ALTER TABLE messages ADD COLUMN message_json TEXT;
    `,
  },
  {
    version: 9,
    sql: `
      -- Rollback detection: the sealed head also carries a counter every
      -- change of a room's permissions or grants (and every clean shutdown)
      -- moves forward, and a digest of the rooms' and grants' permission
      -- state; main keeps the highest counter outside the database. A
      -- database whose counter is below that anchor is an older copy.
      ALTER TABLE audit_head ADD COLUMN rollback_counter INTEGER;
      ALTER TABLE audit_head ADD COLUMN permissions_digest TEXT;
      -- A room read from an older copy: sealed as such until the person
      -- confirms a mode again.
      ALTER TABLE rooms ADD COLUMN rolled_back INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 10,
    sql: `
      -- A server-wide MCP grant (scope 'mcp-server'): the hash of the
      -- server's whole tool list as the person saw it, which it is bound to.
      ALTER TABLE grants ADD COLUMN mcp_tool_list_hash TEXT;

      -- A room's approver webhook: its URL, its secret sealed under a key
      -- derived from the integrity key (never in clear), and a MAC over the
      -- row. One per room; removing it deletes the row.
      CREATE TABLE approver_webhooks (
        room_id TEXT PRIMARY KEY REFERENCES rooms(id),
        webhook_id TEXT NOT NULL,
        url TEXT NOT NULL,
        sealed_secret TEXT NOT NULL,
        client_request_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        mac TEXT
      );
    `,
  },
  {
    version: 11,
    sql: `
      -- When the runtime closes an ordinary question on its own (its timer
      -- lives in the runtime, not in a workbench that may be closed).
      ALTER TABLE input_requests ADD COLUMN auto_resolve_at INTEGER;
    `,
  },
  {
    version: 12,
    sql: `
      -- A message the person sent in plan mode, whatever the room's mode:
      -- its turn and every retry of it run under the plan preset.
      ALTER TABLE turns ADD COLUMN plan INTEGER NOT NULL DEFAULT 0;
      -- A permission request: what widens and for how long (part of the
      -- canonical action the person is shown).
      ALTER TABLE approvals ADD COLUMN permission_json TEXT;
    `,
  },
  {
    version: 13,
    sql: `
      -- A room's workspace by identity: the device and inode of the folder
      -- at its real path (the workspace column) when the room was made,
      -- sealed with the row. NULL on rooms made before this: such a room
      -- is pinned at its next turn if its path still resolves to itself.
      ALTER TABLE rooms ADD COLUMN workspace_dev TEXT;
      ALTER TABLE rooms ADD COLUMN workspace_ino TEXT;
      -- The identity a turn was admitted with, frozen like its policy.
      ALTER TABLE turns ADD COLUMN workspace_identity_json TEXT;
    `,
  },
  {
    version: 14,
    sql: `
      -- A command's containment: what the OS sandbox lets it do (part of
      -- the canonical action the person is shown).
      ALTER TABLE approvals ADD COLUMN containment_json TEXT;
    `,
  },
  {
    version: 15,
    sql: `
      -- What a start settles (recovery/crash-recovery.ts: calls still
      -- running or awaiting a decision, turns still running or waiting,
      -- questions still pending) is found through these, not by reading
      -- every row a long history has left: a start must not grow slower
      -- with the history.
      CREATE INDEX tool_calls_status ON tool_calls (status);
      CREATE INDEX turns_status ON turns (status);
      CREATE INDEX input_requests_status ON input_requests (status);
    `,
  },
  {
    version: 16,
    sql: `
      -- The prompt an assent-gateway grant on prompts/get answers for, by
      -- its name, so the grant list can say which one (sealed with the row).
      ALTER TABLE grants ADD COLUMN mcp_prompt TEXT;
    `,
  },
]
