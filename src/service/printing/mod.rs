//! Print jobs (DESIGN §17): booking queues one job per document for the rule's printers, in
//! its own transaction; this worker sends them after the commit. A job is tried at most four
//! times (retries after 1 s, 5 s and 25 s, times `printers.retry_scale`), then marked failed; a
//! failing printer never touches the shipment. Jobs are claimed with a lease in the database, so
//! a job is sent by one sender, and a job whose sender died is due again when its lease ends.

mod send;

use std::{sync::Arc, time::Duration};

use tokio::{
    sync::{Notify, watch},
    task::JoinSet,
};

use crate::{
    error::Result,
    model::{ids, printer::PrintJob, time},
    service::Ctx,
    store::{self, Tx, printers::Due},
};

/// How often the worker looks for due jobs nobody told it about (retries, other processes).
const POLL: Duration = Duration::from_secs(1);
/// How long a claimed job is reserved for its sender (longer than a send can take).
const LEASE: ::time::Duration = ::time::Duration::seconds(120);
/// Jobs in flight at once.
const CONCURRENCY: u32 = 8;
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

/// Queues a job sending document `document_id` (of shipment `shipment_id`) to a printer; call
/// `Queue::queued` after the commit.
pub(crate) fn queue(
    tx: &Tx,
    org_id: &str,
    printer_id: &str,
    shipment_id: &str,
    document_id: &str,
    now: &str,
) -> Result<()> {
    let job = PrintJob {
        id: ids::new(ids::PRINT_JOB),
        printer_id: printer_id.to_string(),
        document_id: document_id.to_string(),
        shipment_id: shipment_id.to_string(),
        status: "queued".into(),
        attempts: 0,
        error: None,
        created_at: now.to_string(),
        updated_at: now.to_string(),
    };
    store::printers::queue(tx, org_id, &job)
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
    let attempts = job.attempts + 1;
    let (status, error, retry) = match outcome {
        Ok(()) => ("printed", None, None),
        Err(failure) => {
            tracing::info!(
                job_id = job.job_id,
                printer_id = job.printer.id,
                attempt = attempts,
                error = failure.message,
                "print job attempt failed"
            );
            let retry = failure
                .retry
                .then(|| retry_delay(attempts, ctx.config.printers.retry_scale))
                .flatten();
            let status = if retry.is_some() { "queued" } else { "failed" };
            (status, Some(failure.message), retry)
        }
    };
    let now = ctx.now();
    let retry_at = retry
        .and_then(|d| ::time::Duration::try_from(d).ok())
        .map(|d| time::format(ctx.clock.now() + d));
    let job_id = job.job_id;
    let written = ctx
        .db
        .write(move |tx| {
            store::printers::settle(
                tx,
                &job_id,
                attempts,
                status,
                error.as_deref(),
                retry_at.as_deref(),
                &now,
            )
        })
        .await;
    if let Err(err) = written {
        tracing::error!(error = %err, "cannot record a print job attempt");
    }
    retry
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
}
