-- A number that every change to what an API token's authentication reads moves on (issue 30):
-- the token itself (not its `last_used_at`), its creator's staff flag, the creator's membership,
-- and the agent connection it dies with. A process keeps the tokens it authenticated with the
-- number it read them under and reads them again only when the number moved, so that a request
-- reads one row of one page instead of four tables, and a token revoked or a member removed by
-- any process (another server on PostgreSQL, the CLI beside a server) is refused at once.
-- Its one row starts at 0. It is not copied by copy-data: each database keeps its own.
CREATE TABLE credential_generation (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    value INTEGER NOT NULL
) STRICT;
INSERT INTO credential_generation (id, value) VALUES (1, 0);

CREATE TRIGGER credential_generation_token_update
AFTER UPDATE OF id, org_id, token_hash, scopes, created_by, expires_at, origin, connection_id
ON api_tokens BEGIN
    UPDATE credential_generation SET value = value + 1;
END;
CREATE TRIGGER credential_generation_token_delete AFTER DELETE ON api_tokens BEGIN
    UPDATE credential_generation SET value = value + 1;
END;
CREATE TRIGGER credential_generation_user_update AFTER UPDATE OF id, staff ON users BEGIN
    UPDATE credential_generation SET value = value + 1;
END;
CREATE TRIGGER credential_generation_user_delete AFTER DELETE ON users BEGIN
    UPDATE credential_generation SET value = value + 1;
END;
CREATE TRIGGER credential_generation_membership_insert AFTER INSERT ON memberships BEGIN
    UPDATE credential_generation SET value = value + 1;
END;
CREATE TRIGGER credential_generation_membership_update AFTER UPDATE ON memberships BEGIN
    UPDATE credential_generation SET value = value + 1;
END;
CREATE TRIGGER credential_generation_membership_delete AFTER DELETE ON memberships BEGIN
    UPDATE credential_generation SET value = value + 1;
END;
CREATE TRIGGER credential_generation_connection_update AFTER UPDATE OF id ON agent_connections
BEGIN
    UPDATE credential_generation SET value = value + 1;
END;
CREATE TRIGGER credential_generation_connection_delete AFTER DELETE ON agent_connections BEGIN
    UPDATE credential_generation SET value = value + 1;
END;
