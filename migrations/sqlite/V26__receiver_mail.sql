-- E-mail to receivers (DESIGN §21): one row per message, written in the same transaction as the
-- change it tells about (booked, out for delivery, delivered, exception) and sent from there by
-- the mail worker; the row is also the shipment's notification log. While queued,
-- next_attempt_at is when it is due (or, while a sender holds it, when its claim runs out).
CREATE TABLE notifications (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    shipment_id     TEXT NOT NULL REFERENCES shipments(id) ON DELETE CASCADE,
    event           TEXT NOT NULL,
    to_address      TEXT NOT NULL,
    language        TEXT NOT NULL,
    attach_label    INTEGER NOT NULL,
    status          TEXT NOT NULL,
    attempts        INTEGER NOT NULL,
    error           TEXT,
    next_attempt_at TEXT,
    created_at      TEXT NOT NULL,
    sent_at         TEXT
) STRICT;
CREATE INDEX notifications_of_shipment ON notifications (org_id, shipment_id, id);
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE status = 'queued';

-- Receivers who asked for no more e-mail from an organization (the unsubscribe page);
-- the address is lower-cased.
CREATE TABLE mail_suppressions (
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    address    TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (org_id, address)
) STRICT, WITHOUT ROWID;
