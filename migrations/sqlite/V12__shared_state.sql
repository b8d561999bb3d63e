-- State every process serving one database must see (DESIGN §18), kept in memory before:
-- failed sign-ins (the throttle) and the sessions of the legacy MCP revisions.
CREATE TABLE login_failures (
    key     TEXT PRIMARY KEY, -- "account:<e-mail>" or "address:<ip>"
    count   INTEGER NOT NULL,
    last_at TEXT NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX login_failures_last ON login_failures(last_at);

-- A session id is a bearer value: only its SHA-256 is kept.
CREATE TABLE mcp_sessions (
    id_hash          TEXT PRIMARY KEY,
    connection_id    TEXT NOT NULL,
    user_id          TEXT NOT NULL,
    protocol_version TEXT NOT NULL,
    initialized      INTEGER NOT NULL DEFAULT 0,
    last_used_at     TEXT NOT NULL
) STRICT;
CREATE INDEX mcp_sessions_used ON mcp_sessions(last_used_at);
