//! `notifications` (each e-mail to a receiver: the mail worker's queue and the shipment's
//! notification log) and `mail_suppressions` (receivers who unsubscribed).

use crate::store::sql::{OptionalExtension, Row, params};

use crate::{
    error::Result,
    model::notification::Notification,
    store::{PageQuery, Paged, Reader, Tx},
};

/// A message to queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Queued {
    pub id: String,
    pub org_id: String,
    pub shipment_id: String,
    /// As the log names it (`out_for_delivery`).
    pub event: String,
    pub to: String,
    pub language: String,
    /// Whether the shipment's label goes with it (a return booked in the returns portal).
    pub attach_label: bool,
    pub created_at: String,
}

/// Queues a message, due at once.
pub fn queue(tx: &Tx, message: &Queued) -> Result<()> {
    tx.conn
        .prepare_cached(
            "INSERT INTO notifications (id, org_id, shipment_id, event, to_address, language,
                 attach_label, status, attempts, next_attempt_at, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'queued', 0, ?8, ?8)",
        )?
        .execute(params![
            message.id,
            message.org_id,
            message.shipment_id,
            message.event,
            message.to,
            message.language,
            message.attach_label,
            message.created_at
        ])?;
    Ok(())
}

/// A stored message with what the worker needs besides its public form.
#[derive(Clone, Debug, PartialEq)]
pub struct Stored {
    pub org_id: String,
    pub attach_label: bool,
    pub notification: Notification,
}

const COLUMNS: &str = "id, shipment_id, event, to_address, language, status, attempts, error, \
    created_at, sent_at, org_id, attach_label";

fn from_row(row: &Row) -> crate::store::sql::Result<Stored> {
    Ok(Stored {
        notification: Notification {
            id: row.get(0)?,
            shipment_id: row.get(1)?,
            event: row.get(2)?,
            to: row.get(3)?,
            language: row.get(4)?,
            status: row.get(5)?,
            attempts: row.get(6)?,
            error: row.get(7)?,
            created_at: row.get(8)?,
            sent_at: row.get(9)?,
        },
        org_id: row.get(10)?,
        attach_label: row.get(11)?,
    })
}

/// The ids of up to `limit` messages due at `now`, the longest waiting first.
pub fn due(db: &Reader, now: &str, limit: u32) -> Result<Vec<String>> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT id FROM notifications
             WHERE status = 'queued' AND next_attempt_at <= ?1
             ORDER BY next_attempt_at, id LIMIT ?2",
        )?
        .query_map(params![now, limit], |r| r.get(0))?
        .collect::<crate::store::sql::Result<Vec<_>>>()?)
}

/// Claims a due message until `lease_until`: None when it is no longer due (sent, rescheduled,
/// or claimed by another sender meanwhile); a message whose sender dies is due again when its
/// claim runs out.
pub fn claim(tx: &Tx, id: &str, now: &str, lease_until: &str) -> Result<Option<Stored>> {
    let claimed = tx
        .conn
        .prepare_cached(
            "UPDATE notifications SET next_attempt_at = ?3
             WHERE id = ?1 AND status = 'queued' AND next_attempt_at <= ?2",
        )?
        .execute(params![id, now, lease_until])?;
    if claimed == 0 {
        return Ok(None);
    }
    Ok(tx
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM notifications WHERE id = ?1"
        ))?
        .query_row([id], from_row)
        .optional()?)
}

/// How an attempt ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Sent,
    /// Tried again at the time given.
    Retry(String),
    Failed,
}

/// Records attempt number `attempts` of a message and how it ended.
pub fn settle(
    tx: &Tx,
    id: &str,
    attempts: u32,
    outcome: &Outcome,
    error: Option<&str>,
    now: &str,
) -> Result<()> {
    let (status, next, sent_at) = match outcome {
        Outcome::Sent => ("sent", None, Some(now)),
        Outcome::Retry(at) => ("queued", Some(at.as_str()), None),
        Outcome::Failed => ("failed", None, None),
    };
    tx.conn
        .prepare_cached(
            "UPDATE notifications SET status = ?2, attempts = ?3, error = ?4,
                 next_attempt_at = ?5, sent_at = ?6
             WHERE id = ?1",
        )?
        .execute(params![id, status, attempts, error, next, sent_at])?;
    Ok(())
}

/// A message of the organization, for its unsubscribe link.
pub fn get(db: &Reader, id: &str) -> Result<Option<Stored>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM notifications WHERE id = ?1"
        ))?
        .query_row([id], from_row)
        .optional()?)
}

/// The messages about a shipment, newest first.
pub fn of_shipment(
    db: &Reader,
    org_id: &str,
    shipment_id: &str,
    page: PageQuery,
) -> Result<Paged<Notification>> {
    let total: i64 = db
        .conn
        .prepare_cached(
            "SELECT COUNT(*) FROM notifications WHERE org_id = ?1 AND shipment_id = ?2",
        )?
        .query_row([org_id, shipment_id], |r| r.get(0))?;
    let items = db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM notifications WHERE org_id = ?1 AND shipment_id = ?2
             ORDER BY id DESC LIMIT ?3 OFFSET ?4"
        ))?
        .query_map(
            params![org_id, shipment_id, page.limit, page.offset()],
            |row| from_row(row).map(|stored| stored.notification),
        )?
        .collect::<crate::store::sql::Result<Vec<_>>>()?;
    Ok(Paged {
        items,
        total: u64::try_from(total).unwrap_or(0),
        query: page,
    })
}

/// Records that `address` wants no more e-mail from the organization (again is no change).
pub fn suppress(tx: &Tx, org_id: &str, address: &str, now: &str) -> Result<()> {
    tx.conn
        .prepare_cached(
            "INSERT INTO mail_suppressions (org_id, address, created_at) VALUES (?1, ?2, ?3)
             ON CONFLICT (org_id, address) DO NOTHING",
        )?
        .execute(params![org_id, address.to_lowercase(), now])?;
    Ok(())
}

/// Whether `address` unsubscribed from the organization's e-mail.
pub fn suppressed(db: &Reader, org_id: &str, address: &str) -> Result<bool> {
    Ok(db
        .conn
        .prepare_cached("SELECT 1 FROM mail_suppressions WHERE org_id = ?1 AND address = ?2")?
        .exists(params![org_id, address.to_lowercase()])?)
}
