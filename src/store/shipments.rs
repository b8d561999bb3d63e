//! `shipments`: scalar columns for filtering, the shipment as JSON. The JSON is its public
//! representation (`repr`, `shipment::wire`), from which answers are written without the model;
//! the model reads its nested parts from it too. Rows stored before V28 hold `body` (the nested
//! parts alone) until housekeeping gives them `repr`; a row has one or the other.

use std::borrow::Cow;

use crate::store::sql::{OptionalExtension, Param, Row, params};

use crate::{
    error::Result,
    model::{
        sender_address::SenderAddress,
        shipment::{ShipmentLine, ShipmentRecord, wire},
        status::ShipmentStatus,
    },
    store::{PageQuery, Paged, Reader, Tx, json_column, one_row, sender_addresses, shipment_terms},
};

pub(crate) const COLUMNS: &str = "s.id, s.org_id, s.reference, s.sender_address_id, s.type, s.status, s.term_of_trade, \
    s.order_id, s.shipping_rule_id, s.return_of, COALESCE(s.repr, s.body), s.created_at, s.updated_at, s.split_from, s.splits_made";

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

/// A shipment's stored representation, where the members it leaves out go (a row written
/// before V34 has no such offsets), and the rule id of its row.
pub struct Stored {
    pub repr: String,
    pub gaps: Option<wire::Gaps>,
    pub shipping_rule_id: Option<String>,
}

/// The representation of a shipment (made from the row when it has none yet).
pub fn stored(db: &Reader, org_id: &str, id: &str) -> Result<Option<Stored>> {
    let row = db
        .conn
        .prepare_cached(
            "SELECT repr, shipping_rule_id, repr_id_at, repr_status_at FROM shipments
             WHERE org_id = ?1 AND id = ?2",
        )?
        .query_row([org_id, id], |r| {
            Ok((
                r.get::<_, Option<String>>(0)?,
                r.get::<_, Option<String>>(1)?,
                r.get::<_, Option<i64>>(2)?,
                r.get::<_, Option<i64>>(3)?,
            ))
        })
        .optional()?;
    row.map(|(repr, shipping_rule_id, id_at, status_at)| {
        let gaps = match (&repr, id_at, status_at) {
            (Some(_), Some(id_at), Some(status_at)) => wire::Gaps::at(id_at, status_at),
            _ => None,
        };
        Ok(Stored {
            repr: rendered(db, org_id, id, repr)?,
            gaps,
            shipping_rule_id,
        })
    })
    .transpose()
}

