//! `users`, read alone or through one organization's membership.

use crate::store::sql::{OptionalExtension, Row, params};

use crate::{
    error::Result,
    model::{member::Membership, user::UserRecord},
    store::{Reader, Tx},
};

const COLUMNS: &str =
    "u.id, u.email, u.name, u.language, u.staff, u.email_verified, u.created_at, u.updated_at";

fn from_row(row: &Row, role: Option<String>) -> crate::store::sql::Result<UserRecord> {
    Ok(UserRecord {
        id: row.get(0)?,
        email: row.get(1)?,
        name: row.get(2)?,
        language: row.get(3)?,
        staff: row.get(4)?,
        email_verified: row.get(5)?,
        role,
        created_at: row.get(6)?,
        updated_at: row.get(7)?,
    })
}

pub fn by_email(db: &Reader, email: &str) -> Result<Option<UserRecord>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM users u WHERE lower(u.email) = lower(?1)"
        ))?
        .query_row([email], |r| from_row(r, None))
        .optional()?)
}

pub fn get(db: &Reader, user_id: &str) -> Result<Option<UserRecord>> {
    Ok(db
        .conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM users u WHERE u.id = ?1"))?
        .query_row([user_id], |r| from_row(r, None))
        .optional()?)
}

/// The user as a member of `org_id`, with their role there.
pub fn in_org(db: &Reader, org_id: &str, user_id: &str) -> Result<Option<UserRecord>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS}, m.role FROM users u JOIN memberships m ON m.user_id = u.id
             WHERE m.org_id = ?1 AND u.id = ?2"
        ))?
        .query_row([org_id, user_id], |r| from_row(r, r.get(8)?))
        .optional()?)
}

pub fn insert(tx: &Tx, user: &UserRecord) -> Result<()> {
    tx.conn.prepare_cached(
        "INSERT INTO users (id, email, name, language, staff, email_verified, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        user.id,
        user.email,
        user.name,
        user.language,
        user.staff,
        user.email_verified,
        user.created_at,
        user.updated_at
    ])?;
    Ok(())
}

pub fn set_password_hash(tx: &Tx, user_id: &str, hash: &str, now: &str) -> Result<()> {
    tx.conn
        .prepare_cached("UPDATE users SET password_hash = ?2, updated_at = ?3 WHERE id = ?1")?
        .execute(params![user_id, hash, now])?;
    Ok(())
}

pub fn set_staff(tx: &Tx, user_id: &str, staff: bool, now: &str) -> Result<()> {
    tx.conn
        .prepare_cached("UPDATE users SET staff = ?2, updated_at = ?3 WHERE id = ?1")?
        .execute(params![user_id, staff, now])?;
    Ok(())
}

/// The user with this e-mail and their password hash (None when no password is set).
pub fn with_password(db: &Reader, email: &str) -> Result<Option<(UserRecord, Option<String>)>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS}, u.password_hash FROM users u WHERE lower(u.email) = lower(?1)"
        ))?
        .query_row([email], |r| Ok((from_row(r, None)?, r.get(8)?)))
        .optional()?)
}

/// The organizations a user belongs to, by name.
pub fn memberships(db: &Reader, user_id: &str) -> Result<Vec<Membership>> {
    let mut stmt = db.conn.prepare_cached(
        "SELECT o.id, o.name, m.role, m.brand FROM memberships m JOIN orgs o ON o.id = m.org_id
         WHERE m.user_id = ?1 ORDER BY o.name, o.id",
    )?;
    let rows = stmt.query_map([user_id], |r| {
        Ok(Membership {
            org_id: r.get(0)?,
            org_name: r.get(1)?,
            role: r.get(2)?,
            brand: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<crate::store::sql::Result<_>>()?)
}
