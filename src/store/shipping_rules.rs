//! `shipping_rules`, read with their carrier, sender address and return rule.

use crate::store::sql::{OptionalExtension, Row, params};

use serde_json::Value;

use crate::{
    error::Result,
    model::{
        carrier::Carrier,
        shipping_rule::{Ref, ShippingRule, ShippingRuleIn, ShippingRuleRecord},
    },
    store::{
        PageQuery, Paged, Reader, Tx, carriers, json_column, one_row, sender_addresses, to_json,
    },
};

fn select() -> String {
    format!(
        "SELECT r.id, r.org_id, r.name, r.carrier_id, r.sender_address_id, r.return_shipping_rule_id, r.body,
                r.created_at, r.updated_at,
                c.id, c.org_id, c.name, c.carrier_slug, c.config, c.sender_address_id, c.created_at, c.updated_at,
                {}, rr.name, lp.id, lp.name, dp.id, dp.name
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
    let return_shipping_rule = match (
        &rule.fields.return_shipping_rule_id,
        row.get::<_, Option<String>>(32)?,
    ) {
        (Some(id), Some(name)) => Some(Ref {
            id: id.clone(),
            name,
        }),
        _ => None,
    };
    Ok(ShippingRule {
        rule,
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
                                     created_at, updated_at, label_printer_id, document_printer_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, carrier_id = excluded.carrier_id,
           sender_address_id = excluded.sender_address_id, return_shipping_rule_id = excluded.return_shipping_rule_id,
           body = excluded.body, updated_at = excluded.updated_at, label_printer_id = excluded.label_printer_id,
           document_printer_id = excluded.document_printer_id
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
        f.document_printer_id
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
