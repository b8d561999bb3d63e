//! `shipping_rules`, read with their carrier, sender address and return rule. Every write stores
//! the rule's public representation (`repr`, `shipping_rule::wire`) beside its fields (`body`);
//! a row stored before V29 gets `repr` from housekeeping.

use crate::store::sql::{OptionalExtension, Row, params};

use serde_json::Value;

use crate::{
    error::Result,
    model::{
        carrier::Carrier,
        sender_address::SenderAddress,
        shipping_rule::{
            Ref, ShippingRule, ShippingRuleIn, ShippingRuleRecord, ShippingRuleSummary, wire,
        },
    },
    store::{
        PageQuery, Paged, Reader, Tx, carriers, json_column, one_row, sender_addresses, to_json,
    },
};

fn select() -> String {
    select_with("")
}

/// `select` with more columns (of `r`, the rule) after its own.
fn select_with(more: &str) -> String {
    format!(
        "SELECT r.id, r.org_id, r.name, r.carrier_id, r.sender_address_id, r.return_shipping_rule_id, r.body,
                r.created_at, r.updated_at,
                c.id, c.org_id, c.name, c.carrier_slug, c.config, c.sender_address_id, c.created_at, c.updated_at,
                {}, rr.name, lp.id, lp.name, dp.id, dp.name{more}
         FROM shipping_rules r
         JOIN carriers c ON c.id = r.carrier_id
         JOIN sender_addresses a ON a.id = r.sender_address_id
         LEFT JOIN shipping_rules rr ON rr.id = r.return_shipping_rule_id
         LEFT JOIN printers lp ON lp.id = r.label_printer_id
         LEFT JOIN printers dp ON dp.id = r.document_printer_id",
        sender_addresses::columns("a")
    )
}

/// The rule's fields are its JSON `body`; the reference columns are authoritative (and fill in
/// bodies written before the body held them).
pub(crate) fn rule_from_row(row: &Row) -> crate::store::sql::Result<ShippingRuleRecord> {
    let mut body: Value = json_column(row, 6)?;
    if let Value::Object(map) = &mut body {
        for (key, idx) in [
            ("name", 2),
            ("carrierId", 3),
            ("senderAddressId", 4),
            ("returnShippingRuleId", 5),
        ] {
            map.insert(key.into(), row.get::<_, Option<String>>(idx)?.into());
        }
    }
    let fields: ShippingRuleIn = serde_json::from_value(body)
        .map_err(|e| crate::store::sql::Error::Decode(6, e.to_string()))?;
    Ok(ShippingRuleRecord {
        id: row.get(0)?,
        org_id: row.get(1)?,
        fields,
        created_at: row.get(7)?,
        updated_at: row.get(8)?,
    })
}

fn view(row: &Row) -> crate::store::sql::Result<ShippingRule> {
    let rule = rule_from_row(row)?;
    let referred = referred(row)?;
    Ok(ShippingRule {
        rule,
        carrier: referred.carrier,
        sender_address: referred.sender_address,
        label_printer: referred.label_printer,
        document_printer: referred.document_printer,
        return_shipping_rule: referred.return_shipping_rule,
    })
}

/// A rule's stored representation and what its full form adds from the rows it refers to.
pub struct Stored {
    pub repr: String,
    pub carrier: Carrier,
    pub sender_address: SenderAddress,
    pub label_printer: Option<Ref>,
    pub document_printer: Option<Ref>,
    pub return_shipping_rule: Option<Ref>,
}

impl Stored {
    pub fn referred(&self) -> wire::Referred<'_> {
        wire::Referred {
            carrier: &self.carrier,
            sender_address: &self.sender_address,
            label_printer: self.label_printer.as_ref(),
            document_printer: self.document_printer.as_ref(),
            return_shipping_rule: self.return_shipping_rule.as_ref(),
        }
    }
}

/// The column `select_with(", r.repr")` reads the representation from.
const REPR: usize = 37;

/// `Stored` of a row of `select_with(", r.repr")`: the rule's fields are read only when the row
/// has no representation yet (stored before V29).
fn stored_view(row: &Row) -> crate::store::sql::Result<Stored> {
    let repr = match row.get::<_, Option<String>>(REPR)? {
        Some(repr) => repr,
        None => wire::repr(&rule_from_row(row)?),
    };
    Ok(Stored {
        repr,
        ..referred(row)?
    })
}

/// What a row of `select` refers to (`repr` left empty).
fn referred(row: &Row) -> crate::store::sql::Result<Stored> {
    // The column is authoritative (`rule_from_row`); the name comes from the joined rule.
    let return_shipping_rule = match (
        row.get::<_, Option<String>>(5)?,
        row.get::<_, Option<String>>(32)?,
    ) {
        (Some(id), Some(name)) => Some(Ref { id, name }),
        _ => None,
    };
    Ok(Stored {
        repr: String::new(),
        carrier: Carrier {
            carrier: carriers::from_row_at(row, 9)?,
            sender_address: None,
        },
        sender_address: sender_addresses::from_row_at(row, 17)?,
        label_printer: reference(row, 33)?,
        document_printer: reference(row, 35)?,
        return_shipping_rule,
    })
}

/// `{id, name}` from the columns at `at` and `at + 1`, when they are set.
fn reference(row: &Row, at: usize) -> crate::store::sql::Result<Option<Ref>> {
    Ok(
        match (
            row.get::<_, Option<String>>(at)?,
            row.get::<_, Option<String>>(at + 1)?,
        ) {
            (Some(id), Some(name)) => Some(Ref { id, name }),
            _ => None,
        },
    )
}

