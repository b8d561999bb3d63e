-- Pickups and end-of-day manifests (DESIGN §22).
-- A pickup is written `requesting` before its carrier is asked (its id is the carrier's
-- reference), then `booked` with the carrier's confirmation number, or `unknown` when the
-- carrier may have booked it without saying so; a definite refusal removes the row.
CREATE TABLE pickups (
    id                  TEXT PRIMARY KEY,
    org_id              TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    carrier_id          TEXT NOT NULL,
    status              TEXT NOT NULL
        CHECK (status IN ('requesting', 'booked', 'unknown', 'cancelled')),
    date                TEXT NOT NULL,
    ready_from          TEXT NOT NULL,
    ready_until         TEXT NOT NULL,
    sender_address_id   TEXT NOT NULL,
    -- JSON array of shipment ids.
    shipment_ids        TEXT NOT NULL,
    note                TEXT,
    confirmation_number TEXT,
    error               TEXT,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL
);
CREATE INDEX pickups_org ON pickups(org_id, created_at DESC, id DESC);

-- A manifest and its PDF; `manifest_shipments` holds each shipment in at most one manifest,
-- so that a close never takes a shipment twice, whichever process closes.
CREATE TABLE manifests (
    id                TEXT PRIMARY KEY,
    org_id            TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    carrier_id        TEXT NOT NULL,
    date              TEXT NOT NULL,
    -- JSON: shipment ids, and the shipments the carrier refused.
    shipment_ids      TEXT NOT NULL,
    refused           TEXT NOT NULL,
    parcel_count      BIGINT NOT NULL,
    total_weight      DOUBLE PRECISION NOT NULL,
    carrier_closed    BIGINT NOT NULL,
    carrier_reference TEXT,
    document_id       TEXT NOT NULL UNIQUE,
    content           BYTEA NOT NULL,
    created_at        TEXT NOT NULL
);
CREATE INDEX manifests_org ON manifests(org_id, created_at DESC, id DESC);

CREATE TABLE manifest_shipments (
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    shipment_id TEXT NOT NULL,
    manifest_id TEXT NOT NULL REFERENCES manifests(id) ON DELETE CASCADE,
    PRIMARY KEY (org_id, shipment_id)
);

-- A print job may now be a manifest's PDF: `manifest` jobs name the manifest's document and
-- carry its content (no shipment).
ALTER TABLE print_jobs DROP CONSTRAINT print_jobs_kind_check;
ALTER TABLE print_jobs ADD CONSTRAINT print_jobs_kind_check
    CHECK (kind IN ('document', 'test_page', 'manifest'));
ALTER TABLE print_jobs DROP CONSTRAINT print_jobs_what;
ALTER TABLE print_jobs ADD CONSTRAINT print_jobs_what CHECK (
    (kind = 'document' AND document_id IS NOT NULL AND shipment_id IS NOT NULL
        AND content IS NULL)
    OR (kind = 'test_page' AND document_id IS NULL AND shipment_id IS NULL
        AND content IS NOT NULL AND title IS NOT NULL AND format IS NOT NULL)
    OR (kind = 'manifest' AND document_id IS NOT NULL AND shipment_id IS NULL
        AND content IS NOT NULL AND title IS NOT NULL AND format IS NOT NULL)
);
