//! `returns_portals`: an organization's returns portal settings, as JSON.

use crate::store::sql::{OptionalExtension, params};

use crate::{
    error::{Error, Result},
    model::returns_portal::ReturnsPortal,
    store::{Reader, Tx},
};

/// The stored settings; closed, with no rule and no reasons, when none were saved.
pub fn get(db: &Reader, org_id: &str) -> Result<ReturnsPortal> {
    let body: Option<String> = db
        .conn
        .prepare_cached("SELECT body FROM returns_portals WHERE org_id = ?1")?
        .query_row([org_id], |r| r.get(0))
        .optional()?;
    match body {
        None => Ok(ReturnsPortal::default()),
        Some(body) => serde_json::from_str(&body)
            .map_err(|e| Error::Internal(format!("stored returns portal: {e}"))),
    }
}

pub fn save(tx: &Tx, org_id: &str, settings: &ReturnsPortal, now: &str) -> Result<()> {
    let body = serde_json::to_string(settings)
        .map_err(|e| Error::Internal(format!("returns portal: {e}")))?;
    tx.conn
        .prepare_cached(
            "INSERT INTO returns_portals (org_id, body, updated_at) VALUES (?1, ?2, ?3)
             ON CONFLICT(org_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
        )?
        .execute(params![org_id, body, now])?;
    Ok(())
}
