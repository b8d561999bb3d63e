//! `audit_log`: one row per write of an organization's data, listed newest first.

use crate::store::sql::{Row, params};

use crate::{
    error::Result,
    model::audit::{AuditActor, AuditEntry},
    store::{PageQuery, Paged, Reader, Tx},
};

pub fn insert(tx: &Tx, entry: &AuditEntry) -> Result<()> {
    tx.conn
        .prepare_cached(
            "INSERT INTO audit_log (org_id, created_at, id, operation, resource_id, actor_type,
                 actor_id, user_id, client_address)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?
        .execute(params![
            entry.org_id,
            entry.created_at,
            entry.id,
            entry.operation,
            entry.resource_id,
            entry.actor.kind,
            entry.actor.id,
            entry.actor.user_id,
            entry.client_address
        ])?;
    Ok(())
}

fn from_row(row: &Row) -> crate::store::sql::Result<AuditEntry> {
    Ok(AuditEntry {
        org_id: row.get(0)?,
        created_at: row.get(1)?,
        id: row.get(2)?,
        operation: row.get(3)?,
        resource_id: row.get(4)?,
        actor: AuditActor {
            kind: row.get(5)?,
            id: row.get(6)?,
            user_id: row.get(7)?,
        },
        client_address: row.get(8)?,
    })
}

pub fn list(db: &Reader, org_id: &str, page: PageQuery) -> Result<Paged<AuditEntry>> {
    crate::store::org_page(
        db,
        org_id,
        page,
        "audit_log",
        "SELECT org_id, created_at, id, operation, resource_id, actor_type, actor_id, user_id,
                 client_address
             FROM audit_log WHERE org_id = ?1
             ORDER BY created_at DESC, id DESC",
        from_row,
    )
}