/// A row's representation, made from the row when it has none yet (stored before V28 and not
/// yet given one by housekeeping).
fn rendered(db: &Reader, org_id: &str, id: &str, repr: Option<String>) -> Result<String> {
    match repr {
        Some(repr) => Ok(repr),
        None => get(db, org_id, id)?
            .map(|s| wire::repr(&s))
            .ok_or(crate::error::Error::NotFound),
    }
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

/// The representations of the shipments linked to an order, oldest first, with their ids.
pub fn stored_of_order(db: &Reader, org_id: &str, order_id: &str) -> Result<Vec<(String, Stored)>> {
    let rows = db
        .conn
        .prepare_cached(
            "SELECT s.repr, s.id, s.shipping_rule_id FROM shipments s
             WHERE s.org_id = ?1 AND s.order_id = ?2 ORDER BY s.created_at, s.id",
        )?
        .query_map([org_id, order_id], |r| {
            Ok((
                r.get::<_, Option<String>>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
            ))
        })?
        .collect::<crate::store::sql::Result<Vec<_>>>()?;
    rows.into_iter()
        .map(|(repr, id, shipping_rule_id)| {
            let repr = rendered(db, org_id, &id, repr)?;
            Ok((
                id,
                Stored {
                    repr,
                    gaps: None,
                    shipping_rule_id,
                },
            ))
        })
        .collect()
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

/// A page of the organization's shipments, newest first, with their sender addresses.
pub fn list(
    db: &Reader,
    org_id: &str,
    filter: &Filter,
    page: PageQuery,
) -> Result<Paged<(ShipmentRecord, SenderAddress)>> {
    select(
        db,
        org_id,
        filter,
        page,
        &format!("{COLUMNS}, {}", sender_addresses::columns("a")),
        " JOIN sender_addresses a ON a.id = s.sender_address_id",
        |r| Ok((from_row(r)?, sender_addresses::from_row_at(r, 15)?)),
    )
}

/// The same page as `list`: each shipment's representation and its sender address's id.
pub fn list_stored(
    db: &Reader,
    org_id: &str,
    filter: &Filter,
    page: PageQuery,
) -> Result<Paged<(String, String)>> {
    let paged = select(
        db,
        org_id,
        filter,
        page,
        "s.repr, s.id, s.sender_address_id",
        "",
        |r| {
            Ok((
                r.get::<_, Option<String>>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        },
    )?;
    paged.try_map(|(repr, id, address)| Ok((rendered(db, org_id, &id, repr)?, address)))
}

/// The same page as `list`, each shipment as a line of a table: its columns alone, but for a
/// row stored before V31 (no `product_id` yet), whose product is read from its representation.
pub fn lines(
    db: &Reader,
    org_id: &str,
    filter: &Filter,
    page: PageQuery,
) -> Result<Paged<ShipmentLine>> {
    let paged = select(
        db,
        org_id,
        filter,
        page,
        "s.id, s.reference, s.status, s.product_id, s.sender_address_id, s.created_at, \
         CASE WHEN s.product_id IS NULL THEN s.repr END",
        "",
        |r| {
            Ok((
                ShipmentLine {
                    id: r.get(0)?,
                    reference: r.get(1)?,
                    status: r.get(2)?,
                    product_id: String::new(),
                    sender_address_id: r.get(4)?,
                    created_at: r.get(5)?,
                },
                r.get::<_, Option<String>>(3)?,
                r.get::<_, Option<String>>(6)?,
            ))
        },
    )?;
    paged.try_map(|(mut line, product, repr)| {
        line.product_id = match product {
            Some(product) => product,
            None => wire::product_of(&rendered(db, org_id, &line.id, repr)?)
                .map_err(|e| crate::model::wire::broken("shipment", e))?,
        };
        Ok(line)
    })
}

/// The page of `filter` and its total; each row as `map` reads `columns` (of `s`, the shipment,
/// and what `join` adds).
fn select<T>(
    db: &Reader,
    org_id: &str,
    filter: &Filter,
    page: PageQuery,
    columns: &str,
    join: &str,
    map: fn(&Row) -> crate::store::sql::Result<T>,
) -> Result<Paged<T>> {
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
        // The organization (and status) alone: the kept counts (V9; new shipments counted by
        // their insert since V33).
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
    let items = db
        .conn
        .prepare_cached(&format!(
            "SELECT {columns} FROM shipments s{join}
             WHERE {filter_sql} ORDER BY s.created_at DESC, s.id DESC LIMIT ? OFFSET ?"
        ))?
        .query_map(args.as_slice(), map)?
        .collect::<crate::store::sql::Result<Vec<_>>>()?;
    Ok(Paged {
        items,
        total: u64::try_from(total).unwrap_or(0),
        query: page,
    })
}

/// Stores a new shipment with its representation (`shipment::wire::Repr`).
pub fn insert(tx: &Tx, s: &ShipmentRecord, repr: &wire::Repr) -> Result<()> {
    let (id_at, status_at) = repr.gaps.offsets();
    tx.conn.prepare_cached(
        "INSERT INTO shipments (id, org_id, reference, sender_address_id, type, status, term_of_trade, order_id,
                                shipping_rule_id, return_of, body, repr, created_at, updated_at, split_from, splits_made,
                                searchable, carrier_id, product_id, repr_id_at, repr_status_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, '', ?11, ?12, ?13, ?14, ?15, 1, ?16, ?17, ?18, ?19)",
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
        repr.text,
        s.created_at,
        s.updated_at,
        s.split_from,
        s.splits_made,
        s.body.carrier_settings.carrier_id,
        s.body.carrier_settings.product_id,
        id_at,
        status_at
    ])?;
    // Counted here rather than by a trigger (V33): see the migration.
    tx.conn
        .prepare_cached(
            "INSERT INTO shipment_counts (org_id, status, n) VALUES (?1, ?2, 1)
             ON CONFLICT (org_id, status) DO UPDATE SET n = shipment_counts.n + 1",
        )?
        .execute(params![s.org_id, s.status])?;
    shipment_terms::index_new(tx, s)
}

/// Writes back every mutable column of a stored shipment and its representation (a row stored
/// before V28 leaves `body` for it); `before` is the shipment as the unit of work read it.
pub fn update(tx: &Tx, before: &ShipmentRecord, s: &ShipmentRecord) -> Result<()> {
    let repr = wire::Repr::of(s);
    let (id_at, status_at) = repr.gaps.offsets();
    let n = tx.conn
        .prepare_cached(
            "UPDATE shipments SET reference = ?3, status = ?4, term_of_trade = ?5, order_id = ?6, shipping_rule_id = ?7,
                repr = ?8, body = '', updated_at = ?9, splits_made = ?10, product_id = ?11,
                repr_id_at = ?12, repr_status_at = ?13
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
            repr.text,
            s.updated_at,
            s.splits_made,
            s.body.carrier_settings.product_id,
            id_at,
            status_at
        ])?;
    one_row(n, "shipments")?;
    // Written only when they change: SQLite rewrites the index entries of every column an
    // UPDATE sets, changed or not (`carrier_id` has an index, `searchable` a partial one).
    tx.conn
        .prepare_cached(tx.conn.pick(
            "UPDATE shipments SET carrier_id = ?2 WHERE id = ?1 AND carrier_id IS NOT ?2",
            "UPDATE shipments SET carrier_id = ?2 WHERE id = ?1 AND carrier_id IS DISTINCT FROM ?2",
        ))?
        .execute(params![s.id, s.body.carrier_settings.carrier_id])?;
    // A shipment stored before V20 and not yet indexed has no terms: it gets them all now.
    let unindexed = tx
        .conn
        .prepare_cached("UPDATE shipments SET searchable = 1 WHERE id = ?1 AND searchable = 0")?
        .execute(params![s.id])?;
    if unindexed == 1 {
        shipment_terms::index_new(tx, s)?;
    } else {
        shipment_terms::index(tx, before, s)?;
    }
    Ok(())
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

/// Up to `limit` shipments stored before V28 (no representation yet), for housekeeping to give
/// them one (`render`).
pub fn unrendered(db: &Reader, limit: u32) -> Result<Vec<ShipmentRecord>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM shipments s WHERE s.repr IS NULL ORDER BY s.id LIMIT ?1"
        ))?
        .query_map([limit], from_row)?
        .collect::<crate::store::sql::Result<Vec<_>>>()?)
}

