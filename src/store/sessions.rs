//! `web_sessions`: who is signed in to the pages, by the SHA-256 of the session cookie.

use crate::store::sql::{OptionalExtension, params};

use crate::{
    error::Result,
    store::{Reader, Tx},
};

pub fn insert(
    tx: &Tx,
    token_hash: &[u8],
    user_id: &str,
    now: &str,
    expires_at: &str,
) -> Result<()> {
    tx.conn
        .prepare_cached(
            "INSERT INTO web_sessions (token_hash, user_id, created_at, expires_at)
             VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![token_hash, user_id, now, expires_at])?;
    Ok(())
}

/// The user of a session that has not expired at `now`.
pub fn user_of(db: &Reader, token_hash: &[u8], now: &str) -> Result<Option<String>> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT user_id FROM web_sessions WHERE token_hash = ?1 AND expires_at > ?2",
        )?
        .query_row(params![token_hash, now], |r| r.get(0))
        .optional()?)
}

pub fn delete(tx: &Tx, token_hash: &[u8]) -> Result<()> {
    tx.conn
        .prepare_cached("DELETE FROM web_sessions WHERE token_hash = ?1")?
        .execute([token_hash])?;
    Ok(())
}

/// Removes sessions that expired before `now`; returns how many.
/// Ends every session of a user (their password changed).
pub fn delete_of(tx: &Tx, user_id: &str) -> Result<usize> {
    Ok(tx
        .conn
        .prepare_cached("DELETE FROM web_sessions WHERE user_id = ?1")?
        .execute([user_id])?)
}

pub fn prune(tx: &Tx, now: &str) -> Result<usize> {
    Ok(tx
        .conn
        .prepare_cached("DELETE FROM web_sessions WHERE expires_at <= ?1")?
        .execute([now])?)
}
