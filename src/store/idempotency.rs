//! `idempotency_keys`: reservations and stored answers of idempotent requests.

use crate::store::sql::{OptionalExtension, params};

use crate::{
    error::Result,
    store::{Reader, Tx},
};

/// What is stored under a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub fingerprint: Vec<u8>,
    pub running: bool,
    pub status: Option<u16>,
    pub content_type: Option<String>,
    /// Sealed.
    pub body: Option<String>,
    pub created_at: String,
}

pub fn get(db: &Reader, credential: &[u8], key: &str) -> Result<Option<Record>> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT fingerprint, state, status, content_type, body, created_at FROM idempotency_keys
             WHERE credential = ?1 AND key = ?2",
        )?
        .query_row(params![credential, key], |r| {
            Ok(Record {
                fingerprint: r.get(0)?,
                running: r.get::<_, String>(1)? == "running",
                status: r.get(2)?,
                content_type: r.get(3)?,
                body: r.get(4)?,
                created_at: r.get(5)?,
            })
        })
        .optional()?)
}

/// Reserves `key` for a request (replacing an expired or abandoned record).
pub fn reserve(tx: &Tx, credential: &[u8], key: &str, fingerprint: &[u8], now: &str) -> Result<()> {
    tx.conn
        .prepare_cached(
            "INSERT INTO idempotency_keys (credential, key, fingerprint, state, created_at)
             VALUES (?1, ?2, ?3, 'running', ?4)
             ON CONFLICT (credential, key) DO UPDATE SET fingerprint = excluded.fingerprint,
               state = 'running', status = NULL, content_type = NULL, body = NULL,
               created_at = excluded.created_at",
        )?
        .execute(params![credential, key, fingerprint, now])?;
    Ok(())
}

/// Stores the answer of the request that holds `key`.
pub fn complete(
    tx: &Tx,
    credential: &[u8],
    key: &str,
    status: u16,
    content_type: &str,
    sealed_body: &str,
) -> Result<()> {
    tx.conn
        .prepare_cached(
            "UPDATE idempotency_keys SET state = 'done', status = ?3, content_type = ?4, body = ?5
             WHERE credential = ?1 AND key = ?2",
        )?
        .execute(params![credential, key, status, content_type, sealed_body])?;
    Ok(())
}

/// Gives `key` up (the request failed, so a retry may run it again).
pub fn release(tx: &Tx, credential: &[u8], key: &str) -> Result<()> {
    tx.conn
        .prepare_cached(
            "DELETE FROM idempotency_keys WHERE credential = ?1 AND key = ?2 AND state = 'running'",
        )?
        .execute(params![credential, key])?;
    Ok(())
}

/// Removes records made before `before`.
pub fn prune(tx: &Tx, before: &str) -> Result<usize> {
    Ok(tx
        .conn
        .prepare_cached("DELETE FROM idempotency_keys WHERE created_at < ?1")?
        .execute([before])?)
}
