//! `printers` and their `print_jobs`.

use crate::store::sql::{OptionalExtension, Row, params};

use crate::{
    error::Result,
    model::printer::{PrintJob, Printer, PrinterIn},
    store::{PageQuery, Paged, Reader, Tx, one_row},
};

const COLUMNS: &str = "id, org_id, name, kind, address, format, created_at, updated_at";

fn from_row(row: &Row) -> crate::store::sql::Result<Printer> {
    Ok(Printer {
        id: row.get(0)?,
        org_id: row.get(1)?,
        fields: PrinterIn {
            name: row.get(2)?,
            kind: row.get(3)?,
            address: row.get(4)?,
            format: row.get(5)?,
        },
        created_at: row.get(6)?,
        updated_at: row.get(7)?,
    })
}

pub fn get(db: &Reader, org_id: &str, id: &str) -> Result<Option<Printer>> {
    Ok(db
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM printers WHERE org_id = ?1 AND id = ?2"
        ))?
        .query_row([org_id, id], from_row)
        .optional()?)
}

pub fn list(db: &Reader, org_id: &str, page: PageQuery) -> Result<Paged<Printer>> {
    crate::store::org_page(
        db,
        org_id,
        page,
        "printers",
        &format!(
            "SELECT {COLUMNS} FROM printers WHERE org_id = ?1
             ORDER BY created_at DESC, id DESC"
        ),
        from_row,
    )
}

pub fn save(tx: &Tx, p: &Printer) -> Result<()> {
    let f = &p.fields;
    tx.conn
        .prepare_cached(&format!(
            "INSERT INTO printers ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT(id) DO UPDATE SET name = excluded.name, kind = excluded.kind,
               address = excluded.address, format = excluded.format, updated_at = excluded.updated_at
             WHERE printers.org_id = excluded.org_id"
        ))?
        .execute(params![
            p.id,
            p.org_id,
            f.name,
            f.kind,
            f.address,
            f.format,
            p.created_at,
            p.updated_at
        ])?;
    Ok(())
}

/// The name of a shipping rule that prints on the printer, if any does.
pub fn used_by_rule(db: &Reader, org_id: &str, id: &str) -> Result<Option<String>> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT name FROM shipping_rules
             WHERE org_id = ?1 AND (label_printer_id = ?2 OR document_printer_id = ?2) LIMIT 1",
        )?
        .query_row([org_id, id], |r| r.get(0))
        .optional()?)
}

/// Deletes a printer and its jobs.
pub fn delete(tx: &Tx, org_id: &str, id: &str) -> Result<()> {
    let n = tx
        .conn
        .prepare_cached("DELETE FROM printers WHERE org_id = ?1 AND id = ?2")?
        .execute([org_id, id])?;
    one_row(n, "printers")
}

// --- Print jobs ---------------------------------------------------------------------------

const JOB_COLUMNS: &str =
    "id, printer_id, document_id, shipment_id, status, attempts, error, created_at, updated_at";

fn job_from_row(row: &Row) -> crate::store::sql::Result<PrintJob> {
    Ok(PrintJob {
        id: row.get(0)?,
        printer_id: row.get(1)?,
        document_id: row.get(2)?,
        shipment_id: row.get(3)?,
        status: row.get(4)?,
        attempts: row.get(5)?,
        error: row.get(6)?,
        created_at: row.get(7)?,
        updated_at: row.get(8)?,
    })
}

/// Queues a job, due now.
pub fn queue(tx: &Tx, org_id: &str, job: &PrintJob) -> Result<()> {
    tx.conn
        .prepare_cached(
            "INSERT INTO print_jobs (id, org_id, printer_id, document_id, shipment_id, status, attempts,
                                     next_attempt_at, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, 'queued', 0, ?6, ?6, ?6)",
        )?
        .execute(params![
            job.id,
            org_id,
            job.printer_id,
            job.document_id,
            job.shipment_id,
            job.created_at
        ])?;
    Ok(())
}

/// A printer's jobs, newest first.
pub fn jobs(
    db: &Reader,
    org_id: &str,
    printer_id: &str,
    page: PageQuery,
) -> Result<Paged<PrintJob>> {
    let total: i64 = db
        .conn
        .prepare_cached("SELECT COUNT(*) FROM print_jobs WHERE org_id = ?1 AND printer_id = ?2")?
        .query_row([org_id, printer_id], |r| r.get(0))?;
    let items = db
        .conn
        .prepare_cached(&format!(
            "SELECT {JOB_COLUMNS} FROM print_jobs WHERE org_id = ?1 AND printer_id = ?2
             ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4"
        ))?
        .query_map(
            params![org_id, printer_id, page.limit, page.offset()],
            job_from_row,
        )?
        .collect::<crate::store::sql::Result<Vec<_>>>()?;
    Ok(Paged {
        items,
        total: u64::try_from(total).unwrap_or(0),
        query: page,
    })
}

