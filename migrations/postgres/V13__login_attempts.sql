-- The sign-in throttle counts attempts per key in one-minute windows (DESIGN §19): a slot is
-- taken before the password is checked and given back when it is right.
DROP TABLE login_failures;

CREATE TABLE login_attempts (
    key          TEXT PRIMARY KEY, -- "account:<e-mail>", "spare:<e-mail>" or "address:<ip>"
    count        BIGINT NOT NULL,
    window_start TEXT NOT NULL
);
CREATE INDEX login_attempts_window ON login_attempts(window_start);
