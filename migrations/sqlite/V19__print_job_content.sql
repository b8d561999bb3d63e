-- Print jobs that carry what they print (issue 24): a printer's test page is no shipment's
-- document, so a job is either `document` (a shipment's document, read when it is sent) or
-- `test_page` (its own `content`, `title` and `format`, made when it was queued). SQLite cannot
-- drop NOT NULL from a column: the table is made anew, its rows copied, and the indexes of V10,
-- V16 and V17 made again. Nothing refers to print_jobs, so it can be dropped while foreign keys
-- are checked.
CREATE TABLE print_jobs_v19 (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    printer_id      TEXT NOT NULL REFERENCES printers(id) ON DELETE CASCADE,
    kind            TEXT NOT NULL DEFAULT 'document' CHECK (kind IN ('document', 'test_page')),
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
    )
) STRICT;
INSERT INTO print_jobs_v19 (id, org_id, printer_id, kind, document_id, shipment_id, status,
                            attempts, error, next_attempt_at, created_at, updated_at, position,
                            busy_since)
    SELECT id, org_id, printer_id, 'document', document_id, shipment_id, status,
           attempts, error, next_attempt_at, created_at, updated_at, position, busy_since
    FROM print_jobs;
DROP TABLE print_jobs;
ALTER TABLE print_jobs_v19 RENAME TO print_jobs;
CREATE INDEX print_jobs_printer ON print_jobs(org_id, printer_id, created_at DESC, id DESC);
CREATE INDEX print_jobs_due ON print_jobs(next_attempt_at) WHERE status = 'queued';
CREATE INDEX print_jobs_queue ON print_jobs(printer_id, created_at, position, id) WHERE status = 'queued';
CREATE INDEX print_jobs_org_updated ON print_jobs(org_id, updated_at);
