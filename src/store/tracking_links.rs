//! `tracking_links`: the token of each booked shipment's public tracking page.

use crate::store::sql::{OptionalExtension, params};

use crate::{
    error::Result,
    store::{Reader, Tx},
};

/// Records `token` as the tracking page of the shipment.
pub fn insert(tx: &Tx, token: &str, org_id: &str, shipment_id: &str, now: &str) -> Result<()> {
    tx.conn
        .prepare_cached(
            "INSERT INTO tracking_links (token, org_id, shipment_id, created_at) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![token, org_id, shipment_id, now])?;
    Ok(())
}

/// The organization and shipment whose page `token` is.
pub fn find(db: &Reader, token: &str) -> Result<Option<(String, String)>> {
    Ok(db
        .conn
        .prepare_cached("SELECT org_id, shipment_id FROM tracking_links WHERE token = ?1")?
        .query_row([token], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}
