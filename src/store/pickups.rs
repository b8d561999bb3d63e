//! `pickups`: each pickup asked of a carrier, and what came of it.

use crate::store::sql::{OptionalExtension, Row, params};

use crate::{
    error::Result,
    model::pickup::{Pickup, PickupStatus},
    store::{PageQuery, Paged, Reader, Tx, json_column, one_row, to_json},
};

const COLUMNS: &str = "id, org_id, carrier_id, status, date, ready_from, ready_until, \
    sender_address_id, shipment_ids, note, confirmation_number, error, created_at, updated_at";

fn from_row(row: &Row) -> crate::store::sql::Result<Pickup> {
    Ok(Pickup {
        id: row.get(0)?,
        org_id: row.get(1)?,
        carrier_id: row.get(2)?,
        status: row.get(3)?,
        date: row.get(4)?,
        ready_from: row.get(5)?,
        ready_until: row.get(6)?,
        sender_address_id: row.get(7)?,
        shipment_ids: json_column(row, 8)?,
        note: row.get(9)?,
        confirmation_number: row.get(10)?,
        error: row.get(11)?,
        created_at: row.get(12)?,
        updated_at: row.get(13)?,
    })
}

pub fn get(db: &Reader, org_id: &str, id: &str) -> Result<Option<Pickup>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM pickups WHERE org_id = ?1 AND id = ?2"
        ))?
        .query_row([org_id, id], from_row)
        .optional()?)
}

/// The organization's pickups, newest first.
pub fn list(db: &Reader, org_id: &str, page: PageQuery) -> Result<Paged<Pickup>> {
    crate::store::org_page(
        db,
        org_id,
        page,
        "pickups",
        &format!(
            "SELECT {COLUMNS} FROM pickups WHERE org_id = ?1
             ORDER BY created_at DESC, id DESC"
        ),
        from_row,
    )
}

pub fn insert(tx: &Tx, p: &Pickup) -> Result<()> {
    let ids = to_json(&p.shipment_ids)?;
    tx.conn
        .prepare_cached(&format!(
            "INSERT INTO pickups ({COLUMNS})
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"
        ))?
        .execute(params![
            p.id,
            p.org_id,
            p.carrier_id,
            p.status,
            p.date,
            p.ready_from,
            p.ready_until,
            p.sender_address_id,
            ids,
            p.note,
            p.confirmation_number,
            p.error,
            p.created_at,
            p.updated_at
        ])?;
    Ok(())
}

/// Moves a pickup from `from` to its status now (with its confirmation number and error);
/// false when it was no longer in `from`.
pub fn settle(tx: &Tx, p: &Pickup, from: PickupStatus) -> Result<bool> {
    let changed = tx
        .conn
        .prepare_cached(
            "UPDATE pickups SET status = ?3, confirmation_number = ?4, error = ?5, updated_at = ?6
             WHERE org_id = ?1 AND id = ?2 AND status = ?7",
        )?
        .execute(params![
            p.org_id,
            p.id,
            p.status,
            p.confirmation_number,
            p.error,
            p.updated_at,
            from
        ])?;
    Ok(changed == 1)
}

/// Removes a pickup the carrier refused (it never existed there).
pub fn delete(tx: &Tx, org_id: &str, id: &str) -> Result<()> {
    let n = tx
        .conn
        .prepare_cached("DELETE FROM pickups WHERE org_id = ?1 AND id = ?2")?
        .execute([org_id, id])?;
    one_row(n, "pickups")
}
