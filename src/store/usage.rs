//! `usage_counters`: plan counters per organization, counter and period.

use crate::store::sql::{OptionalExtension, params};

use crate::{
    error::Result,
    model::usage::{Counter, Limit},
    store::{Reader, Tx, count},
};

/// Adds `delta` to a counter (creating it at 0).
pub fn add(tx: &Tx, org_id: &str, counter: Counter, period: &str, delta: i64) -> Result<()> {
    tx.conn
        .prepare_cached(
            "INSERT INTO usage_counters (org_id, counter, period, value) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (org_id, counter, period) DO UPDATE SET value = usage_counters.value + excluded.value",
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

/// The live rows a resource limit counts (team members are memberships).
pub fn live(db: &Reader, org_id: &str, limit: Limit) -> Result<u64> {
    let sql = match limit {
        Limit::TeamMembers => "SELECT COUNT(*) FROM memberships WHERE org_id = ?1",
        Limit::Carriers => "SELECT COUNT(*) FROM carriers WHERE org_id = ?1",
        Limit::OrderChannels => "SELECT COUNT(*) FROM order_channels WHERE org_id = ?1",
        Limit::ShippingRules => "SELECT COUNT(*) FROM shipping_rules WHERE org_id = ?1",
        Limit::SenderAddresses => "SELECT COUNT(*) FROM sender_addresses WHERE org_id = ?1",
        Limit::ApiTokens => "SELECT COUNT(*) FROM api_tokens WHERE org_id = ?1",
        Limit::Shipments => return Ok(0),
    };
    count(db, sql, org_id)
}