/// A job that is due, with what sending it needs.
#[derive(Clone, Debug)]
pub struct Due {
    pub org_id: String,
    pub job_id: String,
    pub printer: Printer,
    pub attempts: u32,
    pub content: Vec<u8>,
    /// The document's format, `pdf` or `zpl`.
    pub format: String,
    pub title: String,
}

/// Whether any job is due (a read, so that an idle worker does not write).
pub fn any_due(db: &Reader, now: &str) -> Result<bool> {
    Ok(db
        .conn
        .prepare_cached(
            "SELECT 1 FROM print_jobs WHERE status = 'queued' AND next_attempt_at <= ?1 LIMIT 1",
        )?
        .exists([now])?)
}

/// Claims up to `limit` due jobs: each is leased (not due again) until `lease_until`, so that
/// no other sender takes it meanwhile; a sender that dies leaves it due again when the lease
/// runs out.
pub fn claim_due(tx: &Tx, now: &str, lease_until: &str, limit: u32) -> Result<Vec<Due>> {
    let ids = tx
        .conn
        .prepare_cached(
            "SELECT id FROM print_jobs WHERE status = 'queued' AND next_attempt_at <= ?1
             ORDER BY next_attempt_at, id LIMIT ?2",
        )?
        .query_map(params![now, limit], |r| r.get::<_, String>(0))?
        .collect::<crate::store::sql::Result<Vec<_>>>()?;
    let mut due = Vec::with_capacity(ids.len());
    for id in ids {
        tx.conn
            .prepare_cached("UPDATE print_jobs SET next_attempt_at = ?2 WHERE id = ?1")?
            .execute([&id, lease_until])?;
        let found = tx
            .conn
            .prepare_cached(&format!(
                "SELECT j.org_id, j.id, j.attempts, d.content, s.reference || ' ' || d.document_type, d.format,
                        {}
                 FROM print_jobs j
                 JOIN printers p ON p.id = j.printer_id
                 LEFT JOIN documents d ON d.id = j.document_id AND d.org_id = j.org_id
                 LEFT JOIN shipments s ON s.id = j.shipment_id AND s.org_id = j.org_id
                 WHERE j.id = ?1",
                COLUMNS
                    .split(", ")
                    .map(|c| format!("p.{c}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))?
            .query_row([&id], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, u32>(2)?,
                    row.get::<_, Option<Vec<u8>>>(3)?,
                    row.get::<_, Option<String>>(4)?,
                    row.get::<_, Option<String>>(5)?,
                    Printer {
                        id: row.get(6)?,
                        org_id: row.get(7)?,
                        fields: PrinterIn {
                            name: row.get(8)?,
                            kind: row.get(9)?,
                            address: row.get(10)?,
                            format: row.get(11)?,
                        },
                        created_at: row.get(12)?,
                        updated_at: row.get(13)?,
                    },
                ))
            })
            .optional()?;
        match found {
            Some((org_id, job_id, attempts, Some(content), title, format, printer)) => {
                due.push(Due {
                    org_id,
                    job_id,
                    printer,
                    attempts,
                    content,
                    format: format.unwrap_or_default(),
                    title: title.unwrap_or_default(),
                });
            }
            // The document went with its shipment: nothing left to print.
            Some((_, job_id, attempts, None, ..)) => {
                settle(
                    tx,
                    &job_id,
                    attempts,
                    "failed",
                    Some("the document no longer exists"),
                    None,
                    now,
                )?;
            }
            None => {}
        }
    }
    Ok(due)
}

/// Records an attempt: `status` queued (due again at `retry_at`), printed or failed.
pub fn settle(
    tx: &Tx,
    job_id: &str,
    attempts: u32,
    status: &str,
    error: Option<&str>,
    retry_at: Option<&str>,
    now: &str,
) -> Result<()> {
    tx.conn
        .prepare_cached(
            "UPDATE print_jobs SET status = ?2, attempts = ?3, error = ?4, next_attempt_at = ?5,
                                   updated_at = ?6
             WHERE id = ?1",
        )?
        .execute(params![job_id, status, attempts, error, retry_at, now])?;
    Ok(())
}
