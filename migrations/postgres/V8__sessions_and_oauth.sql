-- Sign-in sessions of the pages, and the OAuth 2.1 authorization server (DESIGN §12): signing
-- keys, registered clients, agent connections, authorization codes and refresh tokens. Every
-- secret (session, code, refresh token) is stored as its SHA-256 only; private keys are sealed.
CREATE TABLE web_sessions (
    token_hash BYTEA PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE INDEX web_sessions_expiry ON web_sessions(expires_at);

CREATE TABLE oauth_keys (
    id          TEXT PRIMARY KEY,
    private_key TEXT NOT NULL,
    public_key  TEXT NOT NULL,
    created_at  TEXT NOT NULL
);

CREATE TABLE oauth_clients (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    redirect_uris TEXT NOT NULL,
    client_uri    TEXT,
    created_at    TEXT NOT NULL
);

CREATE TABLE agent_connections (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    org_id       TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    client_id    TEXT NOT NULL,
    client_name  TEXT NOT NULL,
    scopes       TEXT NOT NULL,
    resource     TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    last_used_at TEXT
);
CREATE INDEX agent_connections_user ON agent_connections(user_id, created_at DESC);
CREATE INDEX agent_connections_client ON agent_connections(client_id);

CREATE TABLE oauth_codes (
    code_hash      BYTEA PRIMARY KEY,
    client_id      TEXT NOT NULL,
    client_name    TEXT NOT NULL,
    user_id        TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    org_id         TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    redirect_uri   TEXT NOT NULL,
    scopes         TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    resource       TEXT NOT NULL,
    expires_at     TEXT NOT NULL,
    -- Set when the code is exchanged: a second exchange ends that connection (RFC 6749 §4.1.2).
    connection_id  TEXT
);
CREATE INDEX oauth_codes_expiry ON oauth_codes(expires_at);

CREATE TABLE oauth_refresh_tokens (
    token_hash    BYTEA PRIMARY KEY,
    connection_id TEXT NOT NULL REFERENCES agent_connections(id) ON DELETE CASCADE,
    scopes        TEXT NOT NULL,
    expires_at    TEXT NOT NULL,
    -- Set when the token is exchanged; presenting it again ends the connection.
    used_at       TEXT
);
CREATE INDEX oauth_refresh_tokens_connection ON oauth_refresh_tokens(connection_id);
CREATE INDEX oauth_refresh_tokens_expiry ON oauth_refresh_tokens(expires_at);
