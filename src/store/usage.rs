//! `usage_counters`: plan counters per organization, counter and period.

use rusqlite::{OptionalExtension, params};

use crate::{
    error::Result,
    model::usage::Counter,
    store::{Reader, Tx},
};

/// Adds `delta` to a counter (creating it at 0).
pub fn add(tx: &Tx, org_id: &str, counter: Counter, period: &str, delta: i64) -> Result<()> {
    tx.conn
        .prepare_cached(
            "INSERT INTO usage_counters (org_id, counter, period, value) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (org_id, counter, period) DO UPDATE SET value = value + excluded.value",
        )?
        .execute(params![org_id, counter.as_str(), period, delta])?;
    Ok(())
}

/// The value of a counter (0 when it was never counted).
pub fn get(db: &Reader, org_id: &str, counter: Counter, period: &str) -> Result<i64> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT value FROM usage_counters WHERE org_id = ?1 AND counter = ?2 AND period = ?3",
        )?
        .query_row(params![org_id, counter.as_str(), period], |r| r.get(0))
        .optional()?
        .unwrap_or(0))
}
