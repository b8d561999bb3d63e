-- Each booking of a shipment with its carrier is an attempt (DESIGN §7, §15): claimed in a
-- committed write before the carrier is called, so that a concurrent book, split, edit or cancel
-- is refused (409) and no second request reaches the carrier. An attempt whose carrier call timed
-- out or broke stays 'unknown' until the caller books again on purpose. The attempt's id is what
-- the carrier is told identifies the request (PostNord's messageId, DHL's Message-Reference). At most one open attempt
-- (in_progress or unknown) per shipment.
CREATE TABLE booking_attempts (
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    shipment_id TEXT NOT NULL REFERENCES shipments(id) ON DELETE CASCADE,
    status      TEXT NOT NULL
        CHECK (status IN ('in_progress', 'booked', 'failed', 'unknown', 'superseded')),
    started_at  TEXT NOT NULL,
    -- An attempt still in_progress at this time is taken to have stopped (its process died): it
    -- counts as unknown. The carriers' timeout and two minutes after started_at.
    stale_at    TEXT NOT NULL,
    finished_at TEXT,
    error       TEXT
);
CREATE UNIQUE INDEX booking_attempts_open ON booking_attempts(org_id, shipment_id)
    WHERE status IN ('in_progress', 'unknown');
CREATE INDEX booking_attempts_shipment ON booking_attempts(org_id, shipment_id, started_at);
