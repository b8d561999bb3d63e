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

const JOB_COLUMNS: &str = "id, printer_id, kind, document_id, shipment_id, status, attempts, error, \
    created_at, updated_at";

fn job_from_row(row: &Row) -> crate::store::sql::Result<PrintJob> {
    Ok(PrintJob {
        id: row.get(0)?,
        printer_id: row.get(1)?,
        kind: row.get(2)?,
        document_id: row.get(3)?,
        shipment_id: row.get(4)?,
        status: row.get(5)?,
        attempts: row.get(6)?,
        error: row.get(7)?,
        created_at: row.get(8)?,
        updated_at: row.get(9)?,
    })
}

/// What a job that is no shipment's document prints (a test page), made when it is queued.
#[derive(Clone, Copy, Debug)]
pub struct Carried<'a> {
    pub content: &'a [u8],
    /// The job's name for the printer (an IPP job title).
    pub title: &'a str,
    /// `pdf` or `zpl`.
    pub format: &'a str,
}

/// Queues a job, due now, after the jobs already queued for its printer; `position` orders the
/// jobs queued at the same time (one booking's documents). A document job names its document;
/// any other carries what it prints.
pub fn queue(
    tx: &Tx,
    org_id: &str,
    job: &PrintJob,
    position: u32,
    carried: Option<Carried>,
) -> Result<()> {
    tx.conn
        .prepare_cached(
            "INSERT INTO print_jobs (id, org_id, printer_id, kind, document_id, shipment_id, content,
                                     title, format, status, attempts, next_attempt_at, created_at,
                                     updated_at, position)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'queued', 0, ?10, ?10, ?10, ?11)",
        )?
        .execute(params![
            job.id,
            org_id,
            job.printer_id,
            job.kind,
            job.document_id,
            job.shipment_id,
            carried.map(|c| c.content),
            carried.map(|c| c.title),
            carried.map(|c| c.format),
            job.created_at,
            position
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

/// A job that is due, with what sending it needs: its document's content, format and title, or
/// those it carries.
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
    /// When the printer first answered busy to this attempt, if it has.
    pub busy_since: Option<String>,
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

/// Claims up to `limit` due jobs, each the first queued job of its printer (so that a
/// printer gets one job at a time, in the order they were queued: a job waiting for its retry
/// or held by a sender keeps the ones behind it waiting). A claimed job is leased (not due
/// again) until `lease_until`, so that no other sender takes it meanwhile; a sender that dies
/// leaves it due again when the lease runs out.
pub fn claim_due(tx: &Tx, now: &str, lease_until: &str, limit: u32) -> Result<Vec<Due>> {
    let ids = tx
        .conn
        .prepare_cached(
            "SELECT j.id FROM print_jobs j
             WHERE j.status = 'queued' AND j.next_attempt_at <= ?1
               AND NOT EXISTS (
                 SELECT 1 FROM print_jobs e
                 WHERE e.printer_id = j.printer_id AND e.status = 'queued'
                   AND (e.created_at < j.created_at
                        OR (e.created_at = j.created_at
                            AND (e.position < j.position
                                 OR (e.position = j.position AND e.id < j.id)))))
             ORDER BY j.next_attempt_at, j.id LIMIT ?2",
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
                "SELECT j.org_id, j.id, j.attempts, COALESCE(j.content, d.content),
                        COALESCE(j.title, s.reference || ' ' || d.document_type),
                        COALESCE(j.format, d.format), j.busy_since, {}
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
                    row.get::<_, Option<String>>(6)?,
                    Printer {
                        id: row.get(7)?,
                        org_id: row.get(8)?,
                        fields: PrinterIn {
                            name: row.get(9)?,
                            kind: row.get(10)?,
                            address: row.get(11)?,
                            format: row.get(12)?,
                        },
                        created_at: row.get(13)?,
                        updated_at: row.get(14)?,
                    },
                ))
            })
            .optional()?;
        match found {
            Some((org_id, job_id, attempts, Some(content), title, format, busy_since, printer)) => {
                due.push(Due {
                    org_id,
                    job_id,
                    printer,
                    attempts,
                    content,
                    format: format.unwrap_or_default(),
                    title: title.unwrap_or_default(),
                    busy_since,
                });
            }
            // A document job's document went with its shipment: nothing left to print.
            Some((_, job_id, attempts, None, ..)) => {
                settle(
                    tx,
                    &job_id,
                    &Settled {
                        attempts,
                        status: "failed",
                        error: Some("the document no longer exists"),
                        retry_at: None,
                        busy_since: None,
                    },
                    now,
                )?;
            }
            None => {}
        }
    }
    Ok(due)
}

/// How an attempt went, as the job keeps it.
#[derive(Clone, Debug)]
pub struct Settled<'a> {
    /// Attempts counted so far (a wait for a busy printer is not one).
    pub attempts: u32,
    /// `queued` (due again at `retry_at`), `printed` or `failed`.
    pub status: &'a str,
    pub error: Option<&'a str>,
    pub retry_at: Option<&'a str>,
    /// When the printer first answered busy to the attempt, while it is waited for.
    pub busy_since: Option<&'a str>,
}

/// Records how an attempt went.
pub fn settle(tx: &Tx, job_id: &str, s: &Settled, now: &str) -> Result<()> {
    tx.conn
        .prepare_cached(
            "UPDATE print_jobs SET status = ?2, attempts = ?3, error = ?4, next_attempt_at = ?5,
                                   busy_since = ?6, updated_at = ?7
             WHERE id = ?1",
        )?
        .execute(params![
            job_id,
            s.status,
            s.attempts,
            s.error,
            s.retry_at,
            s.busy_since,
            now
        ])?;
    Ok(())
}
