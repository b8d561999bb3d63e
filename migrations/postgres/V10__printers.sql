-- Network printers (DESIGN §17) and the print jobs booking queues for them.
CREATE TABLE printers (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('raw', 'ipp')),
    address    TEXT NOT NULL,
    format     TEXT NOT NULL CHECK (format IN ('pdf', 'zpl')),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX printers_org ON printers(org_id, created_at DESC, id DESC);

-- A rule's printers; a printer a rule names cannot be deleted (409).
ALTER TABLE shipping_rules ADD COLUMN label_printer_id TEXT REFERENCES printers(id);
ALTER TABLE shipping_rules ADD COLUMN document_printer_id TEXT REFERENCES printers(id);
CREATE INDEX shipping_rules_label_printer ON shipping_rules(label_printer_id);
CREATE INDEX shipping_rules_document_printer ON shipping_rules(document_printer_id);

-- One job per document sent to a printer. `next_attempt_at` is when a queued job is due (a
-- claimed job's lease runs until then); the job's document is read when it is sent.
CREATE TABLE print_jobs (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    printer_id      TEXT NOT NULL REFERENCES printers(id) ON DELETE CASCADE,
    document_id     TEXT NOT NULL,
    shipment_id     TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('queued', 'printed', 'failed')),
    attempts        BIGINT NOT NULL DEFAULT 0,
    error           TEXT,
    next_attempt_at TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX print_jobs_printer ON print_jobs(org_id, printer_id, created_at DESC, id DESC);
CREATE INDEX print_jobs_due ON print_jobs(next_attempt_at) WHERE status = 'queued';
