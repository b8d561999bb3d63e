//! `shipments`: scalar columns for filtering, the nested parts as JSON.

use std::borrow::Cow;

use crate::store::sql::{OptionalExtension, Param, Row, params};

use crate::{
    error::Result,
    model::{sender_address::SenderAddress, shipment::ShipmentRecord, status::ShipmentStatus},
    store::{
        PageQuery, Paged, Reader, Tx, json_column, one_row, sender_addresses, shipment_terms,
        to_json,
    },
};

pub(crate) const COLUMNS: &str = "s.id, s.org_id, s.reference, s.sender_address_id, s.type, s.status, s.term_of_trade, \
    s.order_id, s.shipping_rule_id, s.return_of, s.body, s.created_at, s.updated_at, s.split_from, s.splits_made";

pub(crate) fn from_row(row: &Row) -> crate::store::sql::Result<ShipmentRecord> {
    Ok(ShipmentRecord {
        id: row.get(0)?,
        org_id: row.get(1)?,
        reference: row.get(2)?,
        sender_address_id: row.get(3)?,
        kind: row.get(4)?,
        status: row.get(5)?,
        term_of_trade: row.get(6)?,
        order_id: row.get(7)?,
        shipping_rule_id: row.get(8)?,
        return_of: row.get(9)?,
        body: json_column(row, 10)?,
        created_at: row.get(11)?,
        updated_at: row.get(12)?,
        split_from: row.get(13)?,
        splits_made: row.get(14)?,
    })
}

pub fn get(db: &Reader, org_id: &str, id: &str) -> Result<Option<ShipmentRecord>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM shipments s WHERE s.org_id = ?1 AND s.id = ?2"
        ))?
        .query_row([org_id, id], from_row)
        .optional()?)
}

/// The shipping rule of a pending shipment (none for other statuses and for none), read without
/// the body: what booking asks first on every booking.
pub fn pending_rule(db: &Reader, org_id: &str, id: &str) -> Result<Option<String>> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT shipping_rule_id FROM shipments WHERE org_id = ?1 AND id = ?2 AND status = 'pending'",
        )?
        .query_row([org_id, id], |r| r.get::<_, Option<String>>(0))
        .optional()?
        .flatten())
}

/// The shipments linked to an order, oldest first.
pub fn of_order(db: &Reader, org_id: &str, order_id: &str) -> Result<Vec<ShipmentRecord>> {
    Ok(db.conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM shipments s WHERE s.org_id = ?1 AND s.order_id = ?2 ORDER BY s.created_at, s.id"
        ))?
        .query_map([org_id, order_id], from_row)?
        .collect::<crate::store::sql::Result<Vec<_>>>()?)
}

/// Filters of the shipment list (DESIGN §6); timestamps in the stored form.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub status: Option<ShipmentStatus>,
    pub reference: Option<String>,
    pub order_id: Option<String>,
    pub created_from: Option<String>,
    pub created_to: Option<String>,
    /// A search: a shipment matches when its reference is the whole search, or each of its
    /// words (`search::words`) begins one of the shipment's terms.
    pub search: Option<String>,
    pub carrier_id: Option<String>,
}

impl Filter {
    /// Whether the total is one of the kept counts: no filter but the status.
    fn counted(&self) -> bool {
        self.reference.is_none()
            && self.order_id.is_none()
            && self.created_from.is_none()
            && self.created_to.is_none()
            && self.search.is_none()
            && self.carrier_id.is_none()
    }
}

