//! `booking_attempts`: the claim a booking holds on its shipment, and its outcome.

use crate::store::sql::{OptionalExtension, Row, params};

use crate::{
    error::Result,
    model::booking::{AttemptStatus, BookingAttempt},
    store::{Reader, Tx},
};

const COLUMNS: &str = "id, org_id, shipment_id, status, started_at, stale_at, finished_at, error";

fn from_row(row: &Row) -> crate::store::sql::Result<BookingAttempt> {
    Ok(BookingAttempt {
        id: row.get(0)?,
        org_id: row.get(1)?,
        shipment_id: row.get(2)?,
        status: row.get(3)?,
        started_at: row.get(4)?,
        stale_at: row.get(5)?,
        finished_at: row.get(6)?,
        error: row.get(7)?,
    })
}

/// Claims the shipment with a new open attempt; `None` when another open attempt holds it (the
/// unique index settles a race between processes).
pub fn insert(tx: &Tx, attempt: &BookingAttempt) -> Result<Option<()>> {
    let inserted = tx
        .conn
        .prepare_cached(&format!(
            "INSERT INTO booking_attempts ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
        ))?
        .execute(params![
            attempt.id,
            attempt.org_id,
            attempt.shipment_id,
            attempt.status,
            attempt.started_at,
            attempt.stale_at,
            attempt.finished_at,
            attempt.error
        ]);
    match inserted {
        Ok(_) => Ok(Some(())),
        Err(err) if err.is_unique_violation() => Ok(None),
        Err(err) => Err(err.into()),
    }
}

/// The attempt that holds the shipment (in progress, or with an unknown outcome), if any.
pub fn open_for(db: &Reader, org_id: &str, shipment_id: &str) -> Result<Option<BookingAttempt>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM booking_attempts
             WHERE org_id = ?1 AND shipment_id = ?2 AND status IN ('in_progress', 'unknown')"
        ))?
        .query_row([org_id, shipment_id], from_row)
        .optional()?)
}

/// Marks the attempt that holds its shipment `booked`; false when it no longer holds it.
pub fn complete(tx: &Tx, org_id: &str, id: &str, at: &str) -> Result<bool> {
    let changed = tx
        .conn
        .prepare_cached(
            "UPDATE booking_attempts SET status = 'booked', finished_at = ?3
             WHERE org_id = ?1 AND id = ?2 AND status = 'in_progress'",
        )?
        .execute(params![org_id, id, at])?;
    Ok(changed == 1)
}

/// Ends (or marks) an attempt.
pub fn set_status(
    tx: &Tx,
    org_id: &str,
    id: &str,
    status: AttemptStatus,
    at: &str,
    error: Option<&str>,
) -> Result<()> {
    tx.conn
        .prepare_cached(
            "UPDATE booking_attempts SET status = ?3, finished_at = ?4, error = ?5
             WHERE org_id = ?1 AND id = ?2",
        )?
        .execute(params![org_id, id, status, at, error])?;
    Ok(())
}