/// Gives shipments `unrendered` found their representation, those still without one (a write
/// meanwhile gave it from what it wrote).
pub fn render(tx: &Tx, shipments: &[ShipmentRecord]) -> Result<()> {
    for s in shipments {
        let repr = wire::Repr::of(s);
        let (id_at, status_at) = repr.gaps.offsets();
        tx.conn
            .prepare_cached(
                "UPDATE shipments SET repr = ?2, body = '', repr_id_at = ?3, repr_status_at = ?4
                 WHERE id = ?1 AND repr IS NULL",
            )?
            .execute(params![s.id, repr.text, id_at, status_at])?;
    }
    Ok(())
}

/// Deletes a stored shipment (`s`, as the unit of work read it) and its search terms.
pub fn delete(tx: &Tx, s: &ShipmentRecord) -> Result<()> {
    shipment_terms::remove(tx, s)?;
    let n = tx
        .conn
        .prepare_cached("DELETE FROM shipments WHERE org_id = ?1 AND id = ?2")?
        .execute([&s.org_id, &s.id])?;
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
            "SELECT s.org_id, s.id, c.id, json_extract(COALESCE(s.repr, s.body), '$.tracking.number')
             FROM shipments s
             JOIN carriers c ON c.org_id = s.org_id AND c.id = json_extract(COALESCE(s.repr, s.body), '$.carrierSettings.carrierId')
             WHERE s.status IN ('processing', 'partly_dispatched', 'dispatched')
               AND json_extract(COALESCE(s.repr, s.body), '$.tracking.number') IS NOT NULL
               AND coalesce(json_extract(COALESCE(s.repr, s.body), '$.tracking.status'), '') NOT IN ('delivered', 'returned')
               AND c.carrier_slug IN (SELECT value FROM json_each(?1))
             ORDER BY s.updated_at LIMIT ?2",
            "SELECT s.org_id, s.id, c.id, COALESCE(s.repr, s.body)::json #>> '{tracking,number}'
             FROM shipments s
             JOIN carriers c ON c.org_id = s.org_id AND c.id = COALESCE(s.repr, s.body)::json #>> '{carrierSettings,carrierId}'
             WHERE s.status IN ('processing', 'partly_dispatched', 'dispatched')
               AND COALESCE(s.repr, s.body)::json #>> '{tracking,number}' IS NOT NULL
               AND coalesce(COALESCE(s.repr, s.body)::json #>> '{tracking,status}', '') NOT IN ('delivered', 'returned')
               AND c.carrier_slug IN (SELECT json_array_elements_text(?1::json))
             ORDER BY s.updated_at LIMIT ?2",
        ))?
        .query_map(params![types, limit], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<crate::store::sql::Result<Vec<_>>>()?)
}
