-- Which e-mails an organization's receivers get and in which words (DESIGN §21): one row per
-- organization once it changes any, the settings as JSON (`NotificationSettings`); none means
-- every e-mail off with the built-in words.
CREATE TABLE notification_settings (
    org_id     TEXT PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
    body       TEXT NOT NULL,
    updated_at TEXT NOT NULL
) STRICT;
