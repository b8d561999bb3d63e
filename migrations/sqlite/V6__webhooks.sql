-- Webhook endpoints. `secret` is encrypted at rest; during a rotation the previous secret keeps
-- signing (beside the new one) until `previous_secret_expires_at`.
CREATE TABLE webhooks (
    id                         TEXT PRIMARY KEY,
    org_id                     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name                       TEXT NOT NULL,
    url                        TEXT NOT NULL,
    secret                     TEXT NOT NULL,
    previous_secret            TEXT,
    previous_secret_expires_at TEXT,
    events                     TEXT NOT NULL,
    is_active                  INTEGER NOT NULL,
    created_at                 TEXT NOT NULL,
    updated_at                 TEXT NOT NULL
) STRICT;
CREATE INDEX webhooks_org ON webhooks(org_id, created_at DESC, id DESC);

-- One row per (event, webhook) to deliver: the queue the worker takes due rows from. Kept
-- lean, as every event writes its rows: the key serves lookups by event, two partial indexes
-- hold only what is pending.
CREATE TABLE webhook_deliveries (
    event_id        TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    webhook_id      TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    org_id          TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    PRIMARY KEY (event_id, webhook_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE state = 'pending';
-- Each webhook's queue, in event order.
CREATE INDEX webhook_deliveries_queue ON webhook_deliveries(webhook_id, event_id) WHERE state = 'pending';

-- Every attempt, for GET /webhooks/{id}/deliveries. Ids are time-ordered, so pruning goes by id.
CREATE TABLE webhook_attempts (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    webhook_id      TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_id        TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    attempt         INTEGER NOT NULL,
    response_status INTEGER,
    duration_ms     INTEGER NOT NULL,
    success         INTEGER NOT NULL,
    error           TEXT,
    created_at      TEXT NOT NULL
) STRICT;
CREATE INDEX webhook_attempts_webhook ON webhook_attempts(org_id, webhook_id, created_at DESC, id DESC);
