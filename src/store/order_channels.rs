//! `order_channels` and the Shopify delivery log.

use crate::store::sql::{OptionalExtension, Row, params};

use crate::{
    error::Result,
    model::order_channel::OrderChannelRecord,
    store::{PageQuery, Paged, Reader, Tx, one_row},
};

/// `webhook_secret_sealed` holds the sealed secret; `webhook_secret`, the clear text of older
/// versions, is emptied by `seal_plain` when the server starts.
const COLUMNS: &str =
    "id, org_id, name, type, shop_domain, webhook_secret_sealed, created_at, updated_at";

fn from_row(row: &Row) -> crate::store::sql::Result<OrderChannelRecord> {
    Ok(OrderChannelRecord {
        id: row.get(0)?,
        org_id: row.get(1)?,
        name: row.get(2)?,
        kind: row.get(3)?,
        shop_domain: row.get(4)?,
        webhook_secret: row.get(5)?,
        created_at: row.get(6)?,
        updated_at: row.get(7)?,
    })
}

pub fn insert(tx: &Tx, c: &OrderChannelRecord) -> Result<()> {
    tx.conn
        .prepare_cached(&format!(
            "INSERT INTO order_channels ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
        ))?
        .execute(params![
            c.id,
            c.org_id,
            c.name,
            c.kind,
            c.shop_domain,
            c.webhook_secret,
            c.created_at,
            c.updated_at
        ])?;
    Ok(())
}

pub fn get(db: &Reader, org_id: &str, id: &str) -> Result<Option<OrderChannelRecord>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM order_channels WHERE org_id = ?1 AND id = ?2"
        ))?
        .query_row([org_id, id], from_row)
        .optional()?)
}

/// A channel found by id alone: only for the Shopify receiver, which has no organization in its
/// path and is authenticated by the channel's own secret.
pub fn by_id_for_webhook(db: &Reader, id: &str) -> Result<Option<OrderChannelRecord>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM order_channels WHERE id = ?1"
        ))?
        .query_row([id], from_row)
        .optional()?)
}

pub fn list(db: &Reader, org_id: &str, page: PageQuery) -> Result<Paged<OrderChannelRecord>> {
    crate::store::org_page(
        db,
        org_id,
        page,
        "order_channels",
        &format!(
            "SELECT {COLUMNS} FROM order_channels WHERE org_id = ?1 ORDER BY created_at DESC, id DESC"
        ),
        from_row,
    )
}

pub fn has_orders(db: &Reader, org_id: &str, id: &str) -> Result<bool> {
    Ok(db
        .conn
        .prepare_cached("SELECT 1 FROM orders WHERE org_id = ?1 AND order_channel_id = ?2")?
        .exists([org_id, id])?)
}

pub fn delete(tx: &Tx, org_id: &str, id: &str) -> Result<()> {
    let n = tx
        .conn
        .prepare_cached("DELETE FROM order_channels WHERE org_id = ?1 AND id = ?2")?
        .execute([org_id, id])?;
    one_row(n, "order_channels")
}

/// Seals every secret still stored in clear with `seal`, overwriting the clear text (SQLite's
/// `secure_delete` for this job); how many there were.
pub fn seal_plain(tx: &Tx, seal: impl Fn(&str) -> Result<String>) -> Result<usize> {
    let plain: Vec<(String, String)> = tx
        .conn
        .prepare_cached(
            "SELECT id, webhook_secret FROM order_channels WHERE webhook_secret IS NOT NULL",
        )?
        .query_map((), |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<crate::store::sql::Result<_>>()?;
    if plain.is_empty() {
        return Ok(0);
    }
    let lite = matches!(tx.conn, crate::store::sql::Conn::Lite(_));
    if lite {
        tx.conn.execute_batch("PRAGMA secure_delete = ON")?;
    }
    for (id, secret) in &plain {
        tx.conn
            .prepare_cached(
                "UPDATE order_channels SET webhook_secret_sealed = ?2, webhook_secret = NULL
                 WHERE id = ?1",
            )?
            .execute(params![id, seal(secret)?])?;
    }
    if lite {
        tx.conn.execute_batch("PRAGMA secure_delete = OFF")?;
    }
    Ok(plain.len())
}

/// Records a Shopify delivery id; false when it was seen before.
pub fn record_delivery(tx: &Tx, channel_id: &str, webhook_id: &str, now: &str) -> Result<bool> {
    let n = tx.conn
        .prepare_cached(
            "INSERT INTO shopify_deliveries (channel_id, webhook_id, received_at) VALUES (?1, ?2, ?3)
             ON CONFLICT DO NOTHING",
        )?
        .execute([channel_id, webhook_id, now])?;
    Ok(n == 1)
}