pub fn list(
    db: &Reader,
    org_id: &str,
    filter: &Filter,
    page: PageQuery,
) -> Result<Paged<(ShipmentRecord, SenderAddress)>> {
    let search = filter.search.as_deref().unwrap_or_default();
    let words = crate::model::shipment::search::words(search);
    let searched = if words.is_empty() {
        None
    } else {
        Some(
            match shipment_terms::searched(db, org_id, search, &words)? {
                Some(ids) => shipment_terms::SearchArgs::Ids(
                    serde_json::to_string(&ids)
                        .map_err(|e| crate::error::Error::Internal(e.to_string()))?,
                ),
                None => shipment_terms::SearchArgs::Words(
                    words
                        .iter()
                        .map(|w| shipment_terms::prefix_range(w))
                        .collect(),
                    search.to_string(),
                ),
            },
        )
    };
    // A search that names few shipments reads them by id (SQLite would rather walk the
    // organization's index in order, unless the organization's column is kept from it).
    let by_id = matches!(searched, Some(shipment_terms::SearchArgs::Ids(_)));
    let org_clause = if by_id {
        db.conn.pick("+s.org_id = ?", "s.org_id = ?")
    } else {
        "s.org_id = ?"
    };
    let mut clauses: Vec<Cow<'static, str>> = vec![org_clause.into()];
    let mut args: Vec<&dyn Param> = vec![&org_id];
    match &searched {
        Some(shipment_terms::SearchArgs::Ids(ids)) => {
            clauses.push(
                db.conn
                    .pick(
                        "s.id IN (SELECT value FROM json_each(?))",
                        "s.id IN (SELECT json_array_elements_text(?::json))",
                    )
                    .into(),
            );
            args.push(ids);
        }
        Some(shipment_terms::SearchArgs::Words(ranges, whole)) => {
            let mut any = String::from("(s.reference = ?");
            args.push(whole);
            for (i, (from, to)) in ranges.iter().enumerate() {
                any.push_str(if i == 0 { " OR (" } else { " AND " });
                any.push_str(
                    "s.id IN (SELECT t.shipment_id FROM shipment_terms t WHERE t.org_id = ? AND t.term >= ? AND t.term < ?)",
                );
                args.push(&org_id);
                args.push(from);
                args.push(to);
            }
            any.push_str("))");
            clauses.push(any.into());
        }
        None => {}
    }
    if let Some(carrier_id) = &filter.carrier_id {
        clauses.push("s.carrier_id = ?".into());
        args.push(carrier_id);
    }
    let conditions: [(Option<&dyn Param>, &str); 5] = [
        (
            filter.status.as_ref().map(|v| v as &dyn Param),
            "s.status = ?",
        ),
        (
            filter.reference.as_ref().map(|v| v as &dyn Param),
            "s.reference = ?",
        ),
        (
            filter.order_id.as_ref().map(|v| v as &dyn Param),
            "s.order_id = ?",
        ),
        (
            filter.created_from.as_ref().map(|v| v as &dyn Param),
            "s.created_at >= ?",
        ),
        (
            filter.created_to.as_ref().map(|v| v as &dyn Param),
            "s.created_at <= ?",
        ),
    ];
    for (value, clause) in conditions {
        if let Some(v) = value {
            clauses.push(clause.into());
            args.push(v);
        }
    }
    let filter_sql = clauses.join(" AND ");
    let only_searched = Filter {
        search: None,
        ..filter.clone()
    }
    .counted()
        && filter.status.is_none();
    let total: i64 = if let (Some(shipment_terms::SearchArgs::Words(ranges, whole)), true) =
        (&searched, only_searched && words.len() == 1)
    {
        // One broad word and nothing else: counted from the terms' index alone.
        shipment_terms::broad_total(db, org_id, whole, &ranges[0])?
    } else if filter.counted() {
        // The organization (and status) alone: the counts the triggers keep (V9).
        db.conn
            .prepare_cached(
                "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM shipment_counts
                 WHERE org_id = ?1 AND (CAST(?2 AS TEXT) IS NULL OR status = ?2)",
            )?
            .query_row(params![org_id, filter.status], |r| r.get(0))?
    } else {
        db.conn
            .prepare_cached(&format!(
                "SELECT COUNT(*) FROM shipments s WHERE {filter_sql}"
            ))?
            .query_row(args.as_slice(), |r| r.get(0))?
    };
    let (limit, offset) = (page.limit, page.offset());
    args.push(&limit);
    args.push(&offset);
    let items = db.conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS}, {} FROM shipments s JOIN sender_addresses a ON a.id = s.sender_address_id
             WHERE {filter_sql} ORDER BY s.created_at DESC, s.id DESC LIMIT ? OFFSET ?",
            sender_addresses::columns("a")
        ))?
        .query_map(args.as_slice(), |r| Ok((from_row(r)?, sender_addresses::from_row_at(r, 15)?)))?
        .collect::<crate::store::sql::Result<Vec<_>>>()?;
    Ok(Paged {
        items,
        total: u64::try_from(total).unwrap_or(0),
        query: page,
    })
}

pub fn insert(tx: &Tx, s: &ShipmentRecord) -> Result<()> {
    tx.conn.prepare_cached(
        "INSERT INTO shipments (id, org_id, reference, sender_address_id, type, status, term_of_trade, order_id,
                                shipping_rule_id, return_of, body, created_at, updated_at, split_from, splits_made, searchable,
                                carrier_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, 1, ?16)",
    )?
    .execute(params![
        s.id,
        s.org_id,
        s.reference,
        s.sender_address_id,
        s.kind,
        s.status,
        s.term_of_trade,
        s.order_id,
        s.shipping_rule_id,
        s.return_of,
        to_json(&s.body)?,
        s.created_at,
        s.updated_at,
        s.split_from,
        s.splits_made,
        s.body.carrier_settings.carrier_id
    ])?;
    shipment_terms::index(tx, s)
}

