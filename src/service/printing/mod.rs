//! Print jobs (DESIGN §17): booking queues one job per document for the rule's printers, in
//! its own transaction, and a test print queues a job carrying its test page; this worker sends
//! them after the commit. A printer gets one job at a time, in the order they were queued (a
//! booking's labels in parcel order). A job is tried at most four times (retries after 1 s, 5 s
//! and 25 s, times `printers.retry_scale`), then marked failed; an IPP printer that answers busy
//! is asked again every second, and only when it stays busy for `printers.busy_wait_seconds`
//! does that count as a failed attempt. A failing printer never touches the shipment. Jobs are
//! claimed with a lease in the database, so a job is sent by one sender, and a job whose sender
//! died is due again when its lease ends.

mod print;
mod send;
mod test_page;

pub use print::print_documents;
pub use test_page::print_test_page;

use std::{sync::Arc, time::Duration};

use tokio::{
    sync::{Notify, watch},
    task::JoinSet,
};

use crate::{
    error::Result,
    model::{
        ids,
        printer::{self, PrintJob},
        time,
    },
    service::Ctx,
    store::{self, Tx, printers::Due},
};

/// How often the worker looks for due jobs nobody told it about (retries, other processes).
const POLL: Duration = Duration::from_secs(1);
/// How long a claimed job is reserved for its sender (longer than a send can take).
const LEASE: ::time::Duration = ::time::Duration::seconds(120);
/// Jobs in flight at once.
const CONCURRENCY: u32 = 8;
/// How often a busy printer is asked again (times `printers.retry_scale`, but not more often
/// than every `BUSY_POLL_MIN`).
const BUSY_POLL: Duration = Duration::from_secs(1);
const BUSY_POLL_MIN: Duration = Duration::from_millis(50);
/// Delays before the 2nd, 3rd and 4th attempt.
const RETRIES: [Duration; 3] = [
    Duration::from_secs(1),
    Duration::from_secs(5),
    Duration::from_secs(25),
];

/// Wakes the worker when jobs were queued.
#[derive(Default)]
pub struct Queue(Notify);

impl Queue {
    pub fn queued(&self) {
        self.0.notify_one();
    }
}

/// Queues a job sending document `document_id` (of shipment `shipment_id`) to a printer, after
/// the jobs queued before it and, among the jobs queued at the same time, at `position`; call
/// `Queue::queued` after the commit.
pub(crate) fn queue(
    tx: &Tx,
    org_id: &str,
    printer_id: &str,
    shipment_id: &str,
    document_id: &str,
    position: u32,
    now: &str,
) -> Result<PrintJob> {
    let job = PrintJob {
        document_id: Some(document_id.to_string()),
        shipment_id: Some(shipment_id.to_string()),
        ..new_job(printer_id, printer::JOB_DOCUMENT, now)
    };
    store::printers::queue(tx, org_id, &job, position, None)?;
    Ok(job)
}

/// Queues a job that carries its file (a manifest's PDF) for a printer, after the jobs queued
/// before it; call `Queue::queued` after the commit.
pub(crate) fn queue_carried(
    tx: &Tx,
    org_id: &str,
    printer_id: &str,
    document_id: &str,
    content: &[u8],
    title: &str,
    now: &str,
) -> Result<PrintJob> {
    let job = PrintJob {
        document_id: Some(document_id.to_string()),
        ..new_job(printer_id, printer::JOB_MANIFEST, now)
    };
    let carried = store::printers::Carried {
        content,
        title,
        format: crate::model::document::PDF,
    };
    store::printers::queue(tx, org_id, &job, 0, Some(carried))?;
    Ok(job)
}

/// A queued job of `kind` for a printer, made `now`.
fn new_job(printer_id: &str, kind: &str, now: &str) -> PrintJob {
    PrintJob {
        id: ids::new(ids::PRINT_JOB),
        printer_id: printer_id.to_string(),
        kind: kind.to_string(),
        document_id: None,
        shipment_id: None,
        status: "queued".into(),
        attempts: 0,
        error: None,
        created_at: now.to_string(),
        updated_at: now.to_string(),
    }
}

