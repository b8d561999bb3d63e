//! `login_attempts` and `mcp_sessions`: short-lived state that every process serving the
//! database must see alike.

use crate::store::sql::{OptionalExtension, params};

use crate::{
    error::Result,
    store::{Reader, Tx},
};

/// Sign-in attempts counted for a throttle key: `(count, start of the window)`.
pub fn attempts(db: &Reader, key: &str) -> Result<Option<(u32, String)>> {
    Ok(db
        .conn
        .prepare_cached("SELECT count, window_start FROM login_attempts WHERE key = ?1")?
        .query_row([key], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

pub fn set_attempts(tx: &Tx, key: &str, count: u32, window_start: &str) -> Result<()> {
    tx.conn
        .prepare_cached(
            "INSERT INTO login_attempts (key, count, window_start) VALUES (?1, ?2, ?3)
             ON CONFLICT (key) DO UPDATE SET count = excluded.count,
                 window_start = excluded.window_start",
        )?
        .execute(params![key, count, window_start])?;
    Ok(())
}

/// Gives one attempt back to `key`, when its window is still the one that counted it.
pub fn give_back_attempt(tx: &Tx, key: &str, window_start: &str) -> Result<()> {
    tx.conn
        .prepare_cached(
            "UPDATE login_attempts SET count = count - 1
             WHERE key = ?1 AND window_start = ?2 AND count > 0",
        )?
        .execute(params![key, window_start])?;
    Ok(())
}

/// A legacy MCP session as kept: `(connection_id, user_id, protocol_version, initialized,
/// last_used_at)`.
pub type McpSession = (String, String, String, bool, String);

pub fn open_session(tx: &Tx, id_hash: &str, session: &McpSession) -> Result<()> {
    let (connection_id, user_id, version, initialized, used) = session;
    tx.conn
        .prepare_cached(
            "INSERT INTO mcp_sessions (id_hash, connection_id, user_id, protocol_version, initialized, last_used_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![id_hash, connection_id, user_id, version, initialized, used])?;
    Ok(())
}

pub fn session(db: &Reader, id_hash: &str) -> Result<Option<McpSession>> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT connection_id, user_id, protocol_version, initialized, last_used_at
             FROM mcp_sessions WHERE id_hash = ?1",
        )?
        .query_row([id_hash], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .optional()?)
}

/// Marks a session used at `at` (and initialized, when `initialized`).
pub fn touch_session(tx: &Tx, id_hash: &str, at: &str, initialized: bool) -> Result<()> {
    tx.conn
        .prepare_cached(
            "UPDATE mcp_sessions SET last_used_at = ?2, initialized = CASE WHEN ?3 = 1 THEN 1 ELSE initialized END WHERE id_hash = ?1",
        )?
        .execute(params![id_hash, at, initialized])?;
    Ok(())
}

/// Ends a session; false when there was none.
pub fn close_session(tx: &Tx, id_hash: &str) -> Result<bool> {
    Ok(tx
        .conn
        .prepare_cached("DELETE FROM mcp_sessions WHERE id_hash = ?1")?
        .execute([id_hash])?
        > 0)
}

/// Forgets sessions unused since `sessions_before` and sign-in counts of windows that began
/// before `failures_before`.
pub fn prune(tx: &Tx, sessions_before: &str, failures_before: &str) -> Result<usize> {
    let sessions = tx
        .conn
        .prepare_cached("DELETE FROM mcp_sessions WHERE last_used_at < ?1")?
        .execute([sessions_before])?;
    let failures = tx
        .conn
        .prepare_cached("DELETE FROM login_attempts WHERE window_start < ?1")?
        .execute([failures_before])?;
    Ok(sessions + failures)
}
