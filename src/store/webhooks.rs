//! `webhooks`. The secrets are stored sealed by the vault; this module stores what it is given.

use crate::store::sql::{OptionalExtension, Row, params};

use crate::{
    error::Result,
    model::{event::EventKind, webhook::Webhook},
    store::{PageQuery, Paged, Reader, Tx, json_column, one_row, to_json},
};

const COLUMNS: &str = "id, org_id, name, url, secret, previous_secret, previous_secret_expires_at, events, \
    is_active, created_at, updated_at";

fn from_row(row: &Row) -> crate::store::sql::Result<Webhook> {
    Ok(Webhook {
        id: row.get(0)?,
        org_id: row.get(1)?,
        name: row.get(2)?,
        url: row.get(3)?,
        secret: row.get(4)?,
        previous_secret: row.get(5)?,
        previous_secret_expires_at: row.get(6)?,
        events: json_column(row, 7)?,
        is_active: row.get(8)?,
        created_at: row.get(9)?,
        updated_at: row.get(10)?,
    })
}

pub fn get(db: &Reader, org_id: &str, id: &str) -> Result<Option<Webhook>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM webhooks WHERE org_id = ?1 AND id = ?2"
        ))?
        .query_row([org_id, id], from_row)
        .optional()?)
}

pub fn list(db: &Reader, org_id: &str, page: PageQuery) -> Result<Paged<Webhook>> {
    crate::store::org_page(
        db,
        org_id,
        page,
        "webhooks",
        &format!(
            "SELECT {COLUMNS} FROM webhooks WHERE org_id = ?1
             ORDER BY created_at DESC, id DESC"
        ),
        from_row,
    )
}

/// An active webhook and the events it wants, for fanning an event out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subscriber {
    pub webhook_id: String,
    pub events: Vec<EventKind>,
}

/// The organization's active webhooks.
pub fn subscribers(db: &Reader, org_id: &str) -> Result<Vec<Subscriber>> {
    Ok(db
        .conn
        .prepare_cached("SELECT id, events FROM webhooks WHERE org_id = ?1 AND is_active = 1")?
        .query_map([org_id], |r| {
            Ok(Subscriber {
                webhook_id: r.get(0)?,
                events: json_column(r, 1)?,
            })
        })?
        .collect::<crate::store::sql::Result<Vec<_>>>()?)
}

/// Inserts or replaces (same id and org).
pub fn save(tx: &Tx, w: &Webhook) -> Result<()> {
    tx.conn
        .prepare_cached(&format!(
            "INSERT INTO webhooks ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
             ON CONFLICT(id) DO UPDATE SET name = excluded.name, url = excluded.url, secret = excluded.secret,
               previous_secret = excluded.previous_secret,
               previous_secret_expires_at = excluded.previous_secret_expires_at, events = excluded.events,
               is_active = excluded.is_active, updated_at = excluded.updated_at
             WHERE webhooks.org_id = excluded.org_id"
        ))?
        .execute(params![
            w.id,
            w.org_id,
            w.name,
            w.url,
            w.secret,
            w.previous_secret,
            w.previous_secret_expires_at,
            to_json(&w.events)?,
            w.is_active,
            w.created_at,
            w.updated_at
        ])?;
    Ok(())
}

/// Deactivates a webhook (its endpoint answered 410 Gone).
pub fn deactivate(tx: &Tx, org_id: &str, id: &str, now: &str) -> Result<()> {
    tx.conn
        .prepare_cached(
            "UPDATE webhooks SET is_active = 0, updated_at = ?3 WHERE org_id = ?1 AND id = ?2",
        )?
        .execute(params![org_id, id, now])?;
    Ok(())
}

pub fn delete(tx: &Tx, org_id: &str, id: &str) -> Result<()> {
    let n = tx
        .conn
        .prepare_cached("DELETE FROM webhooks WHERE org_id = ?1 AND id = ?2")?
        .execute([org_id, id])?;
    one_row(n, "webhooks")
}