pub fn get(db: &Reader, org_id: &str, id: &str) -> Result<Option<ShippingRule>> {
    Ok(db
        .conn
        .prepare_cached(&format!("{} WHERE r.org_id = ?1 AND r.id = ?2", select()))?
        .query_row([org_id, id], view)
        .optional()?)
}

/// `get`, as its representation and what it refers to.
pub fn stored(db: &Reader, org_id: &str, id: &str) -> Result<Option<Stored>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "{} WHERE r.org_id = ?1 AND r.id = ?2",
            select_with(", r.repr")
        ))?
        .query_row([org_id, id], stored_view)
        .optional()?)
}

/// The same page as `list`, as `stored` reads each rule.
pub fn list_stored(db: &Reader, org_id: &str, page: PageQuery) -> Result<Paged<Stored>> {
    crate::store::org_page(
        db,
        org_id,
        page,
        "shipping_rules",
        &format!(
            "{} WHERE r.org_id = ?1 ORDER BY r.created_at DESC, r.id DESC",
            select_with(", r.repr")
        ),
        stored_view,
    )
}

/// The rule alone, without what it refers to.
pub fn get_rule(db: &Reader, org_id: &str, id: &str) -> Result<Option<ShippingRuleRecord>> {
    Ok(db.conn
        .prepare_cached(
            "SELECT id, org_id, name, carrier_id, sender_address_id, return_shipping_rule_id, body, created_at,
                    updated_at
             FROM shipping_rules WHERE org_id = ?1 AND id = ?2",
        )?
        .query_row([org_id, id], rule_from_row)
        .optional()?)
}

/// The summary of the rule a shipment or an order names (none for none, or a rule since
/// deleted).
pub fn summary(
    db: &Reader,
    org_id: &str,
    rule_id: Option<&str>,
) -> Result<Option<ShippingRuleSummary>> {
    let Some(rule_id) = rule_id else {
        return Ok(None);
    };
    Ok(get_rule(db, org_id, rule_id)?
        .as_ref()
        .map(ShippingRuleSummary::from))
}

pub fn list(db: &Reader, org_id: &str, page: PageQuery) -> Result<Paged<ShippingRule>> {
    crate::store::org_page(
        db,
        org_id,
        page,
        "shipping_rules",
        &format!(
            "{} WHERE r.org_id = ?1 ORDER BY r.created_at DESC, r.id DESC",
            select()
        ),
        view,
    )
}

/// Every rule of the organization, oldest first (quotes walk them all).
pub fn all(db: &Reader, org_id: &str) -> Result<Vec<ShippingRule>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "{} WHERE r.org_id = ?1 ORDER BY r.created_at, r.id",
            select()
        ))?
        .query_map([org_id], view)?
        .collect::<crate::store::sql::Result<Vec<_>>>()?)
}

pub fn save(tx: &Tx, r: &ShippingRuleRecord) -> Result<()> {
    let f = &r.fields;
    tx.conn.prepare_cached(
        "INSERT INTO shipping_rules (id, org_id, name, carrier_id, sender_address_id, return_shipping_rule_id, body,
                                     created_at, updated_at, label_printer_id, document_printer_id, repr)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, carrier_id = excluded.carrier_id,
           sender_address_id = excluded.sender_address_id, return_shipping_rule_id = excluded.return_shipping_rule_id,
           body = excluded.body, updated_at = excluded.updated_at, label_printer_id = excluded.label_printer_id,
           document_printer_id = excluded.document_printer_id, repr = excluded.repr
         WHERE shipping_rules.org_id = excluded.org_id",
    )?
    .execute(params![
        r.id,
        r.org_id,
        f.name,
        f.carrier_id,
        f.sender_address_id,
        f.return_shipping_rule_id,
        to_json(f)?,
        r.created_at,
        r.updated_at,
        f.label_printer_id,
        f.document_printer_id,
        wire::repr(r)
    ])?;
    Ok(())
}

pub fn exists(db: &Reader, org_id: &str, id: &str) -> Result<bool> {
    Ok(db
        .conn
        .prepare_cached("SELECT 1 FROM shipping_rules WHERE org_id = ?1 AND id = ?2")?
        .exists([org_id, id])?)
}

/// Whether another rule names this one as its return rule.
pub fn is_return_rule_of_another(db: &Reader, org_id: &str, id: &str) -> Result<bool> {
    Ok(db.conn
        .prepare_cached("SELECT 1 FROM shipping_rules WHERE org_id = ?1 AND return_shipping_rule_id = ?2 AND id <> ?2")?
        .exists([org_id, id])?)
}

pub fn delete(tx: &Tx, org_id: &str, id: &str) -> Result<()> {
    let n = tx
        .conn
        .prepare_cached("DELETE FROM shipping_rules WHERE org_id = ?1 AND id = ?2")?
        .execute([org_id, id])?;
    one_row(n, "shipping_rules")
}

/// Up to `limit` rules stored before V29 (no representation yet), for housekeeping.
pub fn unrendered(db: &Reader, limit: u32) -> Result<Vec<ShippingRuleRecord>> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT id, org_id, name, carrier_id, sender_address_id, return_shipping_rule_id, body, created_at,
                    updated_at
             FROM shipping_rules WHERE repr IS NULL ORDER BY id LIMIT ?1",
        )?
        .query_map([limit], rule_from_row)?
        .collect::<crate::store::sql::Result<Vec<_>>>()?)
}

/// Gives rules `unrendered` found their representation, those still without one.
pub fn render(tx: &Tx, rules: &[ShippingRuleRecord]) -> Result<()> {
    for r in rules {
        tx.conn
            .prepare_cached("UPDATE shipping_rules SET repr = ?2 WHERE id = ?1 AND repr IS NULL")?
            .execute(params![r.id, wire::repr(r)])?;
    }
    Ok(())
}