/// The delay before the next attempt after `attempts` failed ones; None when none is left.
fn retry_delay(attempts: u32, scale: f64) -> Option<Duration> {
    let base = RETRIES.get(usize::try_from(attempts).ok()?.checked_sub(1)?)?;
    Some(base.mul_f64(scale))
}

/// Runs until `stop` turns true; then waits up to `grace` for jobs in flight.
pub async fn run(ctx: Ctx, mut stop: watch::Receiver<bool>, grace: Duration) {
    let finished = Arc::new(Notify::new());
    let mut tasks: JoinSet<Option<Duration>> = JoinSet::new();
    let mut next_retry: Option<tokio::time::Instant> = None;
    while !*stop.borrow() {
        while let Some(done) = tasks.try_join_next() {
            if let Ok(Some(delay)) = done {
                let at = tokio::time::Instant::now() + delay;
                next_retry = Some(next_retry.map_or(at, |t| t.min(at)));
            }
        }
        let room = CONCURRENCY.saturating_sub(u32::try_from(tasks.len()).unwrap_or(CONCURRENCY));
        if room > 0 {
            match claim(&ctx, room).await {
                Ok(due) => {
                    for job in due {
                        let (ctx, finished) = (ctx.clone(), finished.clone());
                        tasks.spawn(async move {
                            let retry = attempt(&ctx, job).await;
                            finished.notify_one();
                            retry
                        });
                    }
                }
                Err(err) => tracing::error!(error = %err, "cannot read due print jobs"),
            }
        }
        let wait = next_retry
            .map(|at| at.saturating_duration_since(tokio::time::Instant::now()))
            .map_or(POLL, |d| d.min(POLL));
        next_retry = next_retry.filter(|at| *at > tokio::time::Instant::now() + wait);
        tokio::select! {
            () = ctx.printing.0.notified() => {}
            () = finished.notified() => {}
            () = tokio::time::sleep(wait) => {}
            _ = stop.changed() => {}
        }
    }
    let drained =
        tokio::time::timeout(grace, async { while tasks.join_next().await.is_some() {} }).await;
    if drained.is_err() {
        tasks.abort_all();
    }
}

async fn claim(ctx: &Ctx, limit: u32) -> Result<Vec<Due>> {
    let (now, lease_until) = (ctx.now(), time::format(ctx.clock.now() + LEASE));
    if !ctx.db.point(|db| store::printers::any_due(db, &now))? {
        return Ok(Vec::new());
    }
    ctx.db
        .write(move |tx| store::printers::claim_due(tx, &now, &lease_until, limit))
        .await
}

/// Sends one job and records how it went; returns the delay of its retry, if it has one.
async fn attempt(ctx: &Ctx, job: Due) -> Option<Duration> {
    let outcome = send::send(
        &job.printer,
        &job.format,
        &job.title,
        job.content,
        &crate::service::printers::networks(ctx),
    )
    .await;
    let (now, at) = (ctx.now(), ctx.clock.now());
    let next = next_step(
        outcome,
        &job.busy_since,
        job.attempts,
        at,
        &ctx.config.printers,
    );
    if let Some(error) = &next.error {
        tracing::info!(
            job_id = job.job_id,
            printer_id = job.printer.id,
            attempts = next.attempts,
            error = error.as_str(),
            "print job attempt failed"
        );
    }
    let retry_at = next
        .retry
        .and_then(|d| ::time::Duration::try_from(d).ok())
        .map(|d| time::format(at + d));
    let job_id = job.job_id;
    let retry = next.retry;
    let written = ctx
        .db
        .write(move |tx| {
            let settled = store::printers::Settled {
                attempts: next.attempts,
                status: next.status,
                error: next.error.as_deref(),
                retry_at: retry_at.as_deref(),
                busy_since: next.busy_since.as_deref(),
            };
            store::printers::settle(tx, &job_id, &settled, &now)
        })
        .await;
    if let Err(err) = written {
        tracing::error!(error = %err, "cannot record a print job attempt");
    }
    retry
}

/// What becomes of a job after an attempt.
#[derive(Debug, PartialEq)]
struct Next {
    status: &'static str,
    attempts: u32,
    error: Option<String>,
    retry: Option<Duration>,
    busy_since: Option<String>,
}

