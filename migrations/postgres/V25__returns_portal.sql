-- The returns portal's settings (DESIGN §21): one row per organization once it changes them,
-- as JSON (`ReturnsPortal`); none means closed, no rule, no reasons.
CREATE TABLE returns_portals (
    org_id     TEXT PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
    body       TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
