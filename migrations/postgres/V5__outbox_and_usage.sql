-- The outbox: every event is written in the transaction of the change it reports, and
-- delivered from here. Ids are time-ordered: the key alone serves reads and pruning.
CREATE TABLE events (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    type       TEXT NOT NULL,
    data       TEXT NOT NULL,
    created_at TEXT NOT NULL
);

-- Plan counters, written in the transaction of the write they count. `period` is the calendar
-- month (UTC) for per-period counters.
CREATE TABLE usage_counters (
    org_id  TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    counter TEXT NOT NULL,
    period  TEXT NOT NULL,
    value   BIGINT NOT NULL,
    PRIMARY KEY (org_id, counter, period)
);

-- Shipments created before the counter existed.
INSERT INTO usage_counters (org_id, counter, period, value)
    SELECT org_id, 'shipments', substr(created_at, 1, 7), COUNT(*)
    FROM shipments GROUP BY org_id, substr(created_at, 1, 7);
