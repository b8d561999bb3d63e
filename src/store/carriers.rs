//! `carriers`, read with their sender address.

use crate::store::sql::{OptionalExtension, Row, params};

use crate::{
    error::Result,
    model::carrier::{Carrier, CarrierIn, CarrierRecord},
    store::{PageQuery, Paged, Reader, Tx, json_column, one_row, sender_addresses, to_json},
};

fn select() -> String {
    format!(
        "SELECT c.id, c.org_id, c.name, c.carrier_slug, c.config, c.sender_address_id, c.created_at, c.updated_at, {}
         FROM carriers c JOIN sender_addresses a ON a.id = c.sender_address_id",
        sender_addresses::columns("a")
    )
}

pub(crate) fn from_row_at(row: &Row, at: usize) -> crate::store::sql::Result<CarrierRecord> {
    Ok(CarrierRecord {
        id: row.get(at)?,
        org_id: row.get(at + 1)?,
        fields: CarrierIn {
            name: row.get(at + 2)?,
            carrier_slug: row.get(at + 3)?,
            config: json_column(row, at + 4)?,
            sender_address_id: row.get(at + 5)?,
        },
        created_at: row.get(at + 6)?,
        updated_at: row.get(at + 7)?,
    })
}

fn with_address(row: &Row) -> crate::store::sql::Result<Carrier> {
    Ok(Carrier {
        carrier: from_row_at(row, 0)?,
        sender_address: Some(sender_addresses::from_row_at(row, 8)?),
    })
}

pub fn get(db: &Reader, org_id: &str, id: &str) -> Result<Option<Carrier>> {
    Ok(db
        .conn
        .prepare_cached(&format!("{} WHERE c.org_id = ?1 AND c.id = ?2", select()))?
        .query_row([org_id, id], with_address)
        .optional()?)
}

/// Whether the organization has carrier `id` (a reference check: nothing of it is read).
pub fn exists(db: &Reader, org_id: &str, id: &str) -> Result<bool> {
    Ok(db
        .conn
        .prepare_cached("SELECT 1 FROM carriers WHERE org_id = ?1 AND id = ?2")?
        .exists([org_id, id])?)
}

pub fn list(db: &Reader, org_id: &str, page: PageQuery) -> Result<Paged<Carrier>> {
    crate::store::org_page(
        db,
        org_id,
        page,
        "carriers",
        &format!(
            "{} WHERE c.org_id = ?1 ORDER BY c.created_at DESC, c.id DESC",
            select()
        ),
        with_address,
    )
}

/// Every carrier of the organization, oldest first (an organization has a handful).
pub fn all(db: &Reader, org_id: &str) -> Result<Vec<CarrierRecord>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "{} WHERE c.org_id = ?1 ORDER BY c.created_at, c.id",
            select()
        ))?
        .query_map([org_id], |row| from_row_at(row, 0))?
        .collect::<crate::store::sql::Result<Vec<_>>>()?)
}

/// Writes a carrier; `secrets` is its sealed secret values (None: it has none).
pub fn save(tx: &Tx, c: &CarrierRecord, secrets: Option<&str>) -> Result<()> {
    let f = &c.fields;
    tx.conn.prepare_cached(
        "INSERT INTO carriers (id, org_id, name, carrier_slug, config, sender_address_id, created_at, updated_at, secrets)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, carrier_slug = excluded.carrier_slug,
           config = excluded.config, sender_address_id = excluded.sender_address_id, updated_at = excluded.updated_at,
           secrets = excluded.secrets
         WHERE carriers.org_id = excluded.org_id",
    )?
    .execute(params![c.id, c.org_id, f.name, f.carrier_slug, to_json(&f.config)?, f.sender_address_id, c.created_at, c.updated_at, secrets])?;
    Ok(())
}

/// The carrier's sealed secret values, if it has any.
pub fn secrets(db: &Reader, org_id: &str, id: &str) -> Result<Option<String>> {
    Ok(db
        .conn
        .prepare_cached("SELECT secrets FROM carriers WHERE org_id = ?1 AND id = ?2")?
        .query_row([org_id, id], |r| r.get::<_, Option<String>>(0))
        .optional()?
        .flatten())
}

/// Whether a shipping rule still uses the carrier.
pub fn in_use(db: &Reader, org_id: &str, id: &str) -> Result<bool> {
    Ok(db
        .conn
        .prepare_cached("SELECT 1 FROM shipping_rules WHERE org_id = ?1 AND carrier_id = ?2")?
        .exists([org_id, id])?)
}

pub fn delete(tx: &Tx, org_id: &str, id: &str) -> Result<()> {
    let n = tx
        .conn
        .prepare_cached("DELETE FROM carriers WHERE org_id = ?1 AND id = ?2")?
        .execute([org_id, id])?;
    one_row(n, "carriers")
}
