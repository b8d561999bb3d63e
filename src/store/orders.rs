//! `orders`, and the tally of an order's shipments.

use crate::store::sql::{OptionalExtension, Param, Row, params};

use crate::{
    error::Result,
    model::{
        order::{OrderRecord, ShipmentTally},
        order_channel::OrderChannelRecord,
        shipment::ShipmentRecord,
        status::{OrderStatus, ShipmentStatus},
    },
    store::{PageQuery, Paged, Reader, Tx, json_column, one_row, to_json},
};

const COLUMNS: &str = "o.id, o.org_id, o.order_channel_id, o.order_number, o.external_id, o.status, o.shipping_rule_id, \
    o.body, o.created_at, o.updated_at";

fn from_row(row: &Row) -> crate::store::sql::Result<OrderRecord> {
    Ok(OrderRecord {
        id: row.get(0)?,
        org_id: row.get(1)?,
        order_channel_id: row.get(2)?,
        order_number: row.get(3)?,
        external_id: row.get(4)?,
        status: row.get(5)?,
        shipping_rule_id: row.get(6)?,
        body: json_column(row, 7)?,
        created_at: row.get(8)?,
        updated_at: row.get(9)?,
    })
}

pub fn get(db: &Reader, org_id: &str, id: &str) -> Result<Option<OrderRecord>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM orders o WHERE o.org_id = ?1 AND o.id = ?2"
        ))?
        .query_row([org_id, id], from_row)
        .optional()?)
}

pub fn by_external_id(
    db: &Reader,
    org_id: &str,
    channel_id: &str,
    external_id: &str,
) -> Result<Option<OrderRecord>> {
    Ok(db.conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM orders o WHERE o.org_id = ?1 AND o.order_channel_id = ?2 AND o.external_id = ?3"
        ))?
        .query_row([org_id, channel_id, external_id], from_row)
        .optional()?)
}

/// The organization's orders with this number (one per channel at most), newest first.
pub fn by_number(db: &Reader, org_id: &str, number: &str) -> Result<Vec<OrderRecord>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM orders o WHERE o.org_id = ?1 AND o.order_number = ?2
             ORDER BY o.created_at DESC, o.id DESC LIMIT 10"
        ))?
        .query_map([org_id, number], from_row)?
        .collect::<crate::store::sql::Result<Vec<_>>>()?)
}

pub fn number_taken(db: &Reader, org_id: &str, channel_id: &str, number: &str) -> Result<bool> {
    Ok(db.conn
        .prepare_cached("SELECT 1 FROM orders WHERE org_id = ?1 AND order_channel_id = ?2 AND order_number = ?3")?
        .exists([org_id, channel_id, number])?)
}

/// Filters of the order list.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub status: Option<OrderStatus>,
    pub channel_id: Option<String>,
    pub order_number: Option<String>,
}

