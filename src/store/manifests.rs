//! `manifests` with their PDF, and `manifest_shipments`: which manifest closed each shipment.

use crate::store::sql::{OptionalExtension, Row, params};

use crate::{
    error::{Error, Result},
    model::{
        manifest::{self, Manifest, ManifestDocument},
        shipment::ShipmentRecord,
    },
    store::{PageQuery, Paged, Reader, Tx, json_column, shipments, to_json},
};

const COLUMNS: &str = "id, org_id, carrier_id, date, shipment_ids, refused, parcel_count, \
    total_weight, carrier_closed, carrier_reference, document_id, content, created_at";

fn from_row(row: &Row) -> crate::store::sql::Result<Manifest> {
    let shipment_ids: Vec<String> = json_column(row, 4)?;
    let created_at: String = row.get(12)?;
    Ok(Manifest {
        id: row.get(0)?,
        org_id: row.get(1)?,
        carrier_id: row.get(2)?,
        date: row.get(3)?,
        shipment_count: u32::try_from(shipment_ids.len()).unwrap_or(u32::MAX),
        shipment_ids,
        refused: json_column(row, 5)?,
        parcel_count: row.get(6)?,
        total_weight: row.get(7)?,
        carrier_closed: row.get::<_, i64>(8)? != 0,
        carrier_reference: row.get(9)?,
        document: ManifestDocument {
            id: row.get(10)?,
            document_type: manifest::DOCUMENT_TYPE.into(),
            format: crate::model::document::PDF.into(),
            size: "A4".into(),
            content: manifest::content(row.get(11)?),
            created_at: created_at.clone(),
            updated_at: created_at.clone(),
        },
        created_at,
    })
}

pub fn get(db: &Reader, org_id: &str, id: &str) -> Result<Option<Manifest>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM manifests WHERE org_id = ?1 AND id = ?2"
        ))?
        .query_row([org_id, id], from_row)
        .optional()?)
}

/// The manifest whose document is `document_id`.
pub fn by_document(db: &Reader, org_id: &str, document_id: &str) -> Result<Option<Manifest>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM manifests WHERE org_id = ?1 AND document_id = ?2"
        ))?
        .query_row([org_id, document_id], from_row)
        .optional()?)
}

/// The organization's manifests, newest first.
pub fn list(db: &Reader, org_id: &str, page: PageQuery) -> Result<Paged<Manifest>> {
    crate::store::org_page(
        db,
        org_id,
        page,
        "manifests",
        &format!(
            "SELECT {COLUMNS} FROM manifests WHERE org_id = ?1
             ORDER BY created_at DESC, id DESC"
        ),
        from_row,
    )
}

/// The carrier's booked shipments (not returns, not cancelled) that no manifest holds yet,
/// each with when its booking finished, in booking order.
pub fn unclosed(
    db: &Reader,
    org_id: &str,
    carrier_id: &str,
) -> Result<Vec<(ShipmentRecord, String)>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {}, a.finished_at FROM shipments s
             JOIN booking_attempts a
               ON a.org_id = s.org_id AND a.shipment_id = s.id AND a.status = 'booked'
             WHERE s.org_id = ?1 AND s.carrier_id = ?2 AND s.return_of IS NULL
               AND s.status IN ('processing', 'dispatched', 'partly_dispatched')
               AND NOT EXISTS (SELECT 1 FROM manifest_shipments m
                               WHERE m.org_id = s.org_id AND m.shipment_id = s.id)
             ORDER BY a.finished_at, s.id",
            shipments::COLUMNS
        ))?
        .query_map([org_id, carrier_id], |row| {
            Ok((shipments::from_row(row)?, row.get::<_, String>(15)?))
        })?
        .collect::<crate::store::sql::Result<Vec<_>>>()?)
}

/// Writes a manifest and claims its shipments; a conflict when another close took one of them
/// first.
pub fn insert(tx: &Tx, m: &Manifest) -> Result<()> {
    tx.conn
        .prepare_cached(&format!(
            "INSERT INTO manifests ({COLUMNS})
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
        ))?
        .execute(params![
            m.id,
            m.org_id,
            m.carrier_id,
            m.date,
            to_json(&m.shipment_ids)?,
            to_json(&m.refused)?,
            m.parcel_count,
            m.total_weight,
            i64::from(m.carrier_closed),
            m.carrier_reference,
            m.document.id,
            m.document.content.0,
            m.created_at
        ])?;
    for shipment_id in &m.shipment_ids {
        let claimed = tx
            .conn
            .prepare_cached(
                "INSERT INTO manifest_shipments (org_id, shipment_id, manifest_id)
                 VALUES (?1, ?2, ?3)",
            )?
            .execute(params![m.org_id, shipment_id, m.id]);
        match claimed {
            Ok(_) => {}
            Err(err) if err.is_unique_violation() => {
                return Err(Error::Conflict(format!(
                    "shipment {shipment_id} was closed by another manifest meanwhile; close again"
                )));
            }
            Err(err) => return Err(err.into()),
        }
    }
    Ok(())
}
