//! `notification_settings`: an organization's e-mail settings, as JSON.

use crate::store::sql::{OptionalExtension, params};

use crate::{
    error::{Error, Result},
    model::notification::NotificationSettings,
    store::{Reader, Tx},
};

/// The stored settings; the defaults (all off, built-in words) when none were saved.
pub fn get(db: &Reader, org_id: &str) -> Result<NotificationSettings> {
    let body: Option<String> = db
        .conn
        .prepare_cached("SELECT body FROM notification_settings WHERE org_id = ?1")?
        .query_row([org_id], |r| r.get(0))
        .optional()?;
    match body {
        None => Ok(NotificationSettings::default()),
        Some(body) => serde_json::from_str(&body)
            .map_err(|e| Error::Internal(format!("stored notification settings: {e}"))),
    }
}

pub fn save(tx: &Tx, org_id: &str, settings: &NotificationSettings, now: &str) -> Result<()> {
    let body = serde_json::to_string(settings)
        .map_err(|e| Error::Internal(format!("notification settings: {e}")))?;
    tx.conn
        .prepare_cached(
            "INSERT INTO notification_settings (org_id, body, updated_at) VALUES (?1, ?2, ?3)
             ON CONFLICT(org_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
        )?
        .execute(params![org_id, body, now])?;
    Ok(())
}
