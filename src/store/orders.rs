//! `orders`, and the tally of an order's shipments. Every write stores the order's public
//! representation (`repr`, `order::wire`) and the model reads its JSON parts from it; a row
//! stored before V29 has its parts in `body` until housekeeping gives it `repr`.

use crate::store::sql::{OptionalExtension, Param, Row, params};

use crate::{
    error::Result,
    model::{
        order::{OrderRecord, ShipmentTally, wire},
        order_channel::{OrderChannelRecord, OrderChannelRef},
        shipment::ShipmentRecord,
        status::{OrderStatus, ShipmentStatus},
    },
    store::{PageQuery, Paged, Reader, Tx, json_column, one_row},
};

const COLUMNS: &str = "o.id, o.org_id, o.order_channel_id, o.order_number, o.external_id, o.status, o.shipping_rule_id, \
    COALESCE(o.repr, o.body), o.created_at, o.updated_at";

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

pub fn exists(db: &Reader, org_id: &str, id: &str) -> Result<bool> {
    Ok(db
        .conn
        .prepare_cached("SELECT 1 FROM orders WHERE org_id = ?1 AND id = ?2")?
        .exists([org_id, id])?)
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

/// A page of the organization's orders, newest first, with their channels.
pub fn list(
    db: &Reader,
    org_id: &str,
    filter: &Filter,
    page: PageQuery,
) -> Result<Paged<(OrderRecord, OrderChannelRecord)>> {
    select(
        db,
        org_id,
        filter,
        page,
        &format!(
            "{COLUMNS}, c.id, c.org_id, c.name, c.type, c.shop_domain, c.webhook_secret, c.created_at, c.updated_at"
        ),
        |r| {
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
        },
    )
}

/// An order's stored representation, the rule id of its row and its channel.
pub struct Stored {
    pub id: String,
    pub repr: String,
    pub shipping_rule_id: Option<String>,
    pub channel: OrderChannelRef,
}

/// What `Stored` is read from (of `o`, the order, and `c`, its channel).
const STORED: &str = "o.repr, o.id, o.shipping_rule_id, c.id, c.name, c.type";

type StoredRow = (Option<String>, Stored);

fn stored_row(r: &Row) -> crate::store::sql::Result<StoredRow> {
    Ok((
        r.get(0)?,
        Stored {
            id: r.get(1)?,
            repr: String::new(),
            shipping_rule_id: r.get(2)?,
            channel: OrderChannelRef {
                id: r.get(3)?,
                name: r.get(4)?,
                kind: r.get(5)?,
            },
        },
    ))
}

/// `Stored` of a row, its representation made from the row when it has none yet (stored before
/// V29 and not yet given one by housekeeping).
fn with_repr(db: &Reader, org_id: &str, (repr, stored): StoredRow) -> Result<Stored> {
    let repr = match repr {
        Some(repr) => repr,
        None => get(db, org_id, &stored.id)?
            .map(|o| wire::repr(&o))
            .ok_or(crate::error::Error::NotFound)?,
    };
    Ok(Stored { repr, ..stored })
}

/// The representation of an order and what its answer adds from other rows.
pub fn stored(db: &Reader, org_id: &str, id: &str) -> Result<Option<Stored>> {
    let row = db
        .conn
        .prepare_cached(&format!(
            "SELECT {STORED} FROM orders o JOIN order_channels c ON c.id = o.order_channel_id
             WHERE o.org_id = ?1 AND o.id = ?2"
        ))?
        .query_row([org_id, id], stored_row)
        .optional()?;
    row.map(|row| with_repr(db, org_id, row)).transpose()
}

/// The same page as `list`, as `stored` reads each order.
pub fn list_stored(
    db: &Reader,
    org_id: &str,
    filter: &Filter,
    page: PageQuery,
) -> Result<Paged<Stored>> {
    select(db, org_id, filter, page, STORED, stored_row)?.try_map(|row| with_repr(db, org_id, row))
}

/// The page of `filter` and its total; each row as `map` reads `columns` (of `o`, the order,
/// and `c`, its channel).
fn select<T>(
    db: &Reader,
    org_id: &str,
    filter: &Filter,
    page: PageQuery,
    columns: &str,
    map: fn(&Row) -> crate::store::sql::Result<T>,
) -> Result<Paged<T>> {
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
    let items = db
        .conn
        .prepare_cached(&format!(
            "SELECT {columns} FROM orders o JOIN order_channels c ON c.id = o.order_channel_id
             WHERE {filter_sql} ORDER BY o.created_at DESC, o.id DESC LIMIT ? OFFSET ?"
        ))?
        .query_map(args.as_slice(), map)?
        .collect::<crate::store::sql::Result<Vec<_>>>()?;
    Ok(Paged {
        items,
        total: u64::try_from(total).unwrap_or(0),
        query: page,
    })
}

/// Inserts or replaces (same id and org), with the order's representation (`body` is left
/// empty: the model reads its parts from `repr`).
pub fn save(tx: &Tx, o: &OrderRecord) -> Result<()> {
    tx.conn.prepare_cached(
        "INSERT INTO orders (id, org_id, order_channel_id, order_number, external_id, status, shipping_rule_id, body,
                             repr, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, '', ?8, ?9, ?10)
         ON CONFLICT(id) DO UPDATE SET order_number = excluded.order_number, external_id = excluded.external_id,
           status = excluded.status, shipping_rule_id = excluded.shipping_rule_id, body = '', repr = excluded.repr,
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
        wire::repr(o),
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

/// Up to `limit` orders stored before V29 (no representation yet), for housekeeping.
pub fn unrendered(db: &Reader, limit: u32) -> Result<Vec<OrderRecord>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM orders o WHERE o.repr IS NULL ORDER BY o.id LIMIT ?1"
        ))?
        .query_map([limit], from_row)?
        .collect::<crate::store::sql::Result<Vec<_>>>()?)
}

/// Gives orders `unrendered` found their representation, those still without one (a write
/// since gave it one).
pub fn render(tx: &Tx, orders: &[OrderRecord]) -> Result<()> {
    for o in orders {
        tx.conn
            .prepare_cached(
                "UPDATE orders SET repr = ?2, body = '' WHERE id = ?1 AND repr IS NULL",
            )?
            .execute(params![o.id, wire::repr(o)])?;
    }
    Ok(())
}
