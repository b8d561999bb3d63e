-- Label documents, and which shipment a split came from (for `<reference>-<n>`).
CREATE TABLE documents (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    shipment_id   TEXT NOT NULL REFERENCES shipments(id) ON DELETE CASCADE,
    document_type TEXT NOT NULL,
    format        TEXT NOT NULL,
    size          TEXT NOT NULL,
    content       BLOB NOT NULL,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
) STRICT;
CREATE INDEX documents_shipment ON documents(org_id, shipment_id, created_at);

ALTER TABLE shipments ADD COLUMN split_from TEXT;
-- How many shipments were ever split from this one (deleted ones included), for `<reference>-<n>`.
ALTER TABLE shipments ADD COLUMN splits_made INTEGER NOT NULL DEFAULT 0;
CREATE INDEX shipments_split_from ON shipments(org_id, split_from);
