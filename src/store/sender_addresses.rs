//! `sender_addresses`.

use crate::store::sql::{OptionalExtension, Row, params};

use crate::{
    error::Result,
    model::sender_address::{SenderAddress, SenderAddressIn},
    store::{PageQuery, Paged, Reader, Tx, json_column, one_row, to_json},
};

const COLUMNS: &str = "id, org_id, name, att_contact, address1, address2, zipcode, city, phone, country_code, \
    state, email, customs, created_at, updated_at";

pub(crate) fn from_row_at(row: &Row, at: usize) -> crate::store::sql::Result<SenderAddress> {
    Ok(SenderAddress {
        id: row.get(at)?,
        org_id: row.get(at + 1)?,
        fields: SenderAddressIn {
            name: row.get(at + 2)?,
            att_contact: row.get(at + 3)?,
            address1: row.get(at + 4)?,
            address2: row.get(at + 5)?,
            zipcode: row.get(at + 6)?,
            city: row.get(at + 7)?,
            phone: row.get(at + 8)?,
            country_code: row.get(at + 9)?,
            state: row.get(at + 10)?,
            email: row.get(at + 11)?,
            customs: json_column::<Option<_>>(row, at + 12)?,
        },
        created_at: row.get(at + 13)?,
        updated_at: row.get(at + 14)?,
    })
}

/// The columns, prefixed with a table alias, for joins.
pub(crate) fn columns(alias: &str) -> String {
    COLUMNS
        .split(", ")
        .map(|c| format!("{alias}.{c}"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn get(db: &Reader, org_id: &str, id: &str) -> Result<Option<SenderAddress>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM sender_addresses WHERE org_id = ?1 AND id = ?2"
        ))?
        .query_row([org_id, id], |r| from_row_at(r, 0))
        .optional()?)
}

pub fn list(db: &Reader, org_id: &str, page: PageQuery) -> Result<Paged<SenderAddress>> {
    crate::store::org_page(
        db,
        org_id,
        page,
        "sender_addresses",
        &format!(
            "SELECT {COLUMNS} FROM sender_addresses WHERE org_id = ?1
             ORDER BY created_at DESC, id DESC"
        ),
        |r| from_row_at(r, 0),
    )
}

/// Inserts or replaces (same id and org).
pub fn save(tx: &Tx, a: &SenderAddress) -> Result<()> {
    let f = &a.fields;
    tx.conn.prepare_cached(&format!(
        "INSERT INTO sender_addresses ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, att_contact = excluded.att_contact,
           address1 = excluded.address1, address2 = excluded.address2, zipcode = excluded.zipcode,
           city = excluded.city, phone = excluded.phone, country_code = excluded.country_code,
           state = excluded.state, email = excluded.email, customs = excluded.customs,
           updated_at = excluded.updated_at
         WHERE sender_addresses.org_id = excluded.org_id"
    ))?
    .execute(params![
        a.id,
        a.org_id,
        f.name,
        f.att_contact,
        f.address1,
        f.address2,
        f.zipcode,
        f.city,
        f.phone,
        f.country_code,
        f.state,
        f.email,
        f.customs.as_ref().map(to_json).transpose()?,
        a.created_at,
        a.updated_at
    ])?;
    Ok(())
}

/// What still refers to the address, as a phrase for a 409, or None.
pub fn in_use(db: &Reader, org_id: &str, id: &str) -> Result<Option<&'static str>> {
    let checks = [
        (
            "SELECT 1 FROM carriers WHERE org_id = ?1 AND sender_address_id = ?2",
            "a carrier",
        ),
        (
            "SELECT 1 FROM shipping_rules WHERE org_id = ?1 AND sender_address_id = ?2",
            "a shipping rule",
        ),
        (
            "SELECT 1 FROM shipments WHERE org_id = ?1 AND sender_address_id = ?2",
            "a shipment",
        ),
    ];
    for (sql, what) in checks {
        if db.conn.prepare_cached(sql)?.exists([org_id, id])? {
            return Ok(Some(what));
        }
    }
    Ok(None)
}

pub fn delete(tx: &Tx, org_id: &str, id: &str) -> Result<()> {
    let n = tx
        .conn
        .prepare_cached("DELETE FROM sender_addresses WHERE org_id = ?1 AND id = ?2")?
        .execute([org_id, id])?;
    one_row(n, "sender_addresses")
}
