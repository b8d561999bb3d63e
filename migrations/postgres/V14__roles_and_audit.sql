-- Credentials capped by their holder's role (DESIGN §19). How each API token was made: only one
-- made at the command line or in the pages may carry its user's staff rights; one an agent made
-- (directly, or with a token an agent made) names its connection and dies with it. Tokens made
-- before this migration are counted as made with another token.
ALTER TABLE api_tokens ADD COLUMN origin TEXT NOT NULL DEFAULT 'api'
    CHECK (origin IN ('cli', 'session', 'api', 'agent'));
ALTER TABLE api_tokens ADD COLUMN connection_id TEXT
    REFERENCES agent_connections(id) ON DELETE CASCADE;
CREATE INDEX api_tokens_connection ON api_tokens(connection_id);

-- Registered OAuth clients that never completed a sign-in are capped (oauth.max_unused_clients).
ALTER TABLE oauth_clients ADD COLUMN used_at TEXT;
UPDATE oauth_clients SET used_at = created_at
    WHERE id IN (SELECT client_id FROM agent_connections);
CREATE INDEX oauth_clients_unused ON oauth_clients(created_at) WHERE used_at IS NULL;

-- The audit log: every write of an organization's data, newest first per organization.
CREATE TABLE audit_log (
    org_id         TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    created_at     TEXT NOT NULL,
    id             TEXT NOT NULL,
    operation      TEXT NOT NULL,
    resource_id    TEXT NOT NULL,
    actor_type     TEXT NOT NULL,
    actor_id       TEXT,
    user_id        TEXT,
    client_address TEXT,
    PRIMARY KEY (org_id, created_at, id)
);

-- A Shopify channel's signing secret, sealed with the vault's key like the other secrets. The
-- server moves plaintext secrets of older versions here when it starts (webhook_secret is then
-- NULL).
ALTER TABLE order_channels ADD COLUMN webhook_secret_sealed TEXT;
