-- Idempotency keys (DESIGN §15): the first answer to a key, per credential, for 24 hours. The
-- answer is written in the same transaction as the change it reports; `body` is sealed.
CREATE TABLE idempotency_keys (
    credential   BLOB NOT NULL,
    key          TEXT NOT NULL,
    fingerprint  BLOB NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('running', 'done')),
    status       INTEGER,
    content_type TEXT,
    body         TEXT,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (credential, key)
) STRICT, WITHOUT ROWID;
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
