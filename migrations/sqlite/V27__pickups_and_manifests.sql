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
) STRICT;
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
    parcel_count      INTEGER NOT NULL,
    total_weight      REAL NOT NULL,
    carrier_closed    INTEGER NOT NULL,
    carrier_reference TEXT,
    document_id       TEXT NOT NULL UNIQUE,
    content           BLOB NOT NULL,
    created_at        TEXT NOT NULL
) STRICT;
CREATE INDEX manifests_org ON manifests(org_id, created_at DESC, id DESC);

CREATE TABLE manifest_shipments (
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    shipment_id TEXT NOT NULL,
    manifest_id TEXT NOT NULL REFERENCES manifests(id) ON DELETE CASCADE,
    PRIMARY KEY (org_id, shipment_id)
) STRICT;

-- A print job may now be a manifest's PDF: `manifest` jobs name the manifest's document and
-- carry its content (no shipment). The table is made anew as in V19 (SQLite cannot change a
-- CHECK), its rows copied and its indexes made again; nothing refers to print_jobs.
CREATE TABLE print_jobs_v27 (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    printer_id      TEXT NOT NULL REFERENCES printers(id) ON DELETE CASCADE,
    kind            TEXT NOT NULL DEFAULT 'document'
        CHECK (kind IN ('document', 'test_page', 'manifest')),
    document_id     TEXT,
    shipment_id     TEXT,
    content         BLOB,
    title           TEXT,
    format          TEXT CHECK (format IN ('pdf', 'zpl')),
    status          TEXT NOT NULL CHECK (status IN ('queued', 'printed', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    error           TEXT,
    next_attempt_at TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    position        INTEGER NOT NULL DEFAULT 0,
    busy_since      TEXT,
    CHECK (
        (kind = 'document' AND document_id IS NOT NULL AND shipment_id IS NOT NULL
            AND content IS NULL)
        OR (kind = 'test_page' AND document_id IS NULL AND shipment_id IS NULL
            AND content IS NOT NULL AND title IS NOT NULL AND format IS NOT NULL)
        OR (kind = 'manifest' AND document_id IS NOT NULL AND shipment_id IS NULL
            AND content IS NOT NULL AND title IS NOT NULL AND format IS NOT NULL)
    )
) STRICT;
INSERT INTO print_jobs_v27 (id, org_id, printer_id, kind, document_id, shipment_id, content,
                            title, format, status, attempts, error, next_attempt_at,
                            created_at, updated_at, position, busy_since)
    SELECT id, org_id, printer_id, kind, document_id, shipment_id, content,
           title, format, status, attempts, error, next_attempt_at,
           created_at, updated_at, position, busy_since
    FROM print_jobs;
DROP TABLE print_jobs;
ALTER TABLE print_jobs_v27 RENAME TO print_jobs;
CREATE INDEX print_jobs_printer ON print_jobs(org_id, printer_id, created_at DESC, id DESC);
CREATE INDEX print_jobs_due ON print_jobs(next_attempt_at) WHERE status = 'queued';
CREATE INDEX print_jobs_queue ON print_jobs(printer_id, created_at, position, id) WHERE status = 'queued';
CREATE INDEX print_jobs_org_updated ON print_jobs(org_id, updated_at);