/// The job's next step after an attempt that ended in `outcome`: printed; waiting for a busy
/// printer (not an attempt, while it has been busy for less than `busy_wait_seconds`); due
/// again after a retry delay; or failed.
fn next_step(
    outcome: Result<(), send::Failure>,
    busy_since: &Option<String>,
    attempts: u32,
    now: ::time::OffsetDateTime,
    config: &crate::config::Printers,
) -> Next {
    let failure = match outcome {
        Ok(()) => {
            return Next {
                status: "printed",
                attempts: attempts + 1,
                error: None,
                retry: None,
                busy_since: None,
            };
        }
        Err(failure) => failure,
    };
    if failure.busy {
        let since = busy_since.as_deref().and_then(time::parse).unwrap_or(now);
        let waited = (now - since).max(::time::Duration::ZERO);
        if waited
            < ::time::Duration::seconds(i64::try_from(config.busy_wait_seconds).unwrap_or(i64::MAX))
        {
            return Next {
                status: "queued",
                attempts,
                error: Some(format!(
                    "{}; waiting for it since {}",
                    failure.message,
                    time::format(since)
                )),
                retry: Some(BUSY_POLL.mul_f64(config.retry_scale).max(BUSY_POLL_MIN)),
                busy_since: Some(time::format(since)),
            };
        }
    }
    let attempts = attempts + 1;
    let retry = failure
        .retry
        .then(|| retry_delay(attempts, config.retry_scale))
        .flatten();
    Next {
        status: if retry.is_some() { "queued" } else { "failed" },
        attempts,
        error: Some(failure.message),
        retry,
        busy_since: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_retries_after_1_5_and_25_seconds_scaled() {
        let delays: Vec<_> = (1..=4).map(|n| retry_delay(n, 1.0)).collect();
        assert_eq!(
            delays,
            [
                Some(Duration::from_secs(1)),
                Some(Duration::from_secs(5)),
                Some(Duration::from_secs(25)),
                None
            ]
        );
        assert_eq!(retry_delay(2, 0.001), Some(Duration::from_millis(5)));
        assert_eq!(retry_delay(0, 1.0), None);
    }

    fn failure(busy: bool) -> Result<(), send::Failure> {
        Err(send::Failure {
            message: "the printer is busy".into(),
            retry: true,
            busy,
        })
    }

    #[test]
    fn a_busy_printer_is_waited_for_without_counting_an_attempt_until_the_wait_runs_out() {
        let config = crate::config::Printers::default();
        let start = ::time::macros::datetime!(2026-11-26 10:00:00 UTC);
        let first = next_step(failure(true), &None, 0, start, &config);
        assert_eq!(
            first,
            Next {
                status: "queued",
                attempts: 0,
                error: Some(
                    "the printer is busy; waiting for it since 2026-11-26T10:00:00.000Z".into()
                ),
                retry: Some(Duration::from_secs(1)),
                busy_since: Some("2026-11-26T10:00:00.000Z".into()),
            }
        );
        let later = start + ::time::Duration::seconds(119);
        let still = next_step(failure(true), &first.busy_since, 0, later, &config);
        assert_eq!(
            (still.attempts, still.busy_since),
            (0, first.busy_since.clone())
        );
        let over = start + ::time::Duration::seconds(120);
        let counted = next_step(failure(true), &first.busy_since, 0, over, &config);
        assert_eq!(
            counted,
            Next {
                status: "queued",
                attempts: 1,
                error: Some("the printer is busy".into()),
                retry: Some(Duration::from_secs(1)),
                busy_since: None,
            }
        );
        // The last attempt's busy wait that runs out fails the job.
        let last = next_step(failure(true), &first.busy_since, 3, over, &config);
        assert_eq!((last.status, last.attempts), ("failed", 4));
        // Other failures count at once; a print clears the wait.
        assert_eq!(
            next_step(failure(false), &None, 0, start, &config).attempts,
            1
        );
        let printed = next_step(Ok(()), &first.busy_since, 0, later, &config);
        assert_eq!(
            (printed.status, printed.attempts, printed.busy_since),
            ("printed", 1, None)
        );
    }
}