/// Writes back every mutable column of a stored shipment.
pub fn update(tx: &Tx, s: &ShipmentRecord) -> Result<()> {
    let n = tx.conn
        .prepare_cached(
            "UPDATE shipments SET reference = ?3, status = ?4, term_of_trade = ?5, order_id = ?6, shipping_rule_id = ?7,
                body = ?8, updated_at = ?9, splits_made = ?10
             WHERE org_id = ?1 AND id = ?2",
        )?
        .execute(params![
            s.org_id,
            s.id,
            s.reference,
            s.status,
            s.term_of_trade,
            s.order_id,
            s.shipping_rule_id,
            to_json(&s.body)?,
            s.updated_at,
            s.splits_made
        ])?;
    one_row(n, "shipments")?;
    // Written only when they change: SQLite rewrites the index entries of every column an
    // UPDATE sets, changed or not (`carrier_id` has an index, `searchable` a partial one).
    tx.conn
        .prepare_cached(tx.conn.pick(
            "UPDATE shipments SET searchable = 1, carrier_id = ?2
             WHERE id = ?1 AND (searchable = 0 OR carrier_id IS NOT ?2)",
            "UPDATE shipments SET searchable = 1, carrier_id = ?2
             WHERE id = ?1 AND (searchable = 0 OR carrier_id IS DISTINCT FROM ?2)",
        ))?
        .execute(params![s.id, s.body.carrier_settings.carrier_id])?;
    shipment_terms::index(tx, s)
}

/// Up to `limit` shipments stored before they had search terms (V20), for housekeeping to
/// index; it then marks them searchable.
pub fn unsearchable(db: &Reader, limit: u32) -> Result<Vec<ShipmentRecord>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {} FROM shipments s WHERE s.searchable = 0 ORDER BY s.id LIMIT ?1",
            COLUMNS
        ))?
        .query_map([limit], from_row)?
        .collect::<crate::store::sql::Result<Vec<_>>>()?)
}

pub fn delete(tx: &Tx, org_id: &str, id: &str) -> Result<()> {
    let n = tx
        .conn
        .prepare_cached("DELETE FROM shipments WHERE org_id = ?1 AND id = ?2")?
        .execute([org_id, id])?;
    one_row(n, "shipments")
}

/// A shipment on its way with a carrier of one of `slugs`: `(org_id, shipment_id, carrier_id,
/// tracking number)`, the least recently changed first.
pub type InTransit = (String, String, String, String);

/// Up to `limit` shipments that are booked and not yet delivered or returned, with carriers of
/// the types in `slugs` (across organizations: the tracking refresh serves them all).
pub fn in_transit(db: &Reader, slugs: &[&str], limit: u32) -> Result<Vec<InTransit>> {
    if slugs.is_empty() {
        return Ok(Vec::new());
    }
    let types =
        serde_json::to_string(slugs).map_err(|e| crate::error::Error::Internal(e.to_string()))?;
    Ok(db
        .conn
        .prepare_cached(db.conn.pick(
            "SELECT s.org_id, s.id, c.id, json_extract(s.body, '$.tracking.number')
             FROM shipments s
             JOIN carriers c ON c.org_id = s.org_id AND c.id = json_extract(s.body, '$.carrierSettings.carrierId')
             WHERE s.status IN ('processing', 'partly_dispatched', 'dispatched')
               AND json_extract(s.body, '$.tracking.number') IS NOT NULL
               AND coalesce(json_extract(s.body, '$.tracking.status'), '') NOT IN ('delivered', 'returned')
               AND c.carrier_slug IN (SELECT value FROM json_each(?1))
             ORDER BY s.updated_at LIMIT ?2",
            "SELECT s.org_id, s.id, c.id, s.body::json #>> '{tracking,number}'
             FROM shipments s
             JOIN carriers c ON c.org_id = s.org_id AND c.id = s.body::json #>> '{carrierSettings,carrierId}'
             WHERE s.status IN ('processing', 'partly_dispatched', 'dispatched')
               AND s.body::json #>> '{tracking,number}' IS NOT NULL
               AND coalesce(s.body::json #>> '{tracking,status}', '') NOT IN ('delivered', 'returned')
               AND c.carrier_slug IN (SELECT json_array_elements_text(?1::json))
             ORDER BY s.updated_at LIMIT ?2",
        ))?
        .query_map(params![types, limit], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<crate::store::sql::Result<Vec<_>>>()?)
}
