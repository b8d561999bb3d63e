-- An organization's branding (DESIGN §21): the name, color and logo its customers see. One row
-- per organization once it sets any; NULL is the default (the organization's own name, the
-- neutral color, no logo). An SVG logo is stored as sanitized.
CREATE TABLE branding (
    org_id       TEXT PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
    display_name TEXT,
    color        TEXT CHECK (color IS NULL OR length(color) = 7),
    logo         BYTEA,
    logo_type    TEXT CHECK (logo_type IN ('image/png', 'image/svg+xml')),
    updated_at   TEXT NOT NULL,
    CHECK ((logo IS NULL) = (logo_type IS NULL))
);
