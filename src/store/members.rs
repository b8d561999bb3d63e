//! `memberships` as the members API sees them: each with its user's e-mail and name.

use crate::store::sql::{OptionalExtension, Row, params};

use crate::{
    error::Result,
    model::{member::Member, role::Role},
    store::{PageQuery, Paged, Reader, Tx, count},
};

const SELECT: &str = "SELECT u.id, u.email, u.name, m.role, m.brand, m.created_at
    FROM memberships m JOIN users u ON u.id = m.user_id";

fn from_row(row: &Row) -> crate::store::sql::Result<Member> {
    Ok(Member {
        id: row.get(0)?,
        email: row.get(1)?,
        name: row.get(2)?,
        role: row.get(3)?,
        brand: row.get(4)?,
        created_at: row.get(5)?,
    })
}

pub fn list(db: &Reader, org_id: &str, page: PageQuery) -> Result<Paged<Member>> {
    crate::store::org_page(
        db,
        org_id,
        page,
        "memberships",
        &format!("{SELECT} WHERE m.org_id = ?1 ORDER BY m.created_at DESC, u.id DESC"),
        from_row,
    )
}

pub fn get(db: &Reader, org_id: &str, user_id: &str) -> Result<Option<Member>> {
    Ok(db
        .conn
        .prepare_cached(&format!("{SELECT} WHERE m.org_id = ?1 AND m.user_id = ?2"))?
        .query_row([org_id, user_id], from_row)
        .optional()?)
}

/// Sets a member's role and brand.
pub fn set(tx: &Tx, org_id: &str, user_id: &str, role: Role, brand: Option<&str>) -> Result<()> {
    tx.conn
        .prepare_cached(
            "UPDATE memberships SET role = ?3, brand = ?4 WHERE org_id = ?1 AND user_id = ?2",
        )?
        .execute(params![org_id, user_id, role, brand])?;
    Ok(())
}

/// Ends a membership; false when there was none.
pub fn delete(tx: &Tx, org_id: &str, user_id: &str) -> Result<bool> {
    Ok(tx
        .conn
        .prepare_cached("DELETE FROM memberships WHERE org_id = ?1 AND user_id = ?2")?
        .execute(params![org_id, user_id])?
        == 1)
}

/// How many owners the organization has.
pub fn owners(db: &Reader, org_id: &str) -> Result<u64> {
    count(
        db,
        "SELECT COUNT(*) FROM memberships WHERE org_id = ?1 AND role = 'owner'",
        org_id,
    )
}
