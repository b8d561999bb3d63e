-- Organizations, users, memberships and API tokens.
CREATE TABLE orgs (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    slug            TEXT NOT NULL UNIQUE,
    description     TEXT,
    currency        TEXT NOT NULL DEFAULT 'DKK',
    vat_number      TEXT,
    billing_email   TEXT,
    company_name    TEXT,
    address_line1   TEXT,
    address_line2   TEXT,
    city            TEXT,
    postal_code     TEXT,
    country         TEXT,
    overage_enabled INTEGER NOT NULL DEFAULT 0,
    plan            TEXT NOT NULL DEFAULT 'default',
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
) STRICT;

CREATE TABLE users (
    id             TEXT PRIMARY KEY,
    email          TEXT NOT NULL UNIQUE COLLATE NOCASE,
    name           TEXT NOT NULL,
    language       TEXT NOT NULL DEFAULT 'en',
    password_hash  TEXT,
    staff          INTEGER NOT NULL DEFAULT 0,
    email_verified INTEGER NOT NULL DEFAULT 0,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL
) STRICT;

CREATE TABLE memberships (
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    brand      TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (org_id, user_id)
) STRICT;
CREATE INDEX memberships_user ON memberships(user_id);

CREATE TABLE api_tokens (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    token_hash   BLOB NOT NULL UNIQUE,
    token_prefix TEXT NOT NULL,
    scopes       TEXT NOT NULL,
    created_by   TEXT NOT NULL REFERENCES users(id),
    expires_at   TEXT,
    last_used_at TEXT,
    created_at   TEXT NOT NULL
) STRICT;
CREATE INDEX api_tokens_org ON api_tokens(org_id, created_at DESC, id DESC);
