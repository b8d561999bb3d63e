//! `webhook_deliveries` (the queue of (event, webhook) pairs still to deliver) and
//! `webhook_attempts` (the log of every attempt).

use crate::store::sql::{OptionalExtension, Row, params};

use crate::{
    error::Result,
    model::{event::Event, ids, webhook::WebhookDelivery},
    store::{PageQuery, Paged, Reader, Tx, json_column},
};

/// Queues the delivery of `event` to each of `webhook_ids`, due at once.
pub fn enqueue(tx: &Tx, event: &Event, webhook_ids: &[String]) -> Result<()> {
    let mut stmt = tx.conn.prepare_cached(
        "INSERT INTO webhook_deliveries (event_id, webhook_id, org_id, state, attempts, next_attempt_at, updated_at)
         VALUES (?1, ?2, ?3, 'pending', 0, ?4, ?4)",
    )?;
    for webhook_id in webhook_ids {
        stmt.execute(params![
            event.id,
            webhook_id,
            event.org_id,
            event.created_at
        ])?;
    }
    Ok(())
}

/// A delivery that is due: an event for a webhook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Due {
    pub event_id: String,
    pub webhook_id: String,
    pub org_id: String,
    pub attempts: u32,
}

/// The webhooks with deliveries due at `now`.
pub fn due_webhooks(db: &Reader, now: &str) -> Result<Vec<String>> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT DISTINCT webhook_id FROM webhook_deliveries
             WHERE state = 'pending' AND next_attempt_at <= ?1",
        )?
        .query_map([now], |r| r.get(0))?
        .collect::<crate::store::sql::Result<Vec<_>>>()?)
}

/// The delivery of a webhook's oldest event that is due at `now`.
pub fn next_due(db: &Reader, webhook_id: &str, now: &str) -> Result<Option<Due>> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT event_id, webhook_id, org_id, attempts FROM webhook_deliveries
             WHERE webhook_id = ?1 AND state = 'pending' AND next_attempt_at <= ?2
             ORDER BY event_id LIMIT 1",
        )?
        .query_row(params![webhook_id, now], |r| {
            Ok(Due {
                event_id: r.get(0)?,
                webhook_id: r.get(1)?,
                org_id: r.get(2)?,
                attempts: r.get(3)?,
            })
        })
        .optional()?)
}

/// Claims a due delivery until `lease_until`: false when it is no longer due (delivered,
/// rescheduled, or claimed by someone else meanwhile). A delivery whose sender dies is due again
/// when the lease runs out.
pub fn claim(tx: &Tx, due: &Due, now: &str, lease_until: &str) -> Result<bool> {
    let n = tx
        .conn
        .prepare_cached(
            "UPDATE webhook_deliveries SET next_attempt_at = ?4
             WHERE event_id = ?1 AND webhook_id = ?2 AND state = 'pending' AND next_attempt_at <= ?3",
        )?
        .execute(params![due.event_id, due.webhook_id, now, lease_until])?;
    Ok(n == 1)
}

/// The event a delivery carries.
pub fn event(db: &Reader, org_id: &str, id: &str) -> Result<Option<Event>> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT id, type, org_id, data, created_at FROM events WHERE org_id = ?1 AND id = ?2",
        )?
        .query_row([org_id, id], |r| {
            Ok(Event {
                id: r.get(0)?,
                kind: r.get(1)?,
                org_id: r.get(2)?,
                data: json_column(r, 3)?,
                created_at: r.get(4)?,
            })
        })
        .optional()?)
}

/// Settles a delivery: `Some(at)` retries it then, `None` ends it as `state`.
pub fn settle(tx: &Tx, due: &Due, state: &str, retry_at: Option<&str>, now: &str) -> Result<()> {
    tx.conn
        .prepare_cached(
            "UPDATE webhook_deliveries SET attempts = attempts + 1, state = ?3,
                next_attempt_at = COALESCE(?4, next_attempt_at), updated_at = ?5
             WHERE event_id = ?1 AND webhook_id = ?2",
        )?
        .execute(params![due.event_id, due.webhook_id, state, retry_at, now])?;
    Ok(())
}

/// Ends every pending delivery of a webhook that will not be called again.
pub fn fail_pending(tx: &Tx, webhook_id: &str, now: &str) -> Result<()> {
    tx.conn
        .prepare_cached(
            "UPDATE webhook_deliveries SET state = 'failed', updated_at = ?2
             WHERE webhook_id = ?1 AND state = 'pending'",
        )?
        .execute(params![webhook_id, now])?;
    Ok(())
}

const ATTEMPT_COLUMNS: &str = "id, webhook_id, event_id, event_type, attempt, response_status, \
    duration_ms, success, error, created_at";