pub fn list(
    db: &Reader,
    org_id: &str,
    filter: &Filter,
    page: PageQuery,
) -> Result<Paged<(OrderRecord, OrderChannelRecord)>> {
    let mut clauses = vec!["o.org_id = ?"];
    let mut args: Vec<&dyn Param> = vec![&org_id];
    let conditions: [(Option<&dyn Param>, &str); 3] = [
        (
            filter.status.as_ref().map(|v| v as &dyn Param),
            "o.status = ?",
        ),
        (
            filter.channel_id.as_ref().map(|v| v as &dyn Param),
            "o.order_channel_id = ?",
        ),
        (
            filter.order_number.as_ref().map(|v| v as &dyn Param),
            "o.order_number = ?",
        ),
    ];
    for (value, clause) in conditions {
        if let Some(v) = value {
            clauses.push(clause);
            args.push(v);
        }
    }
    let filter_sql = clauses.join(" AND ");
    let total: i64 = db
        .conn
        .prepare_cached(&format!("SELECT COUNT(*) FROM orders o WHERE {filter_sql}"))?
        .query_row(args.as_slice(), |r| r.get(0))?;
    let (limit, offset) = (page.limit, page.offset());
    args.push(&limit);
    args.push(&offset);
    let items = db.conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS}, c.id, c.org_id, c.name, c.type, c.shop_domain, c.webhook_secret, c.created_at, c.updated_at
             FROM orders o JOIN order_channels c ON c.id = o.order_channel_id
             WHERE {filter_sql} ORDER BY o.created_at DESC, o.id DESC LIMIT ? OFFSET ?"
        ))?
        .query_map(args.as_slice(), |r| {
            let channel = OrderChannelRecord {
                id: r.get(10)?,
                org_id: r.get(11)?,
                name: r.get(12)?,
                kind: r.get(13)?,
                shop_domain: r.get(14)?,
                webhook_secret: r.get(15)?,
                created_at: r.get(16)?,
                updated_at: r.get(17)?,
            };
            Ok((from_row(r)?, channel))
        })?
        .collect::<crate::store::sql::Result<Vec<_>>>()?;
    Ok(Paged {
        items,
        total: u64::try_from(total).unwrap_or(0),
        query: page,
    })
}

/// Inserts or replaces (same id and org).
pub fn save(tx: &Tx, o: &OrderRecord) -> Result<()> {
    tx.conn.prepare_cached(
        "INSERT INTO orders (id, org_id, order_channel_id, order_number, external_id, status, shipping_rule_id, body,
                             created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
         ON CONFLICT(id) DO UPDATE SET order_number = excluded.order_number, external_id = excluded.external_id,
           status = excluded.status, shipping_rule_id = excluded.shipping_rule_id, body = excluded.body,
           updated_at = excluded.updated_at
         WHERE orders.org_id = excluded.org_id",
    )?
    .execute(params![
        o.id,
        o.org_id,
        o.order_channel_id,
        o.order_number,
        o.external_id,
        o.status,
        o.shipping_rule_id,
        to_json(&o.body)?,
        o.created_at,
        o.updated_at
    ])?;
    Ok(())
}

pub fn delete(tx: &Tx, org_id: &str, id: &str) -> Result<()> {
    let n = tx
        .conn
        .prepare_cached("DELETE FROM orders WHERE org_id = ?1 AND id = ?2")?
        .execute([org_id, id])?;
    one_row(n, "orders")
}

/// The shipments linked to an order, oldest first.
pub fn shipments(db: &Reader, org_id: &str, order_id: &str) -> Result<Vec<ShipmentRecord>> {
    crate::store::shipments::of_order(db, org_id, order_id)
}

pub fn has_shipments(db: &Reader, org_id: &str, order_id: &str) -> Result<bool> {
    Ok(db
        .conn
        .prepare_cached("SELECT 1 FROM shipments WHERE org_id = ?1 AND order_id = ?2")?
        .exists([org_id, order_id])?)
}

/// Counts the order's outbound, not cancelled shipments by status.
pub fn tally(db: &Reader, org_id: &str, order_id: &str) -> Result<ShipmentTally> {
    let mut tally = ShipmentTally::default();
    let mut stmt = db.conn.prepare_cached(
        "SELECT status, COUNT(*) FROM shipments
         WHERE org_id = ?1 AND order_id = ?2 AND type = 'outbound' AND status <> 'cancelled' GROUP BY status",
    )?;
    let rows = stmt.query_map([org_id, order_id], |r| {
        Ok((r.get::<_, ShipmentStatus>(0)?, r.get::<_, i64>(1)?))
    })?;
    for row in rows {
        let (status, n) = row?;
        let n = usize::try_from(n).unwrap_or(0);
        tally.active += n;
        match status {
            ShipmentStatus::Dispatched => tally.dispatched += n,
            ShipmentStatus::PartlyDispatched => tally.partly_dispatched += n,
            ShipmentStatus::Error => tally.error += n,
            _ => {}
        }
    }
    Ok(tally)
}
