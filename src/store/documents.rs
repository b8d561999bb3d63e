//! `documents`: labels and other files of a shipment.

use crate::store::sql::{OptionalExtension, Row, params};

use crate::{
    error::Result,
    model::document::Document,
    store::{Reader, Tx},
};

const COLUMNS: &str =
    "id, org_id, shipment_id, document_type, format, size, content, created_at, updated_at";

fn from_row(row: &Row) -> crate::store::sql::Result<Document> {
    Ok(Document {
        id: row.get(0)?,
        org_id: row.get(1)?,
        shipment_id: row.get(2)?,
        document_type: row.get(3)?,
        format: row.get(4)?,
        size: row.get(5)?,
        content: crate::model::document::content(row.get(6)?),
        created_at: row.get(7)?,
        updated_at: row.get(8)?,
    })
}

pub fn insert(tx: &Tx, d: &Document) -> Result<()> {
    tx.conn
        .prepare_cached(&format!(
            "INSERT INTO documents ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
        ))?
        .execute(params![
            d.id,
            d.org_id,
            d.shipment_id,
            d.document_type,
            d.format,
            d.size,
            d.content.0,
            d.created_at,
            d.updated_at
        ])?;
    Ok(())
}

/// The documents of a shipment, oldest first.
pub fn of_shipment(db: &Reader, org_id: &str, shipment_id: &str) -> Result<Vec<Document>> {
    Ok(db.conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM documents WHERE org_id = ?1 AND shipment_id = ?2 ORDER BY created_at, id"
        ))?
        .query_map([org_id, shipment_id], from_row)?
        .collect::<crate::store::sql::Result<Vec<_>>>()?)
}

pub fn get(db: &Reader, org_id: &str, shipment_id: &str, id: &str) -> Result<Option<Document>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM documents WHERE org_id = ?1 AND shipment_id = ?2 AND id = ?3"
        ))?
        .query_row([org_id, shipment_id, id], from_row)
        .optional()?)
}

/// The shipment document `id` belongs to.
pub fn shipment_of(db: &Reader, org_id: &str, id: &str) -> Result<Option<String>> {
    Ok(db
        .conn
        .prepare_cached("SELECT shipment_id FROM documents WHERE org_id = ?1 AND id = ?2")?
        .query_row([org_id, id], |r| r.get(0))
        .optional()?)
}

/// The position (from 1) of document `id` among the shipment's documents of its type, in the
/// order they were made; reads no content.
pub fn ordinal(db: &Reader, org_id: &str, shipment_id: &str, id: &str) -> Result<Option<usize>> {
    let n: Option<i64> = db
        .conn
        .prepare_cached(
            "SELECT COUNT(*) FROM documents o
             JOIN documents d ON d.org_id = o.org_id AND d.shipment_id = o.shipment_id AND d.document_type = o.document_type
             WHERE d.org_id = ?1 AND d.shipment_id = ?2 AND d.id = ?3
               AND (o.created_at, o.id) <= (d.created_at, d.id)",
        )?
        .query_row([org_id, shipment_id, id], |r| r.get(0))
        .optional()?;
    Ok(n.filter(|n| *n > 0).and_then(|n| usize::try_from(n).ok()))
}