fn attempt_from_row(row: &Row) -> crate::store::sql::Result<WebhookDelivery> {
    Ok(WebhookDelivery {
        id: row.get(0)?,
        webhook_id: row.get(1)?,
        event_id: row.get(2)?,
        event_type: row.get(3)?,
        attempt: row.get(4)?,
        response_status: row.get(5)?,
        duration_ms: row.get(6)?,
        success: row.get(7)?,
        error: row.get(8)?,
        created_at: row.get(9)?,
    })
}

pub fn record_attempt(tx: &Tx, org_id: &str, a: &WebhookDelivery) -> Result<()> {
    tx.conn
        .prepare_cached(
            "INSERT INTO webhook_attempts (id, org_id, webhook_id, event_id, event_type, attempt, response_status,
                                           duration_ms, success, error, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?
        .execute(params![
            a.id,
            org_id,
            a.webhook_id,
            a.event_id,
            a.event_type,
            a.attempt,
            a.response_status,
            a.duration_ms,
            a.success,
            a.error,
            a.created_at
        ])?;
    Ok(())
}

/// One logged attempt of a webhook.
pub fn attempt(
    db: &Reader,
    org_id: &str,
    webhook_id: &str,
    id: &str,
) -> Result<Option<WebhookDelivery>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {ATTEMPT_COLUMNS} FROM webhook_attempts
             WHERE org_id = ?1 AND webhook_id = ?2 AND id = ?3"
        ))?
        .query_row([org_id, webhook_id, id], attempt_from_row)
        .optional()?)
}

/// A delivery as a replay left it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// Whether it was queued now (false: it was pending already and is left as it is).
    pub queued: bool,
    /// When it is due.
    pub next_attempt_at: String,
}

/// Queues the delivery of event `event_id` to a webhook again, due at `now`, as a new delivery
/// (its attempts count from the first again, with the whole retry schedule); a delivery that
/// is pending already (waiting for a retry, or being sent right now) is left as it is.
pub fn replay(
    tx: &Tx,
    org_id: &str,
    event_id: &str,
    webhook_id: &str,
    now: &str,
) -> Result<Replayed> {
    let pending: Option<String> = tx
        .conn
        .prepare_cached(
            "SELECT next_attempt_at FROM webhook_deliveries
             WHERE org_id = ?1 AND event_id = ?2 AND webhook_id = ?3 AND state = 'pending'",
        )?
        .query_row([org_id, event_id, webhook_id], |r| r.get(0))
        .optional()?;
    if let Some(next_attempt_at) = pending {
        return Ok(Replayed {
            queued: false,
            next_attempt_at,
        });
    }
    tx.conn
        .prepare_cached(
            "INSERT INTO webhook_deliveries (event_id, webhook_id, org_id, state, attempts, next_attempt_at, updated_at)
             VALUES (?1, ?2, ?3, 'pending', 0, ?4, ?4)
             ON CONFLICT (event_id, webhook_id) DO UPDATE SET state = 'pending', attempts = 0,
               next_attempt_at = excluded.next_attempt_at, updated_at = excluded.updated_at",
        )?
        .execute(params![event_id, webhook_id, org_id, now])?;
    Ok(Replayed {
        queued: true,
        next_attempt_at: now.to_string(),
    })
}

/// The attempts of a webhook, newest first.
pub fn attempts(
    db: &Reader,
    org_id: &str,
    webhook_id: &str,
    page: PageQuery,
) -> Result<Paged<WebhookDelivery>> {
    let total: i64 = db
        .conn
        .prepare_cached(
            "SELECT COUNT(*) FROM webhook_attempts WHERE org_id = ?1 AND webhook_id = ?2",
        )?
        .query_row([org_id, webhook_id], |r| r.get(0))?;
    let items = db
        .conn
        .prepare_cached(&format!(
            "SELECT {ATTEMPT_COLUMNS}
             FROM webhook_attempts WHERE org_id = ?1 AND webhook_id = ?2
             ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4"
        ))?
        .query_map(
            params![org_id, webhook_id, page.limit, page.offset()],
            attempt_from_row,
        )?
        .collect::<crate::store::sql::Result<Vec<_>>>()?;
    Ok(Paged {
        items,
        total: u64::try_from(total).unwrap_or(0),
        query: page,
    })
}

/// Removes what is older than `before`: the attempt log, finished deliveries, and events that
/// have nothing left to deliver. Returns the number of rows removed.
pub fn prune(tx: &Tx, before: time::OffsetDateTime) -> Result<usize> {
    let at = crate::model::time::format(before);
    let mut removed = tx
        .conn
        .prepare_cached("DELETE FROM webhook_attempts WHERE id < ?1")?
        .execute([ids::floor(ids::ATTEMPT, before)])?;
    removed += tx
        .conn
        .prepare_cached(
            "DELETE FROM webhook_deliveries WHERE state <> 'pending' AND updated_at < ?1",
        )?
        .execute([at])?;
    removed += tx
        .conn
        .prepare_cached(
            "DELETE FROM events WHERE id < ?1
               AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id)",
        )?
        .execute([ids::floor(ids::EVENT, before)])?;
    Ok(removed)
}
